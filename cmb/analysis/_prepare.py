"""Run-pool hygiene and derived columns: epochs, infrastructure drops, outcomes, wall time and cost per attempt."""

from __future__ import annotations

from enum import StrEnum

import polars as pl
from pydantic import Field

from cmb.analysis._load import RUN_COLUMNS, dedupe_runs
from cmb.models import DEFAULT_PROFILES, CmbModel, ComputePriceSheet, FailureClass

# Outcome of a kept attempt as the tables and the grid show it.
PASS = "pass"
AUDIT_VOIDED = "audit-voided"
UNCLASSIFIED = "unclassified"
FAILURE_ORDER: tuple[str, ...] = (
    FailureClass.SCIENTIFIC.value,
    FailureClass.SOFTWARE.value,
    FailureClass.FORMAT.value,
    FailureClass.TIME_LIMIT.value,
    AUDIT_VOIDED,
    UNCLASSIFIED,
)
KIND_ORDER: tuple[str, ...] = ("input-preparation", "output-analysis", "run-and-analyze", "workflow")
CONDITION_ORDER: tuple[str, ...] = ("SF", "SR", "WF", "WR")
HASHES = ("task_hash", "grader_hash")


class DropReason(StrEnum):
    """Why an attempt is left out of the analysis."""

    INFRASTRUCTURE = "infrastructure"
    STALE_HARNESS = "stale-harness"
    STALE_TASK = "stale-task"


class Epoch(StrEnum):
    """Which versions of tasks, graders and harness the analysis keeps."""

    LATEST = "latest"
    ALL = "all"


_PINNED = ComputePriceSheet.pinned()
_GIB_PER_CORE = DEFAULT_PROFILES["single"].memory_gib / DEFAULT_PROFILES["single"].cpus


class CostModel(CmbModel):
    """Prices of the compute estimate for records that carry no metered compute cost (those from before metering).

    An attempt priced when it ran (`compute_cost_usd` recorded, at its price sheet under OpenCost's rule) keeps
    that cost; only older records are estimated here, from requested CPUs (or a whole node) over their wall time.
    Model cost is always what the gateway recorded.
    """

    cpu_hour_usd: float = Field(
        default_factory=lambda: _PINNED.vcpu_hour_usd + _GIB_PER_CORE * _PINNED.gib_hour_usd,
        ge=0,
        description="Price of one CPU core, with its share of memory, for one hour (shared nodes); default: the "
        "pinned price sheet's vCPU with 4 GiB (the single profile's memory per core)",
    )
    node_hour_usd: float = Field(
        default_factory=lambda: _PINNED.node_hour_usd(DEFAULT_PROFILES["workflow"]),
        ge=0,
        description="Price of one whole node for one hour (exclusive); default: the pinned sheet's workflow node",
    )

    def compute_cost(self, cpus: float, node_exclusive: bool, seconds: float) -> float:
        """Compute cost of one attempt: a whole node, or its CPUs, for its wall time (as the tables count it)."""
        hours = seconds / 3600.0
        return hours * self.node_hour_usd if node_exclusive else hours * cpus * self.cpu_hour_usd


class EpochReport(CmbModel):
    """How many attempts the analysis loaded, dropped (and why) and kept."""

    epoch: Epoch
    loaded: int
    kept: int
    dropped: dict[str, int] = Field(description="Attempts dropped, by reason")
    harness_versions: dict[str, str] = Field(description="Harness version kept, by sweep")
    stale_tasks: list[str] = Field(description="Tasks that had attempts on an older task or grader version")

    def summary(self) -> str:
        """One line for the top of a table or report."""
        parts = [f"{n} {reason}" for reason, n in self.dropped.items() if n]
        dropped = ", ".join(parts) if parts else "none"
        return f"{self.kept} of {self.loaded} attempts kept (epoch: {self.epoch.value}; dropped: {dropped})"


