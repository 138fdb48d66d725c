"""The tables of the paper's results section, for any sweep: one registered builder each."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import polars as pl
import yaml
from pydantic import ValidationError

from cmb.analysis._analysis import Analysis, Grouping, count, float_sums, register_table
from cmb.analysis._prepare import CONDITION_ORDER, FAILURE_ORDER, PASS
from cmb.analysis._stats import bootstrap_paired_ratio_diff, bootstrap_unpaired_ratio_diff, pass_k_means
from cmb.analysis._table import Table, ci_cell, pct, pp, rate_cell, ratio, usd
from cmb.models import SweepSpec

KIND_LABELS = {
    "input-preparation": "prepare inputs",
    "output-analysis": "analyze outputs",
    "run-and-analyze": "run and analyze",
    "workflow": "workflow",
}
SINGLE_FULL, SINGLE_REDUCED, WORKFLOW_FULL, WORKFLOW_REDUCED = CONDITION_ORDER


def _models(frame: pl.DataFrame, groups: list[str]) -> pl.DataFrame:
    """Each group's models, distinct and sorted, joined by commas ("" when none is named).

    From the distinct (group, model) rows: cheaper than collecting every attempt's model inside the group-by.
    """
    pairs = frame.lazy().select(*groups, "model").unique().drop_nulls("model").collect()
    return pairs.group_by(groups).agg(pl.col("model").cast(pl.String).sort().str.join(","))


def _priced() -> list[pl.Expr]:
    """The flags `_cost_counts` counts, as columns (a flag computed inside a group-by is computed group by group)."""
    priced = pl.col("model_cost_usd").is_not_null()
    return [priced.alias("_priced"), (~priced).alias("_unpriced")]


def _cost_counts() -> list[pl.Expr]:
    """Per group, the priced and unpriced attempts, over a frame with the `_priced` columns."""
    return [count("_priced").alias("priced"), count("_unpriced").alias("unpriced")]


def _cost_sums() -> dict[str, pl.Expr]:
    """Model and compute cost: `float_sums` of these (reproducible to the bit)."""
    return {"model_cost_usd": pl.col("model_cost_usd"), "compute_usd": pl.col("compute_usd")}


def _aggregate(
    frame: pl.DataFrame, by: list[str] | Grouping, counts: list[pl.Expr], sums: dict[str, pl.Expr]
) -> pl.DataFrame:
    """Integer `counts` (any engine: exact) and float `sums` (`float_sums`) per group, or of the whole frame."""
    keys = by.keys.columns if isinstance(by, Grouping) else by
    if not keys:
        return pl.concat([frame.select(counts), float_sums(frame, [], **sums)], how="horizontal")
    floats = float_sums(frame, by, **sums)
    return frame.lazy().group_by(keys).agg(counts).collect().join(floats, on=keys, how="left")


def _model_cost(row: dict[str, Any]) -> float | None:
    """Recorded model cost of a group: None when no attempt in it was priced (never $0)."""
    return None if row["priced"] == 0 else float(row["model_cost_usd"])


# --- Table 2: pass rate by kind and agent --------------------------------------------------------------------------


@register_table("pass", "Pass rate by task kind and agent")
def pass_table(a: Analysis) -> Table:
    """Table 2 shape: per agent and condition, the pass rate of each kind and of all tasks, with counts and cost."""
    p = a.pass_col
    groups = ["agent", "condition"]
    # flags as columns first: see _priced
    df = a.runs.with_columns(*_priced(), _voided=pl.col("pass_raw") & ~pl.col("pass_gated"))
    counts = [
        pl.len().cast(pl.Int64).alias("attempts"),
        count(p).alias("passes"),
        count("pass_raw").alias("raw_passes"),
        # every check passed and the execution audit voided it, whatever class the runner gave the failure
        count("_voided").alias("audit_voided"),
        *_cost_counts(),
    ]
    overall = (
        _aggregate(df, a.grouping(groups), counts, {"_score": pl.col(a.score_col), **_cost_sums()})
        .with_columns(mean_score=pl.col("_score") / pl.col("attempts"))
        .join(_models(df, groups), on=groups, how="left")
        .with_columns(pl.col("model").fill_null(""))
        .sort(pl.col("agent"), pl.col("condition").replace_strict(rank(CONDITION_ORDER), default=99))
    )
    clusters = a.per_task([*groups, "kind"]).partition_by([*groups, "kind"], as_dict=True)
    all_clusters = a.per_task(groups).partition_by(groups, as_dict=True)
    kinds = a.kinds()
    keys = [(r["agent"], r["condition"]) for r in overall.select(groups).iter_rows(named=True)]
    kind_keys = [(*key, kind) for key in keys for kind in kinds if (*key, kind) in clusters]
    tables = [all_clusters[key] for key in keys] + [clusters[key] for key in kind_keys]
    intervals = a.cis([(t["passes"].to_numpy(), t["attempts"].to_numpy()) for t in tables])
    cis = dict(zip([*keys, *kind_keys], intervals, strict=True))
    rows: list[dict[str, Any]] = []
    cells: list[list[str]] = []
    for r in overall.iter_rows(named=True):
        key = (r["agent"], r["condition"])
        ci = cis[key]
        by_kind: dict[str, Any] = {}
        kind_cells = []
        for kind in kinds:
            t = clusters.get((*key, kind))
            if t is None:
                kind_cells.append("–")
                continue
            n_pass, n_att = int(t["passes"].sum()), int(t["attempts"].sum())
            kci = cis[(*key, kind)]
            by_kind[kind] = {
                "tasks": t.height,
                "attempts": n_att,
                "passes": n_pass,
                "pass_rate": n_pass / n_att,
                "ci_low": kci.low,
                "ci_high": kci.high,
            }
            kind_cells.append(rate_cell(n_pass, n_att))
        model_cost = _model_cost(r)
        row = {
            "agent": r["agent"],
            "model": r["model"] or None,
            "condition": r["condition"],
            "tasks": all_clusters[key].height,
            "attempts": r["attempts"],
            "passes": r["passes"],
            "pass_rate": r["passes"] / r["attempts"],
            "ci_low": ci.low,
            "ci_high": ci.high,
            "raw_pass_rate": r["raw_passes"] / r["attempts"],
            "audit_voided": r["audit_voided"],
            "mean_score": r["mean_score"],
            "by_kind": by_kind,
            "model_cost_usd": model_cost,
            "unpriced_attempts": r["unpriced"],
            "compute_cost_usd": r["compute_usd"],
        }
        rows.append(row)
        cells.append(
            [
                r["agent"],
                r["model"] or "–",
                r["condition"],
                *kind_cells,
                rate_cell(r["passes"], r["attempts"]),
                ci_cell(ci.low, ci.high),
                pct(row["raw_pass_rate"]),
                str(r["audit_voided"]),
                usd(model_cost, r["unpriced"]),
                usd(r["compute_usd"]),
            ]
        )
    lvl = round(100 * a.options.level)
    header = [
        "agent",
        "model",
        "cond",
        *[f"{KIND_LABELS.get(k, k)} %" for k in kinds],
        "all tasks %",
        f"{lvl}% CI",
        "raw %",
        "audit void",
        "model USD",
        "compute USD",
    ]
    notes = [
        f"{a.options.basis.value} outcomes; {a.epoch.summary()}",
        f"CI: task-clustered percentile bootstrap, {a.options.n_boot} resamples, seed {a.options.seed}",
    ]
    brief = [h for h in header if h not in (f"{lvl}% CI", "model USD", "compute USD", "model")]
    return Table(
        name="pass", title="Pass rate by task kind and agent", header=header, cells=cells, rows=rows, notes=notes,
        meta=a.meta(), brief=brief,
    )  # fmt: skip


def rank(order: tuple[str, ...]) -> dict[str, int]:
    """Each value's position in a display order."""
    return {v: i for i, v in enumerate(order)}


