"""The analysis of one or more sweeps: loaded once, cleaned once, asked for any registered table."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

import numpy as np
import polars as pl
from pydantic import Field

from cmb.analysis._load import AnalysisError, dedupe_runs, scan_checks, scan_runs
from cmb.analysis._prepare import CONDITION_ORDER, KIND_ORDER, CostModel, Epoch, prepare
from cmb.analysis._stats import DEFAULT_N_BOOT, DEFAULT_SEED, Interval, bootstrap_ratio
from cmb.analysis._table import Table
from cmb.models import CmbModel


class Basis(StrEnum):
    """Which outcome counts: audit-gated (a failed audit voids the run) or raw (checks only)."""

    GATED = "gated"
    RAW = "raw"


class AnalysisOptions(CmbModel):
    """Options shared by every table."""

    basis: Basis = Field(default=Basis.GATED, description="Audit-gated or raw outcomes")
    epoch: Epoch = Field(default=Epoch.LATEST, description="Keep the latest task/grader/harness versions, or all")
    n_boot: int = Field(default=DEFAULT_N_BOOT, ge=100, description="Bootstrap resamples")
    seed: int = Field(default=DEFAULT_SEED, description="Seed of every bootstrap and Monte Carlo test")
    level: float = Field(default=0.95, gt=0, lt=1, description="Confidence level of intervals")
    cost: CostModel = Field(default_factory=CostModel, description="Compute estimate of records without metered cost")
    agents: tuple[str, ...] | None = Field(default=None, description="Only these agents")
    conditions: tuple[str, ...] | None = Field(default=None, description="Only these conditions")


@dataclass(frozen=True)
class TableSpec:
    """A registered table: its name, title and builder."""

    name: str
    title: str
    build: Callable[[Analysis], Table]


TABLES: dict[str, TableSpec] = {}
Builder = TypeVar("Builder", bound=Callable[["Analysis"], Table])


def register_table(name: str, title: str) -> Callable[[Builder], Builder]:
    """Register a table builder under `name` (the value of `cmb results --table`)."""

    def wrap(fn: Builder) -> Builder:
        if name in TABLES:
            raise ValueError(f"table {name!r} registered twice")
        TABLES[name] = TableSpec(name=name, title=title, build=fn)
        return fn

    return wrap


def ordered(values: Sequence[str], order: Sequence[str]) -> list[str]:
    """`values` in the canonical `order`, unknown values after it alphabetically."""
    known = [v for v in order if v in values]
    return known + sorted(v for v in set(values) if v not in order)


class Analysis:
    """Attempts of some sweeps after run-pool hygiene, with the options every table shares."""

    def __init__(
        self,
        runs: pl.LazyFrame,
        checks: pl.LazyFrame | None = None,
        options: AnalysisOptions | None = None,
        sweeps: Sequence[str] = (),
        home: Path | None = None,
    ) -> None:
        self.options = options or AnalysisOptions()
        self.home = home  # CMB_HOME when loaded from a store: where the sweeps' specs are (None for in-memory rows)
        self.all, self.epoch = prepare(runs, epoch=self.options.epoch, cost=self.options.cost)
        kept = self.all.filter(pl.col("drop_reason").is_null())
        if self.options.agents:
            kept = kept.filter(pl.col("agent").is_in(list(self.options.agents)))
        if self.options.conditions:
            kept = kept.filter(pl.col("condition").is_in(list(self.options.conditions)))
        self.runs = kept
        self.checks = checks
        self.sweeps = list(sweeps) or sorted(self.all["sweep"].unique().drop_nulls().to_list())

    @classmethod
    def from_store(cls, home: Path, sweeps: Sequence[str], options: AnalysisOptions | None = None) -> Analysis:
        """Load `sweeps` from the Parquet store under `home` (CMB_HOME)."""
        if not sweeps:
            raise AnalysisError("name at least one sweep")
        runs = dedupe_runs(scan_runs(home, sweeps).collect())
        return cls(runs.lazy(), scan_checks(home, sweeps), options, sweeps, home)

    @property
    def pass_col(self) -> str:
        """The boolean column that counts as a pass under the chosen basis."""
        return f"pass_{self.options.basis.value}"

    @property
    def score_col(self) -> str:
        """The score column (fraction of checks) under the chosen basis."""
        return f"score_{self.options.basis.value}"

    def agents(self) -> list[str]:
        """Agents with kept attempts, sorted."""
        return sorted(self.runs["agent"].unique().drop_nulls().to_list())

    def conditions(self) -> list[str]:
        """Conditions with kept attempts, in SF, SR, WF, WR order."""
        return ordered(self.runs["condition"].unique().drop_nulls().to_list(), CONDITION_ORDER)

    def kinds(self) -> list[str]:
        """Task kinds with kept attempts, in the paper's order."""
        return ordered(self.runs["kind"].unique().drop_nulls().to_list(), KIND_ORDER)

    def per_task(self, by: Sequence[str], frame: pl.DataFrame | None = None) -> pl.DataFrame:
        """Passes and attempts per `by` group and task: the clusters of every bootstrap, sorted by task.

        The order matters: a bootstrap draws task positions, so the same seed gives the same interval only when
        the tasks come in the same order.
        """
        frame = self.runs if frame is None else frame
        return (
            frame.group_by([*by, "task"])
            .agg(passes=pl.col(self.pass_col).sum().cast(pl.Int64), attempts=pl.len().cast(pl.Int64))
            .sort([*by, "task"])
        )

    def ci(self, passes: np.ndarray | Sequence[float], attempts: np.ndarray | Sequence[float]) -> Interval:
        """Task-clustered bootstrap interval of a pass rate, with the analysis's seed and resamples."""
        return bootstrap_ratio(
            passes, attempts, n_boot=self.options.n_boot, seed=self.options.seed, level=self.options.level
        )

    def meta(self) -> dict[str, object]:
        """What every table records about how it was computed."""
        o = self.options
        return {
            "sweeps": self.sweeps,
            "basis": o.basis.value,
            "bootstrap": {"n_boot": o.n_boot, "seed": o.seed, "level": o.level, "cluster": "task"},
            "epoch": self.epoch.model_dump(mode="json"),
            "prices": o.cost.model_dump(mode="json"),
        }

    def table(self, name: str) -> Table:
        """Build the registered table `name`."""
        if name not in TABLES:
            raise AnalysisError(f"unknown table {name!r}; known: {', '.join(TABLES)}")
        return TABLES[name].build(self)
