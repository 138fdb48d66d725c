"""Statistics against hand-computed values and direct (brute-force) computations."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from cmb.analysis import (
    bonferroni,
    bootstrap_paired_ratio_diff,
    bootstrap_ratio,
    bootstrap_unpaired_ratio_diff,
    pass_at_k,
    pass_hat_k,
    pass_k_curves,
    sign_flip_test,
    wilcoxon_signed_rank,
)


def test_pass_at_k_and_pass_hat_k_by_hand():
    # n=5 trials, c=2 passes
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)  # 1 - C(3,2)/C(5,2)
    assert pass_at_k(5, 2, 4) == pytest.approx(1.0)  # C(3,4) = 0: four draws always include a pass
    assert pass_hat_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_hat_k(5, 2, 2) == pytest.approx(1 / 10)  # C(2,2)/C(5,2)
    assert pass_hat_k(5, 2, 3) == 0.0
    assert pass_at_k(5, 0, 5) == 0.0 and pass_hat_k(5, 5, 5) == 1.0
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def test_pass_at_k_is_unbiased():
    """Averaged over every size-k subset of the n outcomes, 'any passes' equals the estimator exactly."""
    outcomes = [1, 0, 0, 1, 0, 0]
    n, c = len(outcomes), sum(outcomes)
    for k in range(1, n + 1):
        subsets = list(itertools.combinations(outcomes, k))
        assert pass_at_k(n, c, k) == pytest.approx(np.mean([any(s) for s in subsets]))
        assert pass_hat_k(n, c, k) == pytest.approx(np.mean([all(s) for s in subsets]))


@pytest.mark.parametrize(("n", "c"), [(1, 0), (1, 1), (5, 2), (7, 7), (30, 11), (120, 3)])
def test_pass_k_curves_equal_the_binomial_formulas(n, c):
    at, hat = pass_k_curves(n, c)
    assert len(at) == len(hat) == n
    for k in range(1, n + 1):
        assert at[k - 1] == pytest.approx(pass_at_k(n, c, k), abs=1e-12)
        assert hat[k - 1] == pytest.approx(pass_hat_k(n, c, k), abs=1e-12)


def test_bootstrap_ratio_matches_a_direct_computation():
    passes = np.array([3, 0, 2, 5, 1, 4, 0])
    attempts = np.array([5, 5, 4, 5, 3, 5, 2])
    seed, n_boot = 11, 3000
    ci = bootstrap_ratio(passes, attempts, n_boot=n_boot, seed=seed, level=0.9)
    rng = np.random.default_rng(seed)
    stats = []
    for _ in range(n_boot):  # the definition, one resample at a time
        idx = rng.integers(0, passes.size, size=passes.size)
        stats.append(passes[idx].sum() / attempts[idx].sum())
    low, high = np.quantile(stats, [0.05, 0.95])
    assert (ci.low, ci.high) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))
    assert ci.seed == seed and ci.n_boot == n_boot and ci.clusters == 7 and ci.level == 0.9
    assert ci.low < passes.sum() / attempts.sum() < ci.high


def test_bootstrap_blocks_do_not_change_the_interval(monkeypatch):
    passes, attempts = np.arange(50) % 3, np.full(50, 2)
    whole = bootstrap_ratio(passes, attempts, n_boot=500, seed=3)
    monkeypatch.setattr("cmb.analysis._stats._CHUNK_ELEMENTS", 7 * 50)  # 7 resamples per block
    assert bootstrap_ratio(passes, attempts, n_boot=500, seed=3) == whole


def test_bootstrap_of_identical_tasks_is_degenerate_and_empty_is_none():
    ci = bootstrap_ratio([1, 1, 1, 1], [2, 2, 2, 2], n_boot=200, seed=1)
    assert ci.low == pytest.approx(0.5) and ci.high == pytest.approx(0.5)
    empty = bootstrap_ratio([], [], n_boot=200, seed=1)
    assert empty.low is None and empty.high is None and empty.clusters == 0


def test_paired_and_unpaired_differences():
    a_num, a_den = np.array([0, 1, 0, 1]), np.ones(4)
    b_num, b_den = np.array([1, 1, 1, 1]), np.ones(4)
    paired = bootstrap_paired_ratio_diff(a_num, a_den, b_num, b_den, n_boot=2000, seed=5)
    # every resample's difference is the share of A-failures drawn: between 0 and 1, centred on 0.5
    assert 0.0 <= paired.low < 0.5 < paired.high <= 1.0
    same = bootstrap_paired_ratio_diff(a_num, a_den, a_num, a_den, n_boot=500, seed=5)
    assert same.low == 0.0 and same.high == 0.0
    unpaired = bootstrap_unpaired_ratio_diff(a_num, a_den, b_num, b_den, n_boot=2000, seed=5)
    assert unpaired.low <= 0.5 <= unpaired.high


def test_sign_flip_exact_known_p_values():
    # five positive differences: only all-plus and all-minus reach |sum| = 5, p = 2/32
    r = sign_flip_test([1, 1, 1, 1, 1])
    assert r.method == "exact" and r.p == pytest.approx(2 / 32) and r.n == 5
    # six unit differences, one negative: |2p - 6| >= 4 for p in {0, 1, 5, 6} plus-signs: (1+6+6+1)/64
    assert sign_flip_test([1, 1, 1, 1, 1, -1]).p == pytest.approx(14 / 64)
    # zeros drop out; no difference at all gives p = 1
    assert sign_flip_test([0, 0.5, 0, 0.5]).p == pytest.approx(2 / 4)
    assert sign_flip_test([0, 0]).p == 1.0


def test_sign_flip_monte_carlo_agrees_with_exact():
    d = np.array([0.4, 0.2, -0.1, 0.5, 0.3, 0.25, -0.05, 0.6])
    exact = sign_flip_test(d)
    mc = sign_flip_test(d, exact_max=0, n_resamples=200_000, seed=2)
    assert mc.method == "monte-carlo"
    assert mc.p == pytest.approx(exact.p, abs=0.005)
    assert sign_flip_test(d, exact_max=0, n_resamples=20_000, seed=2) == sign_flip_test(
        d, exact_max=0, n_resamples=20_000, seed=2
    )


def _wilcoxon_by_enumeration(d: list[float]) -> float:
    """Two-sided exact p of W+ by listing all 2^m sign vectors (average ranks for ties)."""
    d = [x for x in d if x != 0]
    a = sorted(abs(x) for x in d)
    rank = {v: np.mean([i + 1 for i, w in enumerate(a) if w == v]) for v in set(a)}
    ranks = [rank[abs(x)] for x in d]
    observed = sum(r for r, x in zip(ranks, d, strict=True) if x > 0)
    totals = [
        sum(r for r, s in zip(ranks, signs, strict=True) if s) for signs in itertools.product([0, 1], repeat=len(d))
    ]
    low = np.mean([t <= observed + 1e-9 for t in totals])
    high = np.mean([t >= observed - 1e-9 for t in totals])
    return min(1.0, 2 * min(low, high))


@pytest.mark.parametrize(
    "d",
    [
        [1, 2, 3, 4, 5],
        [0.5, -1.5, 2.0, 2.5, -0.2, 3.0, 1.1],
        [1, 1, 2, -2, 3, 3, 3, -1, 0],  # ties and a zero
        [-0.3, -0.3, 0.3, 0.6, -0.6, 0.9, 0.9, 0.9, 1.2, -1.2, 0.1],
    ],
)
def test_wilcoxon_exact_equals_enumeration(d):
    r = wilcoxon_signed_rank(d)
    assert r.method == "exact"
    assert r.p == pytest.approx(_wilcoxon_by_enumeration(d), abs=1e-12)


def test_wilcoxon_known_value_and_scipy_agreement():
    assert wilcoxon_signed_rank([1, 2, 3, 4, 5]).p == pytest.approx(2 / 32)
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    d = rng.normal(0.3, 1.0, 15)  # no ties: scipy's exact method applies
    assert wilcoxon_signed_rank(d).p == pytest.approx(stats.wilcoxon(d, method="exact").pvalue, rel=1e-9)
    big = np.round(rng.normal(0.1, 1.0, 80), 1)  # ties: normal approximation with tie and continuity correction
    ours = wilcoxon_signed_rank(big, exact_max=0)
    ref = stats.wilcoxon(big, method="approx", correction=True, zero_method="wilcox")
    assert ours.method == "normal" and ours.p == pytest.approx(ref.pvalue, rel=1e-6)


def test_wilcoxon_exact_and_normal_close_for_moderate_n():
    d = np.linspace(-1.2, 1.6, 40)
    d = d[d != 0]
    exact = wilcoxon_signed_rank(d).p
    normal = wilcoxon_signed_rank(d, exact_max=0).p
    assert exact is not None and normal is not None
    assert math.isclose(exact, normal, rel_tol=0.02)


def test_bonferroni():
    assert bonferroni([0.01, 0.02, None, 0.5]) == [pytest.approx(0.03), pytest.approx(0.06), None, 1.0]
    assert bonferroni([]) == []