# --- Table 3: repeatability ----------------------------------------------------------------------------------------


@register_table("repeat", "Repeatability over trials")
def repeat_table(a: Analysis, min_trials: int = 2) -> Table:
    """Table 3 shape: pass rate over repeats, tasks by passing trials k/n, unbiased pass@k and pass^k, consistency."""
    groups = ["agent", "condition"]
    per_task = a.per_task(groups).filter(pl.col("attempts") >= min_trials)
    rows: list[dict[str, Any]] = []
    parts = per_task.partition_by(groups, as_dict=True)
    order = sorted(parts, key=lambda k: (str(k[0]), rank(CONDITION_ORDER).get(str(k[1]), 99)))
    arrays = [(parts[key]["attempts"].to_numpy(), parts[key]["passes"].to_numpy()) for key in order]
    intervals = a.cis([(c, n) for n, c in arrays])
    n_cols = 0
    for key, (n, c), ci in zip(order, arrays, intervals, strict=True):
        tasks = len(n)
        # each (trials, passes) pair once, with the number of tasks that have it
        pairs, weight = np.unique(np.stack([n, c], axis=1), axis=0, return_counts=True)
        trials, tally = np.unique(n, return_counts=True)
        modal_n = int(trials[tally == tally.max()].max())  # most common, then largest
        n_cols = max(n_cols, modal_n)
        at_k, hat_k, k_tasks = pass_k_means(pairs, weight, modal_n)
        by_passing = {f"{ci_}/{ni}": w for (ni, ci_), w in zip(pairs.tolist(), weight.tolist(), strict=True)}
        consistent = int(np.count_nonzero((c == 0) | (c == n)))
        rows.append(
            {
                "agent": key[0],
                "condition": key[1],
                "tasks": tasks,
                "attempts": int(n.sum()),
                "passes": int(c.sum()),
                "pass_rate": float(c.sum() / n.sum()),
                "ci_low": ci.low,
                "ci_high": ci.high,
                "trials": modal_n,
                "by_passing": dict(sorted(by_passing.items(), key=lambda kv: _frac_key(kv[0]), reverse=True)),
                "pass_at_k": at_k,
                "pass_hat_k": hat_k,
                "k_tasks": k_tasks,
                "consistency": consistent / tasks,
                "mixed_tasks": tasks - consistent,
            }
        )
    show_k = sorted({k for k in (1, 2, 3, 5, n_cols) if 1 <= k <= n_cols})
    header = ["agent", "cond", "tasks", "pass %", "CI", *[f"{j}/{n_cols}" for j in range(n_cols, -1, -1)], "other n"]
    header += [f"pass@{k}" for k in show_k] + [f"pass^{k}" for k in show_k] + ["consistent %"]
    cells = []
    for r in rows:
        dist = [str(r["by_passing"].get(f"{j}/{n_cols}", 0)) for j in range(n_cols, -1, -1)]
        other = sum(v for label, v in r["by_passing"].items() if _frac_key(label)[0] != n_cols)
        cells.append(
            [
                r["agent"],
                r["condition"],
                str(r["tasks"]),
                rate_cell(r["passes"], r["attempts"]),
                ci_cell(r["ci_low"], r["ci_high"]),
                *dist,
                str(other),
                *[pct(r["pass_at_k"].get(str(k))) for k in show_k],
                *[pct(r["pass_hat_k"].get(str(k))) for k in show_k],
                pct(r["consistency"]),
            ]
        )
    notes = [
        f"tasks with at least {min_trials} kept trials; j/{n_cols}: tasks passing j of {n_cols} trials; other n: tasks"
        " with another number of kept trials",
        "pass@k = 1 - C(n-c,k)/C(n,k), pass^k = C(c,k)/C(n,k) per task (unbiased), averaged over the tasks with at"
        " least k kept trials",
        "consistent: tasks whose trials all pass or all fail",
        a.epoch.summary(),
    ]
    if not rows:
        notes.insert(0, f"no task has {min_trials} or more kept trials of one agent and condition")
    return Table(
        name="repeat", title="Repeatability over trials", header=header, cells=cells, rows=rows, notes=notes,
        meta=a.meta(),
    )  # fmt: skip