# String columns with few distinct values: categorical, so that filters, windows and group-bys work on integer codes.
CATEGORICAL: tuple[str, ...] = (
    "sweep", "agent", "model", "task", "kind", "condition", "failure_class", "compute_price_sheet", "harness_version",
    "task_hash", "grader_hash",
)  # fmt: skip
# The columns of the prepared frame (`Analysis.all` and `.runs`): what some table, the report or `compare` reads.
# The inputs of the derived columns (phase times, raw flags and scores, the recorded compute cost, the failure
# class, the write time and harness version) are not kept: `outcome`, `wall_s`, `pass_*`, `score_*`,
# `compute_usd` and `drop_reason` carry what they say.
ANALYSIS_COLUMNS: tuple[str, ...] = (
    "key", "run_id", "sweep", "agent", "model", "task", "kind", "condition", "trial", "started_at", "finished_at",
    "task_hash", "grader_hash", "input_tokens", "output_tokens", "cached_tokens", "model_cost_usd", "cpus",
    "node_exclusive", "held_s", "cpu_s", "peak_memory_bytes", "compute_price_sheet",
    "drop_reason", "outcome", "pass_raw", "pass_gated", "score_raw", "score_gated", "wall_s", "compute_usd",
    "compute_metered",
)  # fmt: skip


def _latest_row(rank: pl.Expr, group: pl.Expr | str) -> pl.Expr:
    """The row number (`_row`) of each `group`'s highest `rank`: the first such row; any row when none is ranked.

    What `value.sort_by(rank).last().over(group)` picks, as one linear pass and a row number per attempt, so the
    value itself (a version string) is gathered once instead of being moved around the window.
    """
    return pl.col("_row").get(rank.arg_max().fill_null(0)).over(group)


def _changed(column: str, latest: pl.Expr) -> pl.Expr:
    return pl.col(column).ne_missing(pl.col(column).gather(latest))


