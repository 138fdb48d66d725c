"""Results storage: Parquet as the source of truth, MLflow as its mirror, an in-memory store for tests."""

from cmb.store._base import ResultStore, dedupe_checks, dedupe_runs, empty_frame, finished_keys
from cmb.store._follow import MirrorFollower, MirrorProcess, MirrorThread
from cmb.store._memory import MemoryStore
from cmb.store._mlflow import (
    ExperimentLink,
    ExperimentLinks,
    MlflowConfig,
    MlflowMirror,
    SyncReport,
    attempt_artifacts,
    attempt_metrics,
    attempt_params,
    attempt_tags,
    default_tracking_uri,
    experiment_links,
    log_batches,
    sweep_aggregates,
)
from cmb.store._parquet import ParquetStore, write_parquet_atomic
from cmb.store._schema import CHECKS_SCHEMA, RESULTS_SCHEMA_VERSION, RUNS_SCHEMA, check_rows, run_row

__all__ = [
    "CHECKS_SCHEMA",
    "RESULTS_SCHEMA_VERSION",
    "RUNS_SCHEMA",
    "ExperimentLink",
    "ExperimentLinks",
    "MemoryStore",
    "MirrorFollower",
    "MirrorProcess",
    "MirrorThread",
    "MlflowConfig",
    "MlflowMirror",
    "ParquetStore",
    "ResultStore",
    "SyncReport",
    "attempt_artifacts",
    "attempt_metrics",
    "attempt_params",
    "attempt_tags",
    "check_rows",
    "dedupe_checks",
    "dedupe_runs",
    "default_tracking_uri",
    "empty_frame",
    "experiment_links",
    "finished_keys",
    "log_batches",
    "run_row",
    "sweep_aggregates",
    "write_parquet_atomic",
]