def _frac_key(label: str) -> tuple[int, int]:
    c, n = label.split("/")
    return int(n), int(c)


# --- Figure 4: the four conditions ---------------------------------------------------------------------------------


def _aligned(t: pl.DataFrame, tasks: list[str]) -> tuple[np.ndarray, np.ndarray]:
    if t["task"].to_list() == tasks:
        return t["passes"].to_numpy(), t["attempts"].to_numpy()
    m = pl.DataFrame({"task": pl.Series(tasks, dtype=t["task"].dtype)}).join(t, on="task", how="left")
    return m["passes"].fill_null(0).to_numpy(), m["attempts"].fill_null(0).to_numpy()


def _matched(parts: dict[tuple[Any, ...], pl.DataFrame], agent: str) -> dict[str, list[str]]:
    """Each condition's tasks: those run under both guidance levels where the agent ran both."""
    tasks_of = {c: set(parts[(agent, c)]["task"].to_list()) for c in CONDITION_ORDER if (agent, c) in parts}
    matched: dict[str, list[str]] = {}
    for full, reduced in ((SINGLE_FULL, SINGLE_REDUCED), (WORKFLOW_FULL, WORKFLOW_REDUCED)):
        if full in tasks_of and reduced in tasks_of:
            common = sorted(tasks_of[full] & tasks_of[reduced])
            matched[full] = matched[reduced] = common
        else:
            for c in (full, reduced):
                if c in tasks_of:
                    matched[c] = sorted(tasks_of[c])
    return matched


