"""The batched and matrix-product forms of the statistics and tables give what the one-at-a-time definitions give."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cmb.analysis import (
    Analysis,
    AnalysisOptions,
    bootstrap_paired_ratio_diff,
    bootstrap_ratio,
    bootstrap_ratios,
    bootstrap_unpaired_ratio_diff,
    pass_k_curves,
    pass_k_means,
    synthetic_sweep,
    write_store,
)
from cmb.analysis._grid import Grid
from cmb.analysis._load import dedupe_runs, dedupe_scan, scan_runs
from tests.analysis.helpers import analysis, check, known_sweep, run
from tests.analysis.helpers import write_store as write_rows


def _percentiles(stats: list[float], level: float) -> tuple[float, float]:
    finite = np.asarray(stats)[np.isfinite(stats)]
    low, high = np.quantile(finite, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(low), float(high)


def _by_indices(num, den, n_boot, seed, level=0.95):
    """The definition: each resample sums the drawn tasks' values one index at a time."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(num), size=(n_boot, len(num)))
    with np.errstate(invalid="ignore", divide="ignore"):
        return _percentiles(list(num[idx].sum(axis=1) / den[idx].sum(axis=1)), level)


@pytest.mark.parametrize("size", [1, 3, 40, 257])
def test_counts_bootstrap_is_exactly_the_index_bootstrap_for_counts(size):
    rng = np.random.default_rng(size)
    attempts = rng.integers(1, 9, size)
    passes = rng.integers(0, attempts + 1)
    ci = bootstrap_ratio(passes, attempts, n_boot=700, seed=13, level=0.9)
    assert (ci.low, ci.high) == _by_indices(passes.astype(float), attempts.astype(float), 700, 13, 0.9)


def test_counts_bootstrap_in_blocks_is_the_same(monkeypatch):
    passes, attempts = np.arange(60) % 4, np.full(60, 3)
    whole = bootstrap_ratio(passes, attempts, n_boot=400, seed=2)
    monkeypatch.setattr("cmb.analysis._stats._CACHE_ELEMENTS", 0)  # not cached: drawn in blocks
    monkeypatch.setattr("cmb.analysis._stats._CHUNK_ELEMENTS", 9 * 60)
    assert bootstrap_ratio(passes, attempts, n_boot=400, seed=2) == whole


def test_batched_intervals_equal_one_call_per_group():
    rng = np.random.default_rng(4)
    groups = []
    for size in (5, 12, 5, 0, 30, 12, 1):
        attempts = rng.integers(1, 6, size)
        groups.append((rng.integers(0, attempts + 1), attempts))
    groups.append((np.array([1, 0, 2]), np.array([2, 0, 3])))  # resamples drawing only the empty task: no ratio
    batched = bootstrap_ratios(groups, n_boot=500, seed=8, level=0.8)
    assert batched == [bootstrap_ratio(n, d, n_boot=500, seed=8, level=0.8) for n, d in groups]
    assert batched[3].low is None and batched[3].clusters == 0
    assert bootstrap_ratios([], n_boot=500, seed=8) == []


def test_a_resample_without_attempts_is_left_out_as_before():
    num, den = np.array([1.0, 0.0, 2.0]), np.array([2.0, 0.0, 3.0])
    ci = bootstrap_ratio(num, den, n_boot=3000, seed=1)
    assert (ci.low, ci.high) == _by_indices(num, den, 3000, 1)


def test_differences_are_exactly_the_index_definitions():
    rng = np.random.default_rng(6)
    da, db = rng.integers(1, 5, 25), rng.integers(1, 5, 25)
    na, nb = rng.integers(0, da + 1), rng.integers(0, db + 1)
    paired = bootstrap_paired_ratio_diff(na, da, nb, db, n_boot=600, seed=3)
    gen = np.random.default_rng(3)
    idx = gen.integers(0, 25, size=(600, 25))
    stats = nb[idx].sum(1) / db[idx].sum(1) - na[idx].sum(1) / da[idx].sum(1)
    assert (paired.low, paired.high) == _percentiles(list(stats), 0.95)
    unpaired = bootstrap_unpaired_ratio_diff(na[:10], da[:10], nb, db, n_boot=600, seed=3)
    gen = np.random.default_rng(3)
    ia, ib = gen.integers(0, 10, size=(600, 10)), gen.integers(0, 25, size=(600, 25))
    stats = nb[ib].sum(1) / db[ib].sum(1) - na[:10][ia].sum(1) / da[:10][ia].sum(1)
    assert (unpaired.low, unpaired.high) == _percentiles(list(stats), 0.95)