def prepare(
    runs: pl.LazyFrame, *, epoch: Epoch = Epoch.LATEST, cost: CostModel | None = None, dedupe: bool = False
) -> tuple[pl.DataFrame, EpochReport]:
    """Derive outcome, wall time and cost columns and mark dropped attempts in `drop_reason` (null = kept).

    `compute_usd` is the recorded `compute_cost_usd` where the attempt was metered (`compute_metered`), else the
    `cost` estimate (requested CPUs, or a whole node, over the wall time). The frame holds `ANALYSIS_COLUMNS`,
    the `CATEGORICAL` ones (and `outcome`) as polars Categorical. With `dedupe` the rows are first reduced to
    one per key (`dedupe_runs`: a store's rows hold every write of a key).

    Infrastructure failures are always dropped: they are the harness's, never the agent's. With the latest epoch
    (default) each sweep keeps the harness version of its most recent attempt and each task the task and grader
    version of its most recent attempt, so a sweep resumed after a fix is not mixed with the runs before it.
    """
    cost = cost or CostModel()
    raw = runs.select(RUN_COLUMNS).with_columns(pl.col(CATEGORICAL).cast(pl.Categorical)).collect()
    if dedupe:
        raw = dedupe_runs(raw)
    # A NaN cost is a writer's way of saying unknown: it is unpriced, like null, never a number.
    lf = raw.lazy().with_columns(pl.col("model_cost_usd").fill_nan(None), pl.col("compute_cost_usd").fill_nan(None))
    # Flags first, the drop reason once at the end: each version is ranked by its latest finish among the
    # attempts that still count (infrastructure rows never pick the epoch, stale-harness rows never a task's).
    infra = (pl.col("failure_class") == FailureClass.INFRASTRUCTURE.value).fill_null(False)
    lf = lf.with_columns(_infra=infra)
    if epoch is Epoch.LATEST:
        lf = lf.with_row_index("_row")
        rank = pl.when(~pl.col("_infra")).then(pl.col("finished_at"))
        latest_harness = _latest_row(rank, "sweep")
        lf = lf.with_columns(_stale_h=~pl.col("_infra") & _changed("harness_version", latest_harness))
        rank = pl.when(~pl.col("_infra") & ~pl.col("_stale_h")).then(pl.col("finished_at"))
        # both hashes from the same latest attempt of the task (sweep and task as one integer key)
        task = pl.col("sweep").to_physical().cast(pl.UInt64) * (1 << 32) + pl.col("task").to_physical()
        latest = _latest_row(rank, task)
        stale = pl.any_horizontal([_changed(c, latest) for c in HASHES])
        lf = lf.with_columns(_stale_t=~pl.col("_infra") & ~pl.col("_stale_h") & stale)
    else:
        lf = lf.with_columns(_stale_h=pl.lit(False), _stale_t=pl.lit(False))
    lf = lf.with_columns(
        drop_reason=pl.when(pl.col("_infra"))
        .then(pl.lit(DropReason.INFRASTRUCTURE.value))
        .when(pl.col("_stale_h"))
        .then(pl.lit(DropReason.STALE_HARNESS.value))
        .when(pl.col("_stale_t"))
        .then(pl.lit(DropReason.STALE_TASK.value))
    )

    audit_ok = pl.col("audit_passed").fill_null(True)
    # `passed` is the gated outcome; a raw pass is every check passing before the audit is applied.
    raw_pass = pl.col("passed").fill_null(False) | (pl.col("raw_score").fill_null(0.0) >= 1.0 - 1e-9)
    gated_pass = pl.col("passed").fill_null(False) & audit_ok
    phases = pl.sum_horizontal(
        pl.col("t_setup_s").fill_null(0.0),
        pl.col("t_agent_s").fill_null(0.0),
        pl.col("t_collect_s").fill_null(0.0),
        pl.col("t_grade_s").fill_null(0.0),
    )
    elapsed = (pl.col("finished_at") - pl.col("started_at")).dt.total_microseconds().cast(pl.Float64) / 1e6
    wall = pl.when(phases > 0).then(phases).otherwise(elapsed.fill_null(0.0))
    lf = lf.with_columns(
        pass_raw=raw_pass,
        pass_gated=gated_pass,
        wall_s=wall,
        score_raw=pl.col("raw_score").fill_null(0.0),
        score_gated=pl.when(audit_ok).then(pl.col("gated_score").fill_null(0.0)).otherwise(0.0),
    )
    exclusive = pl.col("node_exclusive").fill_null(False)
    hours = pl.col("wall_s") / 3600.0
    estimate = (
        pl.when(exclusive)
        .then(hours * cost.node_hour_usd)
        .otherwise(hours * pl.col("cpus").fill_null(1.0) * cost.cpu_hour_usd)
    )
    metered = pl.col("compute_cost_usd").is_not_null()
    category = pl.Categorical()
    lf = lf.with_columns(
        # the cost metered and priced when the attempt ran; the configured estimate only for older records
        compute_usd=pl.when(metered).then(pl.col("compute_cost_usd")).otherwise(estimate),
        compute_metered=metered,
        outcome=pl.when(pl.col("pass_gated"))
        .then(pl.lit(PASS, dtype=category))
        .when(pl.col("failure_class").is_not_null())
        .then(pl.col("failure_class"))
        .when(pl.col("pass_raw") & ~audit_ok)
        .then(pl.lit(AUDIT_VOIDED, dtype=category))
        .otherwise(pl.lit(UNCLASSIFIED, dtype=category)),
    )
    # harness_version is read for the epoch report, then dropped (dropping a column copies nothing)
    df = lf.select(*ANALYSIS_COLUMNS, "harness_version").collect()
    dropped = df["drop_reason"].drop_nulls().value_counts()
    counts = dict(zip(dropped["drop_reason"].to_list(), dropped["count"].to_list(), strict=True))
    kept = df.lazy().filter(pl.col("drop_reason").is_null())
    harness = kept.group_by("sweep").agg(pl.col("harness_version").drop_nulls().first()).sort("sweep").collect()
    stale_rows = df.lazy().filter(pl.col("drop_reason") == DropReason.STALE_TASK.value).select("task")
    stale_tasks = stale_rows.unique().sort("task").collect()["task"].to_list()
    report = EpochReport(
        epoch=epoch,
        loaded=df.height,
        kept=df.height - sum(counts.values()),
        dropped={r.value: int(counts.get(r.value, 0)) for r in DropReason},
        harness_versions={s: v or "?" for s, v in harness.iter_rows()},
        stale_tasks=stale_tasks,
    )
    return df.drop("harness_version"), report