@register_table("conditions", "The four conditions and their differences")
def conditions_table(a: Analysis) -> Table:
    """Figure 4 shape: SF, SR, WF, WR per agent; reduced minus full on matched tasks, workflow minus single."""
    per = a.per_task(["agent", "condition"])
    parts = per.partition_by(["agent", "condition"], as_dict=True)
    o = a.options
    agents = a.agents()
    arrays_of: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = {}
    for agent in agents:
        matched = _matched(parts, agent)
        arrays_of[agent] = {c: _aligned(parts[(agent, c)], matched[c]) for c in CONDITION_ORDER if matched.get(c)}
    keys = [(agent, c) for agent in agents for c in arrays_of[agent]]
    intervals = dict(zip(keys, a.cis([arrays_of[agent][c] for agent, c in keys]), strict=True))
    rows: list[dict[str, Any]] = []
    cells: list[list[str]] = []
    for agent in agents:
        arrays = arrays_of[agent]
        cond_cells: dict[str, Any] = {}
        for c, (num, den) in arrays.items():
            ci = intervals[(agent, c)]
            cond_cells[c] = {
                "tasks": len(num),
                "passes": int(num.sum()),
                "attempts": int(den.sum()),
                "pass_rate": float(num.sum() / den.sum()),
                "ci_low": ci.low,
                "ci_high": ci.high,
            }
        deltas: dict[str, Any] = {}
        for minus, plus, paired in (
            (SINGLE_FULL, SINGLE_REDUCED, True),
            (WORKFLOW_FULL, WORKFLOW_REDUCED, True),
            (SINGLE_FULL, WORKFLOW_FULL, False),
            (SINGLE_REDUCED, WORKFLOW_REDUCED, False),
        ):
            if minus not in cond_cells or plus not in cond_cells:
                continue
            fn = bootstrap_paired_ratio_diff if paired else bootstrap_unpaired_ratio_diff
            ci = fn(*arrays[minus], *arrays[plus], n_boot=o.n_boot, seed=o.seed, level=o.level)
            deltas[f"{plus}-{minus}"] = {
                "delta": cond_cells[plus]["pass_rate"] - cond_cells[minus]["pass_rate"],
                "ci_low": ci.low,
                "ci_high": ci.high,
                "paired": paired,
            }
        rows.append({"agent": agent, "conditions": cond_cells, "deltas": deltas})

        def cell(c: str, cc: dict[str, Any] = cond_cells) -> str:
            return rate_cell(cc[c]["passes"], cc[c]["attempts"]) if c in cc else "–"

        def delta(name: str, dd: dict[str, Any] = deltas) -> str:
            if name not in dd:
                return "–"
            d = dd[name]
            return f"{pp(d['delta'])} {ci_cell(d['ci_low'], d['ci_high'])}"

        cells.append(
            [agent, *[cell(c) for c in CONDITION_ORDER], delta("SR-SF"), delta("WR-WF"), delta("WF-SF"), delta("WR-SR")]
        )
    header = ["agent", "SF %", "SR %", "WF %", "WR %", "SR−SF pp", "WR−WF pp", "WF−SF pp", "WR−SR pp"]
    notes = [
        "SF/SR on the tasks each agent ran under both guidance levels, WF/WR on the workflows run under both;",
        "reduced−full differences are paired on those tasks; workflow−single compares different task sets",
        f"CI: task-clustered bootstrap, {o.n_boot} resamples, seed {o.seed}; {a.epoch.summary()}",
    ]
    return Table(
        name="conditions", title="The four conditions and their differences", header=header, cells=cells, rows=rows,
        notes=notes, meta=a.meta(),
    )  # fmt: skip


# --- Figure 5: failures by class -----------------------------------------------------------------------------------


