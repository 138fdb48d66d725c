"""Synthetic sweeps with the store's schema: for demos, the benchmark and the report's screenshot.

Outcomes follow a simple latent model (agent skill minus task difficulty minus a condition penalty) so the tables
have the structure of real sweeps: easy and hard tasks, reduced guidance and workflows harder, failures spread over
the classes, a trap check per task that several agents fail the same way, some infrastructure and stale-epoch runs.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pydantic import Field

from cmb.models import DEFAULT_PROFILES, CmbModel, ComputePriceSheet
from cmb.store import CHECKS_SCHEMA, RESULTS_SCHEMA_VERSION, RUNS_SCHEMA

_KINDS = np.array(["input-preparation", "output-analysis", "run-and-analyze"])


class SyntheticAgent(CmbModel):
    """One agent of a synthetic sweep."""

    name: str
    skill: float = Field(description="Logit offset of its pass probability")
    usd_per_mtok_in: float | None = Field(default=1.0, description="None: an unpriced model")
    usd_per_mtok_out: float | None = 4.0
    steps: float = Field(default=20.0, description="Median model requests per single task")


DEFAULT_AGENTS = (
    SyntheticAgent(name="react@open-small", skill=0.4, usd_per_mtok_in=0.1, usd_per_mtok_out=0.4, steps=12),
    SyntheticAgent(name="codeact@frontier-a", skill=2.2, usd_per_mtok_in=2.5, usd_per_mtok_out=10.0, steps=45),
    SyntheticAgent(name="codeact@frontier-b", skill=2.6, usd_per_mtok_in=1.25, usd_per_mtok_out=10.0, steps=6),
    SyntheticAgent(name="cli@frontier-b", skill=2.7, usd_per_mtok_in=None, usd_per_mtok_out=None, steps=8),
)


def synthetic_sweep(
    *,
    sweep: str = "demo",
    agents: tuple[SyntheticAgent, ...] = DEFAULT_AGENTS,
    n_single: int = 48,
    n_workflows: int = 6,
    trials: int = 3,
    reduced_fraction: float = 0.55,
    checks: bool = True,
    seed: int = 7,
) -> tuple[pa.Table, pa.Table | None]:
    """Runs (and checks) of agents x tasks x conditions x trials: SF/SR on single tasks, WF/WR on workflows."""
    rng = np.random.default_rng(seed)
    tasks = np.array([f"t{i:03d}" for i in range(n_single)] + [f"wf{i:02d}" for i in range(n_workflows)])
    kinds = np.concatenate([_KINDS[np.arange(n_single) % 3], np.full(n_workflows, "workflow")])
    is_wf = kinds == "workflow"
    difficulty = rng.normal(0.0, 1.6, tasks.size) + np.where(kinds == "input-preparation", 1.2, 0.0)
    has_reduced = is_wf | (rng.random(tasks.size) < reduced_fraction)
    n_checks = rng.integers(2, 7, tasks.size)
    trap = rng.integers(1, n_checks)  # never the format check 0
    # Attempts: every agent x (task, condition) x trial, SR/WR only where a reduced prompt exists.
    t_idx, conds = [], []  # condition codes index _CONDITIONS: SF, SR, WF, WR
    for i in range(tasks.size):
        full = 2 if is_wf[i] else 0
        t_idx.append(i)
        conds.append(full)
        if has_reduced[i]:
            t_idx.append(i)
            conds.append(full + 1)
    cell_task = np.array(t_idx)
    cell_cond = np.array(conds)
    n_cells, n_agents = cell_task.size, len(agents)
    a_idx = np.repeat(np.arange(n_agents), n_cells * trials)
    c_idx = np.tile(np.repeat(np.arange(n_cells), trials), n_agents)
    trial = np.tile(np.arange(trials), n_agents * n_cells).astype(np.int32)
    task_i = cell_task[c_idx]
    cond = cell_cond[c_idx]
    n = a_idx.size
    skill = np.array([ag.skill for ag in agents])[a_idx]
    penalty = np.array([0.0, 0.5, 0.8, 1.7])[cond]
    affinity = rng.normal(0.0, 0.9, (n_agents, tasks.size))[a_idx, task_i]
    logit = skill - difficulty[task_i] - penalty + affinity + rng.normal(0.0, 0.6, n)
    raw_pass = rng.random(n) < 1.0 / (1.0 + np.exp(-logit))
    infra = rng.random(n) < 0.01
    audit_ok = rng.random(n) >= 0.015
    passed = raw_pass & audit_ok & ~infra
    time_limit = ~raw_pass & (rng.random(n) < np.where(is_wf[task_i], 0.25, 0.06))
    # The failing check of a graded failure: the task's trap check most of the time, so errors are shared.
    k = n_checks[task_i]
    fail_check = np.where(rng.random(n) < 0.7, trap[task_i], rng.integers(0, k))
    # failure category codes: 0 format, 1 software, 2 scientific (CATEGORIES)
    category = np.where(fail_check == 0, 0, np.where(kinds[task_i] == "input-preparation", 1, 2))
    category = np.where((fail_check > 0) & (rng.random(n) < 0.25), 2, category)
    # failure class codes: FAILURE_CLASSES; passed or voided by the audit: no class
    failure = np.where(infra, 3, np.where(time_limit, 4, category))
    no_class = ~infra & (passed | (raw_pass & ~audit_ok))
    graded = ~infra & ~time_limit
    frac = np.where(raw_pass, 1.0, np.where(graded, (k - 1) / k, 0.0))
    wf = is_wf[task_i]
    steps = np.array([ag.steps for ag in agents])[a_idx] * np.where(wf, 8.0, 1.0)
    requests = np.maximum(1, rng.lognormal(np.log(steps), 0.5)).astype(np.int64)
    tok_in = requests * rng.integers(4_000, 12_000, n)
    tok_out = requests * rng.integers(200, 900, n)
    cached = (tok_in * rng.uniform(0.3, 0.8, n)).astype(np.int64)
    price_in = np.array([np.nan if ag.usd_per_mtok_in is None else ag.usd_per_mtok_in for ag in agents])[a_idx]
    price_out = np.array([np.nan if ag.usd_per_mtok_out is None else ag.usd_per_mtok_out for ag in agents])[a_idx]
    model_cost = (tok_in * price_in + tok_out * price_out) / 1e6
    agent_s = np.minimum(rng.lognormal(np.log(np.where(wf, 5400, 600)), 0.6), np.where(wf, 18000, 3600))
    agent_s = np.where(time_limit, np.where(wf, 18000, 3600), agent_s)
    # Epochs: the first trials of a few tasks ran on an older task version; a few attempts on an older harness.
    stale_task = (trial == 0) & np.isin(task_i, rng.choice(tasks.size, max(1, tasks.size // 12), replace=False))
    stale_harness = rng.random(n) < 0.01
    start0 = datetime(2026, 3, 1, tzinfo=UTC).timestamp()
    offset = np.where(stale_task | stale_harness, 0.0, 86_400.0) + trial * 3_600.0 + rng.uniform(0, 3_000, n)
    started = ((start0 + offset) * 1e6).astype(np.int64)
    setup_s, collect_s, grade_s = rng.uniform(2, 10, n), rng.uniform(0.5, 3, n), rng.uniform(0.1, 1, n)
    finished = started + ((setup_s + agent_s + collect_s + grade_s) * 1e6).astype(np.int64)
    metered = _metered(seed, wf, ~stale_harness, setup_s + agent_s + collect_s)
    agent = _labels(a_idx, [ag.name for ag in agents])
    task = _labels(task_i, tasks.tolist())
    condition = _labels(cond, list(_CONDITIONS))
    trial_text = pa.array(trial).cast(pa.string())
    runs: dict[str, Any] = {
        "schema_version": np.full(n, RESULTS_SCHEMA_VERSION, np.int16),
        "key": pc.binary_join_element_wise(pa.array(np.full(n, sweep)), agent, task, condition, trial_text, "/"),
        "sweep": _labels(np.zeros(n, np.int32), [sweep]),
        "agent": agent,
        "model": _labels(a_idx, [ag.name.split("@")[-1] for ag in agents]),
        "task": task,
        "study": _labels(task_i // 6, [f"study-{i}" for i in range(tasks.size // 6 + 1)]),
        "kind": _labels(task_i, kinds.tolist()),
        "condition": condition,
        "trial": trial,
        "started_at": started,
        "finished_at": finished,
        "exit_reason": _labels(
            np.where(infra, 1, np.where(time_limit, 2, 0)), ["completed", "infrastructure", "time-limit"]
        ),  # fmt: skip
        "retries": (infra * 2).astype(np.int32),
        "t_queue_s": rng.uniform(0, 30, n),
        "t_setup_s": setup_s,
        "t_agent_s": agent_s,
        "t_collect_s": collect_s,
        "t_grade_s": grade_s,
        "requests": requests,
        "input_tokens": tok_in,
        "output_tokens": tok_out,
        "cached_tokens": cached,
        "reasoning_tokens": tok_out // 2,
        "model_cost_usd": model_cost,
        "price_table": _labels(np.zeros(n, np.int32), ["2026-03"], null=np.isnan(price_in)),
        "cpus": np.where(wf, 128.0, 4.0),
        "memory_gib": np.where(wf, 239.0, 16.0),
        "node_exclusive": wf,
        "time_limit_s": np.where(wf, 18000, 3600),
        "audit_passed": audit_ok,
        "raw_score": frac,
        "gated_score": np.where(audit_ok, frac, 0.0),
        "partial_score": frac,
        "n_checks": np.where(graded, k, 0).astype(np.int32),
        "passed": passed,
        "failure_class": _labels(failure, list(_FAILURE_CLASSES), null=no_class),
        "task_hash": _labels(
            task_i + np.where(stale_task, tasks.size, 0), [f"cur-{t}" for t in tasks] + [f"old-{t}" for t in tasks]
        ),  # fmt: skip
        "grader_hash": _labels(np.zeros(n, np.int32), ["g1"]),
        "harness_version": _labels(stale_harness.astype(np.int32), ["0.1.0", "0.0.9"]),
        **metered,
    }
    runs_table = _table(runs, RUNS_SCHEMA, n)
    if not checks:
        return runs_table, None
    return runs_table, _checks(runs_table, graded, raw_pass, fail_check, category, k, rng)


def _metered(seed: int, wf: np.ndarray, metered: np.ndarray, held_s: np.ndarray) -> dict[str, Any]:
    """Measured usage and its cost at the pinned price sheet; attempts not `metered` (older harness) get none.

    Shared attempts use the single profile (4 CPUs, 16 GiB), workflows the workflow profile's whole node, as the
    `cpus` and `memory_gib` columns request. A generator of its own keeps the other columns as they were.
    """
    rng = np.random.default_rng([seed, 1])
    n = wf.size
    sheet = ComputePriceSheet.pinned()
    cpus, gib = np.where(wf, 128.0, 4.0), np.where(wf, 239.0, 16.0)
    cpu_s = held_s * cpus * rng.uniform(0.1, 1.1, n)
    peak = (gib * rng.uniform(0.2, np.where(wf, 1.0, 1.2)) * GIB).astype(np.int64)  # a node holds what it has
    cores = np.maximum(cpus, cpu_s / held_s)
    memory = np.maximum(gib, peak / GIB)
    shared = held_s / 3600 * (cores * sheet.vcpu_hour_usd + memory * sheet.gib_hour_usd)
    node = held_s / 3600 * sheet.node_hour_usd(DEFAULT_PROFILES["workflow"])
    none = ~metered
    return {
        "held_s": np.where(metered, held_s, np.nan),
        "cpu_s": np.where(metered, cpu_s, np.nan),
        "peak_memory_bytes": pa.array(peak, mask=none),
        "compute_source": _labels(np.zeros(n, np.int32), ["cgroup-v2"], null=none),
        "compute_price_sheet": _labels(np.zeros(n, np.int32), [sheet.version], null=none),
        "compute_cost_usd": np.where(metered, np.where(wf, node, shared), np.nan),
    }


GIB = 2**30
_CONDITIONS = ("SF", "SR", "WF", "WR")
_CATEGORIES = ("format", "software", "scientific")
_FAILURE_CLASSES = ("operational/format", "operational/software", "scientific", "infrastructure", "time-limit")
_MESSAGES = ("ok", "missing field", "setting not set", "value out of tolerance", "wrong structure")


def _labels(codes: np.ndarray, values: list[str], null: np.ndarray | None = None) -> pa.Array:
    """Strings from integer codes into `values` (fast for millions of rows); `null` marks missing ones."""
    indices = pa.array(codes.astype(np.int32), mask=null)
    return pa.DictionaryArray.from_arrays(indices, pa.array(values, pa.string())).cast(pa.string())


def _checks(
    runs: pa.Table,
    graded: np.ndarray,
    raw_pass: np.ndarray,
    fail_check: np.ndarray,
    category: np.ndarray,
    k: np.ndarray,
    rng: np.random.Generator,
) -> pa.Table:
    rows = np.flatnonzero(graded)
    per = k[rows]
    r = np.repeat(rows, per)
    j = np.arange(per.sum()) - np.repeat(np.cumsum(per) - per, per)
    failing = ~raw_pass[r] & (j == fail_check[r])
    cat = np.where(j == 0, 0, np.where(failing, category[r], 2))
    msg = np.where(failing, np.where(j == 0, 1, 2 + (fail_check[r] + rng.integers(0, 2, r.size)) % 3), 0)
    take = pa.array(r)
    data: dict[str, Any] = {
        "schema_version": np.full(r.size, RESULTS_SCHEMA_VERSION, np.int16),
        **{name: runs.column(name).take(take) for name in ("key", "sweep", "agent", "task", "condition", "trial")},
        "check_id": _labels(j, [f"c{i}" for i in range(int(j.max(initial=0)) + 1)]),
        "check_type": _labels((j > 0).astype(np.int32), ["schema.fields", "numeric.scalar"]),
        "category": _labels(cat, list(_CATEGORIES)),
        "passed": ~failing,
        "credit": np.where(failing, 0.0, 1.0),
        "message": _labels(msg, list(_MESSAGES)),
    }
    return _table(data, CHECKS_SCHEMA, r.size)


def _table(columns: dict[str, Any], schema: pa.Schema, n: int) -> pa.Table:
    """Columns as a table of `schema`; columns the generator does not make (write ids, record JSON) are null."""
    arrays = []
    for f in schema:
        value = columns.get(f.name)
        if value is None:
            arrays.append(pa.nulls(n, type=f.type))
        elif isinstance(value, pa.Array | pa.ChunkedArray):
            arrays.append(value.cast(f.type))
        else:
            arrays.append(pa.array(value, type=f.type, from_pandas=True))  # NaN -> null (unpriced)
    return pa.Table.from_arrays(arrays, schema=schema)


def write_store(home: Path, runs: pa.Table, checks: pa.Table | None = None, *, row_group_size: int = 256_000) -> None:
    """Write tables into the store layout, one compacted file per sweep: results/{runs,checks}/sweep=<id>/."""
    for table_name, table in (("runs", runs), ("checks", checks)):
        if table is None:
            continue
        for sweep in table.column("sweep").unique().to_pylist():
            part = table.filter(pc.equal(table.column("sweep"), sweep))
            folder = home / "results" / table_name / f"sweep={sweep}"
            folder.mkdir(parents=True, exist_ok=True)
            tmp = folder / ".part-synthetic.parquet.tmp"
            pq.write_table(part, tmp, row_group_size=row_group_size)
            tmp.replace(folder / "part-synthetic.parquet")
