"""Analysis of a 1,000,000-attempt store: cmb's polars tables against a plain pandas implementation of the same.

Builds a synthetic sweep (10 agents x ~950 task-conditions x 106 trials, about 3.7 M check rows) as one compacted
Parquet file per table, then, side by side in one process:

  polars  Analysis.from_store + every registered table (cmb.analysis)
  pandas  the same load, dedupe, epoch filter, derived columns and the same tables, written with pandas

Both sides call the same statistics (`bootstrap_ratios` for every group's interval at once, the paired and unpaired
differences, `pass_k_means`), so the comparison is of the table engines; the script checks that the two agree on
every count and interval and prints the wall time of each step and the speed-up pandas / polars. In the JSON
figures the value is cmb's (polars) time and the baseline pandas', so their `ratio` is polars / pandas.

    python bench/bench_analysis.py [--attempts 1000000] [--n-boot 1000] [--keep DIR] [--json]

With --json the figures go to stdout as JSON (each with the pandas baseline measured beside it), the table to
stderr. The peak memory figure is the process's high-water mark after the polars tables: with a store kept from an
earlier run (--keep) it is the analysis alone, else it includes building the store.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import Figures  # noqa: E402

from cmb.analysis import (  # noqa: E402
    TABLES,
    Analysis,
    AnalysisOptions,
    SyntheticAgent,
    _stats,
    bootstrap_paired_ratio_diff,
    bootstrap_ratios,
    bootstrap_unpaired_ratio_diff,
    pass_k_means,
    synthetic_sweep,
    write_store,
)

SWEEP = "bench"
INFRA = "infrastructure"


def build_store(home: Path, attempts: int) -> tuple[int, int]:
    agents = tuple(
        SyntheticAgent(name=f"agent{i}@model{i % 4}", skill=-0.5 + 0.35 * i, usd_per_mtok_in=None if i == 9 else 1.0)
        for i in range(10)
    )
    trials = max(1, round(attempts / (10 * 948)))  # 560 single tasks (~55% with SR) + 40 workflows x 2
    runs, checks = synthetic_sweep(sweep=SWEEP, agents=agents, n_single=560, n_workflows=40, trials=trials, seed=1)
    write_store(home, runs, checks)
    return runs.num_rows, 0 if checks is None else checks.num_rows


# --- the pandas implementation ------------------------------------------------------------------------------------

RUN_COLUMNS = [
    "key", "sweep", "agent", "model", "task", "kind", "condition", "trial", "started_at", "finished_at",
    "t_setup_s", "t_agent_s", "t_collect_s", "t_grade_s", "input_tokens", "output_tokens", "cached_tokens",
    "model_cost_usd", "cpus", "node_exclusive", "audit_passed", "raw_score", "gated_score", "passed",
    "failure_class", "task_hash", "grader_hash", "harness_version", "written_at", "run_id", "compute_cost_usd",
]  # fmt: skip
CLASSES = ["scientific", "operational/software", "operational/format", "time-limit", "audit-voided", "unclassified"]


def pandas_load(home: Path, cpu_hour: float, node_hour: float) -> tuple[pd.DataFrame, dict[str, int]]:
    files = sorted((home / "results" / "runs" / f"sweep={SWEEP}").glob("*.parquet"))
    df = pd.concat([pd.read_parquet(f, columns=RUN_COLUMNS) for f in files], ignore_index=True)
    df["_agent_record"] = df["failure_class"].fillna("") != INFRA
    df = df.sort_values(["_agent_record", "finished_at", "written_at"], kind="stable").drop_duplicates(
        "key", keep="last"
    )
    drop = pd.Series(np.where(df["failure_class"] == INFRA, INFRA, None), index=df.index, dtype=object)
    live = drop.isna()
    latest_h = df[live].sort_values("finished_at").groupby("sweep")["harness_version"].last()
    stale_h = live & (df["harness_version"] != df["sweep"].map(latest_h))
    drop[stale_h] = "stale-harness"
    live = drop.isna()
    version = df["task_hash"].fillna("") + "|" + df["grader_hash"].fillna("")
    df["_version"] = version
    latest_v = df[live].sort_values("finished_at").groupby(["sweep", "task"])["_version"].last()
    current = pd.MultiIndex.from_frame(df[["sweep", "task"]]).map(latest_v.to_dict())
    stale_t = live & (df["_version"].to_numpy() != np.asarray(current, dtype=object))
    drop[stale_t] = "stale-task"
    df["drop_reason"] = drop
    audit_ok = df["audit_passed"].fillna(True).astype(bool)
    passed = df["passed"].fillna(False).astype(bool)
    df["pass_raw"] = passed | (df["raw_score"].fillna(0.0) >= 1 - 1e-9)
    df["pass_gated"] = passed & audit_ok
    phases = df[["t_setup_s", "t_agent_s", "t_collect_s", "t_grade_s"]].fillna(0.0).sum(axis=1)
    elapsed = (df["finished_at"] - df["started_at"]).dt.total_seconds().fillna(0.0)
    df["wall_s"] = np.where(phases > 0, phases, elapsed)
    hours = df["wall_s"] / 3600
    exclusive = df["node_exclusive"].fillna(False).astype(bool)
    estimate = np.where(exclusive, hours * node_hour, hours * df["cpus"].fillna(1.0) * cpu_hour)
    recorded = df["compute_cost_usd"].astype(float)  # metered at attempt time; older records are estimated
    df["compute_usd"] = np.where(recorded.notna(), recorded, estimate)
    outcome = df["failure_class"].copy()
    outcome[df["pass_gated"]] = "pass"
    rest = outcome.isna()
    outcome[rest & df["pass_raw"] & ~audit_ok] = "audit-voided"
    outcome[outcome.isna()] = "unclassified"
    df["outcome"] = outcome
    counts = df["drop_reason"].value_counts().to_dict()
    return df[df["drop_reason"].isna()], {k: int(v) for k, v in counts.items()}


def pandas_tables(home: Path, kept: pd.DataFrame, n_boot: int, seed: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    p = "pass_gated"
    kept = kept.assign(_p=kept[p].astype(np.int64))
    per_task = kept.groupby(["agent", "condition", "kind", "task"], sort=True)["_p"].agg(["sum", "size"])
    # pass: per agent x condition, per kind, with task-clustered intervals
    totals = kept.groupby(["agent", "condition"]).agg(
        passes=("_p", "sum"), attempts=("_p", "size"), model_cost=("model_cost_usd", "sum"),
        unpriced=("model_cost_usd", lambda s: int(s.isna().sum())), compute=("compute_usd", "sum"),
    )  # fmt: skip
    all_tasks = kept.groupby(["agent", "condition", "task"], sort=True)["_p"].agg(["sum", "size"])
    groups = {key: (t["sum"].to_numpy(), t["size"].to_numpy()) for key, t in all_tasks.groupby(level=[0, 1])}
    groups |= {key: (t["sum"].to_numpy(), t["size"].to_numpy()) for key, t in per_task.groupby(level=[0, 1, 2])}
    cis = dict(zip(groups, bootstrap_ratios(list(groups.values()), n_boot=n_boot, seed=seed), strict=True))
    out["pass"] = {k: (int(r.passes), int(r.attempts)) for k, r in totals.iterrows()}
    out["pass_ci"] = {k: (v.low, v.high) for k, v in cis.items() if len(k) == 2}
    # repeat: tasks by passing trials, pass@k, pass^k, consistency
    rep = {}
    repeated = []
    for (agent, cond), t in all_tasks.groupby(level=[0, 1]):
        t = t[t["size"] >= 2]
        if t.empty:
            continue
        n, c = t["size"].to_numpy(), t["sum"].to_numpy()
        modal = int(pd.Series(n).mode().iloc[-1])
        pairs = t.groupby(["size", "sum"]).size()  # tasks per (trials, passes)
        dist = {f"{ci}/{ni}": int(w) for (ni, ci), w in pairs.items()}
        at_k, _, _ = pass_k_means(pairs.index.to_frame().to_numpy(), pairs.to_numpy(), modal)
        rep[(agent, cond)] = (dist, at_k[str(modal)], float(np.mean((c == 0) | (c == n))))
        repeated.append((c, n))
    bootstrap_ratios(repeated, n_boot=n_boot, seed=seed)
    out["repeat"] = rep
    # conditions: matched task sets and differences
    cond_rows = {}
    cond_groups = []
    for agent, t in all_tasks.groupby(level=0):
        by_cond = {c: g.droplevel([0, 1]) for c, g in t.groupby(level=1)}
        cells = {}
        for full, red in (("SF", "SR"), ("WF", "WR")):
            if full in by_cond and red in by_cond:
                common = by_cond[full].index.intersection(by_cond[red].index).sort_values()
                for c in (full, red):
                    cells[c] = by_cond[c].loc[common]
            else:
                for c in (full, red):
                    if c in by_cond:
                        cells[c] = by_cond[c]
        cond_groups += [(g["sum"].to_numpy(), g["size"].to_numpy()) for g in cells.values()]
        for lo, hi, paired in (("SF", "SR", True), ("WF", "WR", True), ("SF", "WF", False), ("SR", "WR", False)):
            if lo in cells and hi in cells:
                fn = bootstrap_paired_ratio_diff if paired else bootstrap_unpaired_ratio_diff
                a, b = cells[lo], cells[hi]
                fn(a["sum"].to_numpy(), a["size"].to_numpy(), b["sum"].to_numpy(), b["size"].to_numpy(),
                   n_boot=n_boot, seed=seed)  # fmt: skip
        cond_rows[agent] = {c: (int(g["sum"].sum()), int(g["size"].sum())) for c, g in cells.items()}
    bootstrap_ratios(cond_groups, n_boot=n_boot, seed=seed)
    out["conditions"] = cond_rows
    # failures by class
    fails = kept[kept["outcome"] != "pass"].groupby(["agent", "condition", "outcome"]).size()
    out["failures"] = {k: int(v) for k, v in fails.items()}
    # shared errors on SF: (task, check) failed by two or more agents
    sf_failed = kept[(kept["condition"] == "SF") & ~kept[p]][["key", "agent", "task", "run_id"]]
    files = sorted((home / "results" / "checks" / f"sweep={SWEEP}").glob("*.parquet"))
    checks = pd.concat(
        [pd.read_parquet(f, columns=["key", "run_id", "check_id", "category", "passed", "message"],
                         filters=[("passed", "==", False)]) for f in files], ignore_index=True,
    )  # fmt: skip
    joined = checks.merge(sf_failed, on="key", suffixes=("", "_run"))
    ok = joined["run_id"].isna() | joined["run_id_run"].isna() | (joined["run_id"] == joined["run_id_run"])
    joined = joined[ok].drop_duplicates(["key", "check_id"])
    shared = joined.groupby(["task", "check_id"]).agg(agents=("agent", lambda s: tuple(sorted(set(s)))),
                                                      runs=("key", "nunique"))  # fmt: skip
    shared = shared[shared["agents"].map(len) >= 2]
    out["shared"] = {k: (r.agents, int(r.runs)) for k, r in shared.iterrows()}
    # cost
    cost = kept.groupby(["agent", "condition"]).agg(
        attempts=("_p", "size"), passes=("_p", "sum"), tokens=("input_tokens", "sum"),
        model=("model_cost_usd", "sum"), compute=("compute_usd", "sum"),
    )  # fmt: skip
    out["cost"] = {k: round(float(r.compute), 6) for k, r in cost.iterrows()}
    # per-attempt grid: agent x condition x trial rows, tasks as columns
    grid = kept.pivot_table(index=["agent", "condition", "trial"], columns="task", values="outcome",
                            aggfunc="first")  # fmt: skip
    out["grid"] = grid.shape
    return out


# --- comparison ---------------------------------------------------------------------------------------------------


def timed(label: str, fn: Callable[[], Any], times: dict[str, float]) -> Any:
    gc.collect()
    start = time.perf_counter()
    result = fn()
    times[label] = time.perf_counter() - start
    return result


def check_agreement(pl_tables: dict[str, Any], pd_out: dict[str, Any]) -> None:
    pass_rows = {(r["agent"], r["condition"]): (r["passes"], r["attempts"]) for r in pl_tables["pass"].rows}
    assert pass_rows == pd_out["pass"], "pass counts differ"
    for r in pl_tables["pass"].rows:
        low, high = pd_out["pass_ci"][(r["agent"], r["condition"])]
        assert (r["ci_low"], r["ci_high"]) == (low, high), "intervals differ"
    for r in pl_tables["repeat"].rows:
        dist, at_n, consistency = pd_out["repeat"][(r["agent"], r["condition"])]
        assert r["by_passing"] == dist and abs(r["consistency"] - consistency) < 1e-12
        assert abs(r["pass_at_k"][str(r["trials"])] - at_n) < 1e-9
    for r in pl_tables["conditions"].rows:
        mine = {c: (v["passes"], v["attempts"]) for c, v in r["conditions"].items()}
        assert mine == pd_out["conditions"][r["agent"]], "condition cells differ"
    fails = {
        (r["agent"], r["condition"], c): n for r in pl_tables["failures"].rows for c, n in r["by_class"].items() if n
    }
    assert fails == pd_out["failures"], "failure counts differ"
    shared = {(r["task"], r["check_id"]): (tuple(r["agents"]), r["runs"]) for r in pl_tables["shared-errors"].rows}
    assert shared == pd_out["shared"], "shared errors differ"
    cost = {
        (r["agent"], r["condition"]): round(r["compute_cost_usd"], 6) for r in pl_tables["cost"].rows if r["condition"]
    }
    assert cost == pd_out["cost"], "costs differ"
    grid = pl_tables["grid"]
    assert (len(grid.rows), len(grid.meta["tasks"])) == pd_out["grid"], "grid shapes differ"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attempts", type=int, default=1_000_000)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--keep", type=Path, default=None, help="Build the store here and keep it (reused if there).")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON (the table goes to stderr)")
    args = parser.parse_args()
    out = sys.stderr if args.json else sys.stdout
    tmp = None
    if args.keep is None:
        tmp = tempfile.TemporaryDirectory(prefix="cmb-bench-")
        home = Path(tmp.name)
    else:
        home = args.keep
    built = not (home / "results" / "runs" / f"sweep={SWEEP}").is_dir()
    scope = "store built in this run" if built else "analysis of a kept store"
    if built:
        start = time.perf_counter()
        n_runs, n_checks = build_store(home, args.attempts)
        print(
            f"built a store of {n_runs:,} attempts and {n_checks:,} check rows in {time.perf_counter() - start:.1f} s",
            file=out,
        )
    options = AnalysisOptions(n_boot=args.n_boot)
    pl_times: dict[str, float] = {}
    pd_times: dict[str, float] = {}
    analysis = timed("load", lambda: Analysis.from_store(home, [SWEEP], options), pl_times)
    pl_tables = {name: timed(name, lambda name=name: analysis.table(name), pl_times) for name in TABLES}
    peak_gib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 2**30  # ru_maxrss is in KiB on Linux
    # pandas draws its own resamples: none of those cached during cmb's tables carry over
    _stats._all_counts.cache_clear()
    _stats._cached_unpaired_counts.cache_clear()
    kept, _ = timed("load", lambda: pandas_load(home, options.cost.cpu_hour_usd, options.cost.node_hour_usd), pd_times)
    pd_out = timed("tables", lambda: pandas_tables(home, kept, args.n_boot, options.seed), pd_times)
    check_agreement(pl_tables, pd_out)
    pl_total, pd_total = sum(pl_times.values()), sum(pd_times.values())
    print(f"\n{analysis.epoch.summary()}; bootstrap {args.n_boot} resamples per interval\n", file=out)
    print("polars (cmb.analysis)", file=out)
    for label, seconds in pl_times.items():
        print(f"  {label:<14} {seconds:7.2f} s", file=out)
    print(f"  {'total':<14} {pl_total:7.2f} s", file=out)
    print("pandas (same tables)", file=out)
    print(f"  {'load':<14} {pd_times['load']:7.2f} s", file=out)
    print(f"  {'tables':<14} {pd_times['tables']:7.2f} s", file=out)
    print(f"  {'total':<14} {pd_total:7.2f} s", file=out)
    print(f"\nall tables agree; pandas / polars = {pd_total / pl_total:.1f}x "
          f"(load {pd_times['load'] / pl_times['load']:.1f}x); peak memory {peak_gib:.2f} GiB ({scope})",
          file=out)  # fmt: skip
    if args.json:
        n = analysis.epoch.loaded
        figures = Figures("analysis")
        # value: cmb (polars), baseline: pandas, so ratio = polars / pandas (0.2 is a 5x speed-up)
        figures.add("analysis_all_tables", f"every table of a {n:,}-attempt store (with checks), cmb (polars)",
                    pl_total, "s", pd_total, "the same tables in pandas")  # fmt: skip
        figures.add("analysis_load", f"loading the {n:,}-attempt store, cmb (polars)", pl_times["load"], "s",
                    pd_times["load"], "the same load in pandas")  # fmt: skip
        figures.add("analysis_peak_memory", f"peak memory of the analysis process ({scope})", peak_gib, "GiB")
        figures.dump()
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