@register_table("failures", "Failed attempts by class")
def failures_table(a: Analysis) -> Table:
    """Figure 5 shape: failed attempts per agent and condition by class, with each share of all attempts."""
    counts = a.runs.lazy().group_by(["agent", "condition", "outcome"]).len().collect()  # counts: streaming engine
    classes = [c for c in FAILURE_ORDER if c in set(counts["outcome"].to_list())] or list(FAILURE_ORDER[:4])
    rows: list[dict[str, Any]] = []
    cells: list[list[str]] = []
    lookup = {(r[0], r[1], r[2]): int(r[3]) for r in counts.iter_rows()}
    totals: Counter[tuple[str, str]] = Counter()
    for (agent, cond, _), n in lookup.items():
        totals[(agent, cond)] += n
    ordered_totals = sorted(
        ((agent, cond, n) for (agent, cond), n in totals.items()),
        key=lambda r: (r[0], rank(CONDITION_ORDER).get(r[1], 99)),
    )
    grand: Counter[str] = Counter()
    grand_runs = 0
    for agent, cond, runs in ordered_totals:
        by_class = {c: lookup.get((agent, cond, c), 0) for c in classes}
        failed = runs - lookup.get((agent, cond, PASS), 0)
        grand.update(by_class)
        grand_runs += runs
        rows.append({"agent": agent, "condition": cond, "runs": runs, "failed": failed, "by_class": by_class})
        cells.append([agent, cond, str(runs), _share(failed, runs), *[_share(by_class[c], runs) for c in classes]])
    if len(rows) > 1:
        failed_all = sum(r["failed"] for r in rows)
        shares = [_share(grand[c], grand_runs) for c in classes]
        cells.append(["all", "", str(grand_runs), _share(failed_all, grand_runs), *shares])
    header = ["agent", "cond", "runs", "failed", *classes]
    notes = [
        "each cell: failed attempts and their share of all attempts in the row; infrastructure failures excluded",
        "audit-voided: every check passed but the execution audit failed; unclassified: failed without a class",
        a.epoch.summary(),
    ]
    return Table(
        name="failures", title="Failed attempts by class", header=header, cells=cells, rows=rows, notes=notes,
        meta=a.meta(),
    )  # fmt: skip


def _share(n: int, total: int) -> str:
    return f"{n} ({100 * n / total:.0f}%)" if total else str(n)


# --- Table D: errors shared across agents --------------------------------------------------------------------------


@register_table("shared-errors", "Errors shared across agents")
def shared_errors_table(a: Analysis, condition: str | None = None) -> Table:
    """Table D shape: (task, check) pairs that two or more agents fail, with the agents and how often."""
    conds = a.conditions()
    cond = condition or (SINGLE_FULL if SINGLE_FULL in conds else (conds[0] if conds else SINGLE_FULL))
    df = a.runs.select("key", "run_id", "agent", "task", "condition", a.pass_col).filter(pl.col("condition") == cond)
    failed = df.filter(~pl.col(a.pass_col)).select("key", "agent", "task", pl.col("run_id").alias("_run"))
    agents_per_task = df.group_by("task").agg(pl.col("agent").n_unique().alias("agents_on_task"))
    multi = failed.group_by("task").agg(pl.col("agent").n_unique().alias("n")).filter(pl.col("n") >= 2)
    meta = a.meta() | {"condition": cond, "tasks_failed_by_2_or_more_agents": multi.height}
    notes = [
        f"condition {cond}; {multi.height} task(s) failed by two or more agents",
        "runs: failing runs of the named agents on the task that fail this check, of all their failing runs",
        a.epoch.summary(),
    ]
    header = ["task", "check", "category", "agents", "runs", "example message"]
    if a.checks is None:
        notes.insert(0, "no check results stored for this sweep")
        return Table(name="shared-errors", title="Errors shared across agents", header=header, cells=[], rows=[],
                     notes=notes, meta=meta)  # fmt: skip
    failing = ~pl.col("passed").fill_null(False)
    if "condition" in a.checks.collect_schema():  # read only this condition's checks (a row without one is kept)
        failing &= pl.col("condition").is_null() | (pl.col("condition") == cond)
    fails = (
        a.checks.filter(failing)
        .select("key", "run_id", "check_id", "check_type", "category", "message")
        .join(failed.lazy(), on="key", how="inner")
        # only the checks of the write that survived deduplication (rows without a write id match on key)
        .filter(pl.col("run_id").is_null() | pl.col("_run").is_null() | (pl.col("run_id") == pl.col("_run")))
        .unique(subset=["key", "check_id"], keep="first")
        .collect(engine="in-memory")  # for this join the streaming engine is slower (measured on two cores)
    )
    failing_runs = failed.group_by(["task", "agent"]).len(name="failing")
    shared = (
        fails.group_by(["task", "check_id"])
        .agg(
            # the most common (then first by name), so the answer does not depend on the order of the rows
            pl.col("category").drop_nulls().mode().sort().first(),
            pl.col("check_type").drop_nulls().mode().sort().first(),
            pl.col("agent").unique().sort().alias("agents"),
            pl.len().alias("runs"),  # the failing runs: each key once per check after the unique above
            pl.col("message").drop_nulls().mode().sort().first().alias("message"),
        )
        .filter(pl.col("agents").list.len() >= 2)
    )
    denom = (
        shared.select("task", "check_id", "agents")
        .explode("agents")
        .rename({"agents": "agent"})
        .join(failing_runs, on=["task", "agent"], how="left")
        .group_by(["task", "check_id"])
        .agg(pl.col("failing").sum().alias("failing_runs"))
    )
    shared = (
        shared.join(denom, on=["task", "check_id"], how="left")
        .join(agents_per_task, on="task", how="left")
        .with_columns(pl.col("agents").list.len().alias("n_agents"))
        .sort(["n_agents", "task", "check_id"], descending=[True, False, False])
    )
    rows: list[dict[str, Any]] = []
    cells: list[list[str]] = []
    for r in shared.iter_rows(named=True):
        everyone = r["n_agents"] == r["agents_on_task"] and r["n_agents"] > 2
        names = f"all {r['n_agents']}" if everyone else ", ".join(r["agents"])
        rows.append(
            {
                "task": r["task"],
                "check_id": r["check_id"],
                "category": r["category"],
                "check_type": r["check_type"],
                "agents": r["agents"],
                "agents_on_task": r["agents_on_task"],
                "runs": r["runs"],
                "failing_runs": r["failing_runs"],
                "message": r["message"],
            }
        )
        message = (r["message"] or "")[:70]
        runs = f"{r['runs']}/{r['failing_runs']}"
        cells.append([r["task"], r["check_id"], r["category"] or "?", names, runs, message])
    return Table(name="shared-errors", title="Errors shared across agents", header=header, cells=cells, rows=rows,
                 notes=notes, meta=meta)  # fmt: skip


