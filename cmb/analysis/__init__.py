"""Analysis of the Parquet store with polars: the paper's tables and figures, statistics, cost, the HTML report."""

from cmb.analysis import _grid, _tables  # noqa: F401  (register the tables)
from cmb.analysis._analysis import TABLES, Analysis, AnalysisOptions, Basis, TableSpec, register_table
from cmb.analysis._compare import Metric, PairedTestKind, compare
from cmb.analysis._load import AnalysisError, dedupe_runs, list_sweeps, scan_checks, scan_runs
from cmb.analysis._prepare import CostModel, DropReason, Epoch, EpochReport, prepare
from cmb.analysis._report import render_report, write_report
from cmb.analysis._stats import (
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    Interval,
    PairedTest,
    bonferroni,
    bootstrap_mean,
    bootstrap_paired_ratio_diff,
    bootstrap_ratio,
    bootstrap_ratios,
    bootstrap_unpaired_ratio_diff,
    pass_at_k,
    pass_hat_k,
    pass_k_curves,
    pass_k_means,
    sign_flip_test,
    wilcoxon_signed_rank,
)
from cmb.analysis._synthetic import SyntheticAgent, synthetic_sweep, write_store
from cmb.analysis._table import Table

__all__ = [
    "DEFAULT_N_BOOT",
    "DEFAULT_SEED",
    "TABLES",
    "Analysis",
    "AnalysisError",
    "AnalysisOptions",
    "Basis",
    "CostModel",
    "DropReason",
    "Epoch",
    "EpochReport",
    "Interval",
    "Metric",
    "PairedTest",
    "PairedTestKind",
    "SyntheticAgent",
    "Table",
    "TableSpec",
    "bonferroni",
    "bootstrap_mean",
    "bootstrap_paired_ratio_diff",
    "bootstrap_ratio",
    "bootstrap_ratios",
    "bootstrap_unpaired_ratio_diff",
    "compare",
    "dedupe_runs",
    "list_sweeps",
    "pass_at_k",
    "pass_hat_k",
    "pass_k_curves",
    "pass_k_means",
    "prepare",
    "register_table",
    "render_report",
    "scan_checks",
    "scan_runs",
    "sign_flip_test",
    "synthetic_sweep",
    "wilcoxon_signed_rank",
    "write_report",
    "write_store",
]
