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

from cmb.analysis._load import AnalysisError, scan_checks, scan_runs
from cmb.analysis._prepare import CONDITION_ORDER, KIND_ORDER, CostModel, Epoch, prepare
from cmb.analysis._stats import DEFAULT_N_BOOT, DEFAULT_SEED, Interval, bootstrap_ratios
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


Counts = np.ndarray | Sequence[float]


def count(condition: str | pl.Expr) -> pl.Expr:
    """How many rows of a group meet a boolean column or expression, as Int64.

    The cast comes before the sum: a cast after an aggregation takes polars off its fast group-by path (it made
    each such column several times slower than the group-by itself).
    """
    return (pl.col(condition) if isinstance(condition, str) else condition).cast(pl.Int64).sum()


def _group_ids(frame: pl.DataFrame, by: Sequence[str]) -> np.ndarray:
    """Each row's group as one integer: the keys' categorical codes (else dense ranks) side by side, null as 0."""
    codes = frame.select(
        [(pl.col(k).to_physical() if frame.schema[k] == pl.Categorical else pl.col(k).rank("dense")) for k in by]
    ).select(pl.all().cast(pl.Int64).fill_null(-1) + 1)
    gid = np.zeros(frame.height, dtype=np.int64)
    span = 1
    for key in by:
        column = codes[key].to_numpy()
        width = int(column.max()) + 1 if column.size else 1
        span *= width
        if span >= 1 << 62:  # too many codes to place side by side: number the distinct keys instead
            ranks = frame.select(pl.struct(list(by)).rank("dense")).to_series()
            return ranks.cast(pl.Int64).to_numpy()
        gid = gid * width + column
    return gid


@dataclass(frozen=True)
class Grouping:
    """The rows of each group of a frame: `order[starts[g]:ends[g]]` are group g's rows, in row order."""

    keys: pl.DataFrame  # one row per group: its key values (no columns for the one group of a whole frame)
    order: np.ndarray | None  # None: the whole frame as one group, its rows as they are
    starts: list[int]
    ends: list[int]

    @classmethod
    def of(cls, frame: pl.DataFrame, by: Sequence[str]) -> Grouping:
        """The groups of `frame` by the `by` columns (one group of every row when `by` is empty)."""
        if not by:
            return cls(pl.DataFrame(), None, [0], [frame.height])
        if frame.height == 0:
            return cls(frame.select(*by), np.zeros(0, dtype=np.int64), [], [])
        gid = _group_ids(frame, by)
        order = np.argsort(gid, kind="stable")  # stable: each group's rows stay in row order
        ordered_ids = gid[order]
        starts = np.flatnonzero(np.r_[True, ordered_ids[1:] != ordered_ids[:-1]])
        ends = np.r_[starts[1:], gid.size]
        return cls(frame.select(*by)[order[starts].tolist()], order, starts.tolist(), ends.tolist())


def float_sums(frame: pl.DataFrame, by: Sequence[str] | Grouping, **sums: pl.Expr) -> pl.DataFrame:
    """Per group (one row for the whole frame when `by` is empty), the sum of each float expression.

    The same bits on every run: polars' parallel group-by adds floats in an order that depends on its threads,
    and a whole column's sum on how the reader split it into chunks. Here each group's values are gathered in
    row order into one array and summed by numpy's pairwise summation; nulls add nothing.
    """
    groups = by if isinstance(by, Grouping) else Grouping.of(frame, by)
    values = frame.select(**{name: e.cast(pl.Float64).fill_null(0.0) for name, e in sums.items()})
    columns = []
    for name in sums:
        v = values[name].to_numpy()
        gathered = v if groups.order is None else v[groups.order]
        total = [float(gathered[i:j].sum()) for i, j in zip(groups.starts, groups.ends, strict=True)]
        columns.append(pl.Series(name, total, dtype=pl.Float64))
    return (
        pl.concat([groups.keys, pl.DataFrame(columns)], how="horizontal")
        if groups.keys.width
        else pl.DataFrame(columns)
    )


def counted(frame: pl.LazyFrame, by: Sequence[str], **aggs: pl.Expr) -> pl.DataFrame:
    """`aggs` and the row count (`attempts`, Int64) per `by` group, sorted by the groups: integers only.

    Sums of integers are exact in any order, so this runs on polars' streaming engine, the fastest at grouping
    by several categorical columns (its result does not depend on how the rows were split among threads).
    """
    attempts = pl.col("attempts").cast(pl.Int64)
    return frame.group_by(by).agg(**aggs, attempts=pl.len()).with_columns(attempts).sort(by).collect()


# The groups of the shared per-task counts: every per-task table asks for a subset of them.
TASK_GROUPS: tuple[str, ...] = ("agent", "condition", "kind")