# --- cost ----------------------------------------------------------------------------------------------------------

GIB = 2**30
ESTIMATED = "~"  # marks a figure that includes compute estimated at the configured prices, not metered
OPENCOST_RULE = (
    "each resource at max(request, usage) × its hourly price for the held hours; "
    "node-exclusive attempts at the whole node's hours"
)


def _compute_columns() -> list[pl.Expr]:
    """The per-attempt terms of the compute figures, as columns: `_compute_counts` and `_compute_sums` use them.

    Computed once over the frame, not inside each group (polars evaluates such an expression in a group-by group by
    group).
    """
    exclusive = pl.col("node_exclusive").fill_null(False)
    cpus = pl.col("cpus").fill_null(1.0)
    return [
        exclusive.alias("_exclusive"),
        (pl.col("wall_s") * cpus).alias("_wall_cpu_s"),
        pl.col("held_s").fill_null(pl.col("wall_s")).alias("_held_or_wall_s"),
        (pl.col("held_s") * cpus).alias("_held_cpu_s"),
        (~exclusive & pl.col("held_s").is_not_null()).alias("_held_shared"),
        pl.col("cpu_s").is_not_null().alias("_measured"),
        *_priced(),
    ]


def _compute_counts(p: str) -> list[pl.Expr]:
    """Per group, the cost table's integer figures, over a frame with the `_compute_columns`."""
    return [
        pl.len().cast(pl.Int64).alias("attempts"),
        count(p).alias("passes"),
        pl.col("input_tokens").sum().alias("input_tokens"),
        pl.col("output_tokens").sum().alias("output_tokens"),
        pl.col("cached_tokens").sum().alias("cached_tokens"),
        count("_measured").alias("_cpu_measured"),
        count("_held_shared").alias("_held_shared"),
        pl.col("peak_memory_bytes").max().alias("_peak_bytes"),
        count("compute_metered").alias("_metered"),
        *_cost_counts(),
    ]


def _compute_sums() -> dict[str, pl.Expr]:
    """Per group, the cost table's float figures (`float_sums`, over a frame with the `_compute_columns`)."""
    exclusive = pl.col("_exclusive")
    return {
        # requested CPUs over the wall time (the estimate's basis), and the nodes' hours (held, else wall)
        "_requested_cpu_s": pl.when(~exclusive).then(pl.col("_wall_cpu_s")),
        "_node_s": pl.when(exclusive).then(pl.col("_held_or_wall_s")),
        # measured: CPU time used, requested CPUs over the held time
        "_used_cpu_s": pl.col("cpu_s"),
        "_held_cpu_s": pl.when(pl.col("_held_shared")).then(pl.col("_held_cpu_s")),
        "_estimated_usd": pl.when(~pl.col("compute_metered")).then(pl.col("compute_usd")),
        **_cost_sums(),
    }