def test_pass_k_means_equals_the_loop_over_pass_k_curves():
    rng = np.random.default_rng(5)
    n = rng.integers(1, 9, 200)
    c = rng.integers(0, n + 1)
    pairs, weight = np.unique(np.stack([n, c], axis=1), axis=0, return_counts=True)
    at_sum, hat_sum, count = np.zeros(6), np.zeros(6), np.zeros(6, dtype=int)
    for (ni, ci), w in zip(pairs.tolist(), weight.tolist(), strict=True):
        at, hat = pass_k_curves(ni, ci)
        upto = min(ni, 6)
        at_sum[:upto] += w * at[:upto]
        hat_sum[:upto] += w * hat[:upto]
        count[:upto] += w
    at_k, hat_k, k_tasks = pass_k_means(pairs, weight, 6)
    assert at_k == {str(k + 1): float(at_sum[k] / count[k]) for k in range(6)}
    assert hat_k == {str(k + 1): float(hat_sum[k] / count[k]) for k in range(6)}
    assert k_tasks == {str(k + 1): int(count[k]) for k in range(6)}
    with pytest.raises(ValueError):
        pass_k_means(np.array([[2, 3]]), np.array([1]), 2)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    home = tmp_path_factory.mktemp("store")
    runs, checks = synthetic_sweep(sweep="v", trials=4, seed=11)
    write_store(home, runs, checks)
    return Analysis.from_store(home, ["v"], AnalysisOptions(n_boot=200))


@pytest.mark.parametrize("by", [["agent", "condition", "kind"], ["agent", "condition"], ["agent"], ["kind"]])
def test_per_task_from_the_shared_counts_equals_a_direct_group_by(synthetic, by):
    direct = synthetic.per_task(by, frame=synthetic.runs)
    assert synthetic.per_task(by).equals(direct)


def test_grid_equals_a_cell_by_cell_construction(synthetic):
    g = Grid(synthetic)
    row_of = {key: i for i, key in enumerate(g.keys)}
    col_of = {t: j for j, t in enumerate(g.tasks)}
    expected = np.zeros_like(g.codes)
    for agent, cond, trial, task, outcome in synthetic.runs.select(
        "agent", "condition", "trial", "task", "outcome"
    ).iter_rows():
        expected[row_of[(agent, cond, trial)], col_of[task]] = g.outcomes.index(outcome)
    assert np.array_equal(g.codes, expected)
    keys = synthetic.runs.select("agent", "condition", "trial").unique().height
    assert len(g.keys) == keys == len(set(g.keys))
    lines = [c[-1] for c in synthetic.table("grid").cells]
    assert all(len(line) == len(g.tasks) for line in lines)


def test_dedupe_of_a_scan_reads_keys_only_when_unique(tmp_path):
    runs, _ = known_sweep()
    write_rows(tmp_path, runs)
    lf = scan_runs(tmp_path, [runs[0]["sweep"]])
    assert dedupe_scan(lf) is lf  # the known sweep's keys are unique
    write_rows(tmp_path / "dup", runs + runs[:3])
    lf = scan_runs(tmp_path / "dup", [runs[0]["sweep"]])
    ours = dedupe_scan(lf).collect().sort("key")
    assert ours.equals(dedupe_runs(lf.collect()).sort("key"))
    assert ours.height == len(runs) and ours["key"].n_unique() == ours.height
    assert isinstance(ours, pl.DataFrame)


def test_shared_errors_name_the_most_common_category_whatever_the_row_order():
    rows = [run(agent, "t1", "SF", trial, "scientific") for agent in ("x", "y") for trial in (0, 1, 2)]
    categories = ["software", "scientific", "scientific", "format", "scientific", "software"]
    checks = [check(r, "c1", False, category) for r, category in zip(rows, categories, strict=True)]
    for order in (checks, checks[::-1]):
        t = analysis(rows, order, n_boot=200).table("shared-errors")
        assert [(r["check_id"], r["category"], r["runs"]) for r in t.rows] == [("c1", "scientific", 6)]