def ordered(values: Sequence[str], order: Sequence[str]) -> list[str]:
    """`values` in the canonical `order`, unknown values after it alphabetically."""
    known = [v for v in order if v in values]
    return known + sorted(v for v in set(values) if v not in order)


class Analysis:
    """Attempts of some sweeps after run-pool hygiene, with the options every table shares.

    `all` holds every attempt (one per key) with its `drop_reason`, `runs` the kept ones; both have the columns
    of `ANALYSIS_COLUMNS` (what the tables, the report and `compare` read), the few-valued labels as polars
    Categorical (they compare, sort and print as the strings they are).
    """

    def __init__(
        self,
        runs: pl.LazyFrame,
        checks: pl.LazyFrame | None = None,
        options: AnalysisOptions | None = None,
        sweeps: Sequence[str] = (),
        home: Path | None = None,
        *,
        dedupe: bool = False,
    ) -> None:
        self.options = options or AnalysisOptions()
        self.home = home  # CMB_HOME when loaded from a store: where the sweeps' specs are (None for in-memory rows)
        o = self.options
        self.all, self.epoch = prepare(runs, epoch=o.epoch, cost=o.cost, dedupe=dedupe)
        keep = pl.col("drop_reason").is_null()
        if o.agents:
            keep &= pl.col("agent").is_in(list(o.agents))
        if o.conditions:
            keep &= pl.col("condition").is_in(list(o.conditions))
        # all: every attempt with its drop reason; runs: the kept ones (one filter, copying the slim columns once)
        self.runs = self.all.filter(keep)
        self.checks = checks
        self.sweeps = list(sweeps) or sorted(self.all["sweep"].unique().drop_nulls().to_list())
        self._task_counts: dict[str, pl.DataFrame] = {}
        self._groupings: dict[tuple[str, ...], Grouping] = {}

    @classmethod
    def from_store(cls, home: Path, sweeps: Sequence[str], options: AnalysisOptions | None = None) -> Analysis:
        """Load `sweeps` from the Parquet store under `home` (CMB_HOME)."""
        if not sweeps:
            raise AnalysisError("name at least one sweep")
        # every write of a key is read; prepare keeps one per key (reading the keys once, with the other columns)
        return cls(scan_runs(home, sweeps), scan_checks(home, sweeps), options, sweeps, home, dedupe=True)

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
        return sorted(self.task_counts()["agent"].unique().drop_nulls().to_list())

    def conditions(self) -> list[str]:
        """Conditions with kept attempts, in SF, SR, WF, WR order."""
        return ordered(self.task_counts()["condition"].unique().drop_nulls().to_list(), CONDITION_ORDER)

    def kinds(self) -> list[str]:
        """Task kinds with kept attempts, in the paper's order."""
        return ordered(self.task_counts()["kind"].unique().drop_nulls().to_list(), KIND_ORDER)

    def task_counts(self) -> pl.DataFrame:
        """Passes and attempts per agent, condition, kind and task, sorted (computed on first use).

        The one pass over the kept attempts that every per-task table and interval shares.
        """
        p = self.pass_col
        if p not in self._task_counts:
            self._task_counts[p] = counted(self.runs.lazy(), [*TASK_GROUPS, "task"], passes=count(p))
        return self._task_counts[p]

    def grouping(self, by: Sequence[str]) -> Grouping:
        """The kept attempts' rows of each `by` group (for `float_sums`; computed once per `by`)."""
        if tuple(by) not in self._groupings:
            self._groupings[tuple(by)] = Grouping.of(self.runs, by)
        return self._groupings[tuple(by)]

    def per_task(self, by: Sequence[str], frame: pl.DataFrame | None = None) -> pl.DataFrame:
        """Passes and attempts per `by` group and task: the clusters of every bootstrap, sorted by task.

        The order matters: a bootstrap draws task positions, so the same seed gives the same interval only when
        the tasks come in the same order.
        """
        keys = [*by, "task"]
        if frame is None and set(by) <= set(TASK_GROUPS):
            counts = self.task_counts()
            if list(by) == list(TASK_GROUPS):
                return counts
            aggs = pl.col("passes", "attempts").sum()
            return counts.group_by(keys).agg(aggs).sort(keys)
        frame = self.runs if frame is None else frame
        return counted(frame.lazy(), keys, passes=count(self.pass_col)).select(*keys, "passes", "attempts")

    def ci(self, passes: Counts, attempts: Counts) -> Interval:
        """Task-clustered bootstrap interval of a pass rate, with the analysis's seed and resamples."""
        return self.cis([(passes, attempts)])[0]

    def cis(self, groups: Sequence[tuple[Counts, Counts]]) -> list[Interval]:
        """`ci` of many (passes, attempts) groups at once: the same intervals, computed together."""
        o = self.options
        return bootstrap_ratios(groups, n_boot=o.n_boot, seed=o.seed, level=o.level)

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