def _hours(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def idle_share(a: Analysis, sweep: str) -> dict[str, Any]:
    """Share of the sweep's slots held by no attempt: 1 − Σ held / (slots × span), over every attempt of `sweep`.

    Slots are the spec's `max_concurrency` (`<home>/sweeps/<sweep>/spec.yaml`), the span runs from the first start
    to the last finish, so gaps between the driver sessions of a resumed sweep count as idle. Attempts recorded
    before metering count their wall time as held (and the share says how many did). `idle_share` is None, with a
    `reason`, when the spec or the attempts' times are missing.
    """
    info: dict[str, Any] = {"idle_share": None, "reason": None}
    path = None if a.home is None else a.home / "sweeps" / sweep / "spec.yaml"
    if path is None or not path.is_file():
        return info | {"reason": "no sweep spec"}
    try:
        spec = SweepSpec.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, ValidationError) as exc:
        return info | {"reason": f"unreadable sweep spec {path}: {type(exc).__name__}"}
    columns = ("sweep", "started_at", "finished_at", "held_s", "wall_s")
    rows = a.all.select(columns).filter(pl.col("sweep") == sweep)
    span = rows.select(
        (pl.col("finished_at").max() - pl.col("started_at").min()).dt.total_microseconds().cast(pl.Float64) / 1e6
    ).item()
    held = float_sums(rows, [], held=pl.col("held_s").fill_null(pl.col("wall_s")))["held"].item()
    info |= {
        "slots": spec.max_concurrency,
        "span_s": span,
        "held_s": float(held),
        "attempts": rows.height,
        "held_estimated_attempts": int(rows["held_s"].null_count()),
    }
    if span is None or span <= 0:
        return info | {"reason": "no attempt time span"}
    return info | {"idle_share": 1.0 - float(held) / (spec.max_concurrency * span)}


def _idle_note(sweep: str, info: dict[str, Any]) -> str:
    if info["idle_share"] is None:
        return f"idle share ({sweep}): unknown ({info['reason']})"
    slot_h, span_h = info["slots"] * info["span_s"] / 3600, info["span_s"] / 3600
    estimated = info["held_estimated_attempts"]
    mark = ESTIMATED if estimated else ""
    text = (
        f"idle share ({sweep}): {mark}{pct(info['idle_share'])}% of {info['slots']} slots × {span_h:.2f} h span "
        f"({info['held_s'] / 3600:.2f} of {slot_h:.2f} slot-hours held); gaps between driver sessions of a resumed "
        "sweep count as idle"
    )
    if estimated:
        text += f"; {ESTIMATED} {estimated} attempt(s) recorded before metering count their wall time as held"
    return text


