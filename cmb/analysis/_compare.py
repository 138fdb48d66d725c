"""Paired comparison of two agents or two sweeps on their common tasks, with Bonferroni over the family of cells."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import polars as pl

from cmb.analysis._analysis import Analysis
from cmb.analysis._prepare import CONDITION_ORDER
from cmb.analysis._stats import bonferroni, bootstrap_mean, sign_flip_test, wilcoxon_signed_rank
from cmb.analysis._table import Table, ci_cell, pct, pp


class Metric(StrEnum):
    """What is compared per task: the pass rate over its trials, or the mean fraction of checks passed."""

    PASS = "pass"
    SCORE = "score"


class PairedTestKind(StrEnum):
    """The test whose p-value is corrected and decides significance (both are always reported)."""

    PERMUTATION = "permutation"
    WILCOXON = "wilcoxon"


def _per_task(a: Analysis, metric: Metric, by: list[str], agent: str | None) -> pl.DataFrame:
    df = a.runs if agent is None else a.runs.filter(pl.col("agent") == agent)
    value = a.pass_col if metric is Metric.PASS else a.score_col
    return df.group_by([*by, "task"]).agg(
        pl.col(value).cast(pl.Float64).mean().alias("value"),
        pl.len().alias("trials"),
        pl.concat_str(["task_hash", "grader_hash"], separator="|", ignore_nulls=True).last().alias("version"),
    )


def _fmt_p(p: float | None) -> str:
    if p is None:
        return "–"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def compare(
    a: Analysis,
    b: Analysis,
    *,
    agent_a: str | None = None,
    agent_b: str | None = None,
    metric: Metric = Metric.PASS,
    test: PairedTestKind = PairedTestKind.PERMUTATION,
    by_kind: bool = False,
    any_version: bool = False,
    alpha: float = 0.05,
) -> Table:
    """Per cell (agent x condition, or condition when two agents are named), the paired difference B - A.

    Tasks pair when both sides ran them with the same task and grader version (unless `any_version`); each task
    contributes its mean over trials. The interval is a task-resampling bootstrap of the mean difference; the
    p-values are a sign-flip permutation test and a Wilcoxon signed-rank test (exact when small); the family for
    Bonferroni is every cell with at least one pair.
    """
    o = a.options
    by = ["condition"] if agent_a or agent_b else ["agent", "condition"]
    if by_kind:
        by.append("kind")
    left = _per_task(a, metric, by, agent_a)
    right = _per_task(b, metric, by, agent_b)
    joined = left.join(right, on=[*by, "task"], how="inner", suffix="_b")
    mismatched = joined.filter(pl.col("version") != pl.col("version_b"))
    if not any_version:
        joined = joined.filter(pl.col("version") == pl.col("version_b"))
    parts = joined.sort([*by, "task"]).partition_by(by, as_dict=True)
    cond_rank = {c: i for i, c in enumerate(CONDITION_ORDER)}

    def sort_key(key: tuple[object, ...]) -> tuple[object, ...]:
        return tuple(cond_rank.get(str(x), 0) if n == "condition" else str(x) for n, x in zip(by, key, strict=True))

    keys = sorted(parts, key=sort_key)
    rows: list[dict[str, Any]] = []
    for key in keys:
        t = parts[key]
        va, vb = t["value"].to_numpy(), t["value_b"].to_numpy()
        d = vb - va
        ci = bootstrap_mean(d, n_boot=o.n_boot, seed=o.seed, level=o.level)
        perm = sign_flip_test(d, seed=o.seed)
        wil = wilcoxon_signed_rank(d)
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "tasks": t.height,
                "mean_a": float(va.mean()),
                "mean_b": float(vb.mean()),
                "delta": float(d.mean()),
                "ci_low": ci.low,
                "ci_high": ci.high,
                "p_permutation": perm.p,
                "permutation_method": perm.method,
                "p_wilcoxon": wil.p,
                "wilcoxon_method": wil.method,
            }
        )
    primary = "p_permutation" if test is PairedTestKind.PERMUTATION else "p_wilcoxon"
    adjusted = bonferroni([r[primary] for r in rows])
    for r, p_adj in zip(rows, adjusted, strict=True):
        r["p_bonferroni"] = p_adj
        r["significant"] = p_adj is not None and p_adj < alpha
    family = len(rows)
    side_a = f"{','.join(a.sweeps)}" + (f" [{agent_a}]" if agent_a else "")
    side_b = f"{','.join(b.sweeps)}" + (f" [{agent_b}]" if agent_b else "")
    unit = "pass %" if metric is Metric.PASS else "score %"
    header = [*by, "tasks", f"A {unit}", f"B {unit}", "B−A pp", f"{round(100 * o.level)}% CI", "p perm", "p Wilcoxon",
              "p Bonferroni", "sig."]  # fmt: skip
    cells = [
        [
            *[str(r[k]) for k in by],
            str(r["tasks"]),
            pct(r["mean_a"]),
            pct(r["mean_b"]),
            pp(r["delta"]),
            ci_cell(r["ci_low"], r["ci_high"]),
            _fmt_p(r["p_permutation"]) + ("" if r["permutation_method"] == "exact" else "*"),
            _fmt_p(r["p_wilcoxon"]) + ("" if r["wilcoxon_method"] == "exact" else "*"),
            _fmt_p(r["p_bonferroni"]),
            "yes" if r["significant"] else "no",
        ]
        for r in rows
    ]
    cutoff = alpha / family if family else alpha
    notes = [
        f"A = {side_a}, B = {side_b}; {metric.value} per task averaged over its trials, {o.basis.value} outcomes",
        f"paired on common tasks{'' if any_version else ' with equal task and grader versions'}; "
        f"{mismatched.height} task pair(s) with different versions {'kept' if any_version else 'left out'}",
        f"Bonferroni over {family} cell(s) on the {test.value} p-value: significant when p < {alpha}/{family} = "
        f"{cutoff:.4g}; * = Monte Carlo or normal approximation, otherwise exact",
        f"CI: bootstrap of the mean paired difference over tasks, {o.n_boot} resamples, seed {o.seed}",
        f"A: {a.epoch.summary()}",
        f"B: {b.epoch.summary()}",
    ]
    meta = {
        "a": {"sweeps": a.sweeps, "agent": agent_a, "epoch": a.epoch.model_dump(mode="json")},
        "b": {"sweeps": b.sweeps, "agent": agent_b, "epoch": b.epoch.model_dump(mode="json")},
        "metric": metric.value,
        "basis": o.basis.value,
        "test": test.value,
        "family": family,
        "alpha": alpha,
        "bonferroni_cutoff": cutoff,
        "version_mismatched_pairs": mismatched.height,
        "bootstrap": {"n_boot": o.n_boot, "seed": o.seed, "level": o.level, "cluster": "task"},
    }
    return Table(name="compare", title="Paired comparison B − A", header=header, cells=cells, rows=rows, notes=notes,
                 meta=meta)  # fmt: skip