@register_table("cost", "Cost per agent, per pass and per sweep")
def cost_table(a: Analysis) -> Table:
    """Model cost as recorded by the gateway (unpriced said, never $0) plus compute cost as metered at attempt time.

    Records from before metering carry no compute cost: theirs is estimated at the configured prices and marked
    so (`~`, the metered/estimated counts), never shown as measured. The notes give the idle share of each sweep.
    """
    counts, sums = _compute_counts(a.pass_col), _compute_sums()
    kept = a.runs.with_columns(_compute_columns())
    by = _aggregate(kept, a.grouping(["agent", "condition"]), counts, sums)
    by = by.sort(pl.col("agent"), pl.col("condition").replace_strict(rank(CONDITION_ORDER), default=99))
    by = by.with_columns(pl.col("agent", "condition").cast(pl.String))  # the totals below name no agent
    total = _aggregate(kept, [], counts, sums)
    frames = [by, total.with_columns(agent=pl.lit("sweep total (kept)"), condition=pl.lit("")).select(by.columns)]
    if a.all["drop_reason"].is_not_null().any():
        everything = _aggregate(a.all.with_columns(_compute_columns()), [], counts, sums)
        everything = everything.with_columns(agent=pl.lit("sweep total (all attempts)"), condition=pl.lit(""))
        frames.append(everything.select(by.columns))
    rows: list[dict[str, Any]] = []
    cells: list[list[str]] = []
    for r in pl.concat(frames).iter_rows(named=True):
        model = _model_cost(r)
        known = r["compute_usd"] + (model or 0.0)
        estimated = r["attempts"] - r["_metered"]
        measured = r["_cpu_measured"]
        row = {
            "agent": r["agent"],
            "condition": r["condition"] or None,
            "attempts": r["attempts"],
            "passes": r["passes"],
            "input_tokens": r["input_tokens"],
            "output_tokens": r["output_tokens"],
            "cached_tokens": r["cached_tokens"],
            "cpu_hours": r["_requested_cpu_s"] / 3600,
            "node_hours": r["_node_s"] / 3600,
            "cpu_hours_used": r["_used_cpu_s"] / 3600 if measured else None,
            "cpu_measured_attempts": measured,
            "cpu_hours_held": r["_held_cpu_s"] / 3600 if r["_held_shared"] else None,
            "peak_memory_gib": None if r["_peak_bytes"] is None else r["_peak_bytes"] / GIB,
            "model_cost_usd": model,
            "unpriced_attempts": r["unpriced"],
            "compute_cost_usd": r["compute_usd"],
            "compute_cost_estimated_usd": r["_estimated_usd"],
            "metered_attempts": r["_metered"],
            "estimated_attempts": estimated,
            "total_cost_usd": known,
            "total_is_lower_bound": r["unpriced"] > 0,
            "cost_per_attempt_usd": ratio(known, r["attempts"]),
            "cost_per_pass_usd": ratio(known, r["passes"]),
        }
        rows.append(row)
        bound = "≥ " if row["total_is_lower_bound"] else ""
        mark = ESTIMATED if estimated else ""
        used = _hours(row["cpu_hours_used"])
        if 0 < measured < r["attempts"]:
            used += f" ({measured} of {r['attempts']})"
        per_attempt, per_pass = row["cost_per_attempt_usd"], row["cost_per_pass_usd"]
        cells.append(
            [
                r["agent"],
                r["condition"],
                str(r["attempts"]),
                str(r["passes"]),
                f"{(r['input_tokens'] or 0) / 1e6:.2f}/{(r['output_tokens'] or 0) / 1e6:.2f}",
                usd(model, r["unpriced"]),
                mark + usd(r["compute_usd"]),
                f"{r['_metered']}/{estimated}",
                f"{used}/{_hours(row['cpu_hours_held'])}",
                f"{row['node_hours']:.2f}",
                "–" if row["peak_memory_gib"] is None else f"{row['peak_memory_gib']:.1f}",
                bound + mark + usd(known),
                "–" if per_attempt is None else bound + mark + usd(per_attempt),
                "–" if per_pass is None else bound + mark + usd(per_pass),
            ]
        )
    header = ["agent", "cond", "attempts", "passes", "Mtok in/out", "model USD", "compute USD", "metered/est",
              "cpu-h used/held", "node-h", "peak GiB", "total USD", "per attempt USD", "per pass USD"]  # fmt: skip
    sheets = sorted(a.all["compute_price_sheet"].drop_nulls().unique().to_list())
    metered_any = bool(a.all["compute_metered"].any())
    estimated_all = int((~a.all["compute_metered"]).sum())
    c = a.options.cost
    notes = [
        "model cost as recorded by the gateway at its price table; unpriced models are reported, never counted as $0",
        "compute price sheet(s): "
        + (", ".join(sheets) if sheets else ("unnamed" if metered_any else "none recorded (no metered attempt)"))
        + f"; metered attempts were priced when they ran by OpenCost's rule: {OPENCOST_RULE}",
    ]
    if estimated_all:
        notes.append(
            f"{ESTIMATED} estimated, not measured: {estimated_all} attempt(s) recorded before metering, at "
            f"{c.cpu_hour_usd:.4g} USD per requested CPU-hour (shared), {c.node_hour_usd:.4g} USD per node-hour "
            "(node-exclusive), over setup+agent+collect+grade wall time"
        )
    notes += [
        "metered/est: attempts whose compute cost was metered / estimated; cpu-h used: CPU time measured in the "
        "sandbox; held: requested CPUs × held time (shared attempts); node-h: node-exclusive attempts' held time "
        "(wall time before metering); peak GiB: largest peak memory of one attempt",
    ]
    idle = {sweep: idle_share(a, sweep) for sweep in a.sweeps}
    notes += [_idle_note(sweep, info) for sweep, info in idle.items()]
    notes.append(a.epoch.summary())
    meta = a.meta() | {"compute_price_sheets": sheets, "idle": idle}
    return Table(name="cost", title="Cost per agent, per pass and per sweep", header=header, cells=cells, rows=rows,
                 notes=notes, meta=meta)  # fmt: skip
