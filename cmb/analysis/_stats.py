"""Statistics that hold up with few tasks: task-clustered bootstrap, unbiased pass@k, exact paired tests.

Every random procedure takes an explicit seed and starts a fresh generator from it, so a reported interval can be
recomputed from the seed alone.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import Field

from cmb.models import CmbModel

FloatArray = npt.NDArray[np.float64]
DEFAULT_SEED = 20260817
DEFAULT_N_BOOT = 5000
_CHUNK_ELEMENTS = 4_000_000  # bound the (resamples x tasks) index block in memory
EXACT_SIGN_FLIP_MAX = 20  # 2**20 sign vectors: enumerate exactly up to here, Monte Carlo above
EXACT_WILCOXON_MAX = 400  # the exact null distribution is a DP over rank sums, O(n^3) below this


class Interval(CmbModel):
    """A percentile bootstrap interval and how it was made."""

    low: float | None
    high: float | None
    level: float = Field(description="Coverage, e.g. 0.95")
    n_boot: int
    seed: int
    clusters: int = Field(description="Tasks resampled")


@functools.lru_cache(maxsize=4)  # at most 4 x 16 MB
def _all_indices(n_clusters: int, n_boot: int, seed: int) -> npt.NDArray[np.int32]:
    """Every resample's indices at once. Groups with as many tasks share them: same seed, same draws."""
    idx = np.random.default_rng(seed).integers(0, n_clusters, size=(n_boot, n_clusters)).astype(np.int32)
    idx.flags.writeable = False
    return idx


def _resample(n_clusters: int, n_boot: int, seed: int) -> Callable[[], npt.NDArray[np.integer[Any]]]:
    """Return blocks of resampled cluster indices; block boundaries do not change the generator's stream."""
    if n_boot * n_clusters <= _CHUNK_ELEMENTS:
        whole = _all_indices(n_clusters, n_boot, seed)
        return lambda: whole
    rng = np.random.default_rng(seed)
    block = max(1, _CHUNK_ELEMENTS // max(n_clusters, 1))
    done = 0

    def next_block() -> npt.NDArray[np.integer[Any]]:
        nonlocal done
        size = min(block, n_boot - done)
        done += size
        return rng.integers(0, n_clusters, size=(size, n_clusters))

    return next_block


def _clustered_stats(
    n_clusters: int, n_boot: int, seed: int, statistic: Callable[[npt.NDArray[np.integer[Any]]], FloatArray]
) -> FloatArray:
    """The statistic of every resample, computed block by block (rows of `idx` are resampled cluster indices)."""
    stats = np.empty(n_boot, dtype=np.float64)
    draw = _resample(n_clusters, n_boot, seed)
    filled = 0
    with np.errstate(invalid="ignore", divide="ignore"):
        while filled < n_boot:
            idx = draw()
            stats[filled : filled + len(idx)] = statistic(idx)
            filled += len(idx)
    return stats


def _percentiles(stats: FloatArray, level: float) -> tuple[float | None, float | None]:
    finite = stats[np.isfinite(stats)]
    if finite.size == 0:
        return None, None
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(finite, [tail, 1.0 - tail])
    return float(low), float(high)


def bootstrap_ratio(
    numerators: Sequence[float] | FloatArray,
    denominators: Sequence[float] | FloatArray,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Interval:
    """Task-clustered percentile CI of sum(num)/sum(den), e.g. passes over attempts with tasks as clusters.

    Resample b draws `rng.integers(0, T, size=T)` task indices (all resamples drawn in order from one generator
    seeded with `seed`) and takes the ratio of the summed numerators and denominators of the drawn tasks.
    """
    num = np.asarray(numerators, dtype=np.float64)
    den = np.asarray(denominators, dtype=np.float64)
    if num.size == 0:
        return Interval(low=None, high=None, level=level, n_boot=n_boot, seed=seed, clusters=0)
    stats = _clustered_stats(num.size, n_boot, seed, lambda idx: num[idx].sum(axis=1) / den[idx].sum(axis=1))
    low, high = _percentiles(stats, level)
    return Interval(low=low, high=high, level=level, n_boot=n_boot, seed=seed, clusters=num.size)


def bootstrap_paired_ratio_diff(
    num_a: Sequence[float] | FloatArray,
    den_a: Sequence[float] | FloatArray,
    num_b: Sequence[float] | FloatArray,
    den_b: Sequence[float] | FloatArray,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Interval:
    """CI of ratio(b) - ratio(a) on the same tasks (row i of a and b is task i), tasks resampled together."""
    na, da, nb, db = (np.asarray(x, dtype=np.float64) for x in (num_a, den_a, num_b, den_b))
    if na.size == 0:
        return Interval(low=None, high=None, level=level, n_boot=n_boot, seed=seed, clusters=0)
    stats = _clustered_stats(
        na.size,
        n_boot,
        seed,
        lambda idx: nb[idx].sum(axis=1) / db[idx].sum(axis=1) - na[idx].sum(axis=1) / da[idx].sum(axis=1),
    )
    low, high = _percentiles(stats, level)
    return Interval(low=low, high=high, level=level, n_boot=n_boot, seed=seed, clusters=na.size)


def bootstrap_unpaired_ratio_diff(
    num_a: Sequence[float] | FloatArray,
    den_a: Sequence[float] | FloatArray,
    num_b: Sequence[float] | FloatArray,
    den_b: Sequence[float] | FloatArray,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Interval:
    """CI of ratio(b) - ratio(a) on different task sets, each resampled on its own (a first, then b)."""
    na, da, nb, db = (np.asarray(x, dtype=np.float64) for x in (num_a, den_a, num_b, den_b))
    if na.size == 0 or nb.size == 0:
        return Interval(low=None, high=None, level=level, n_boot=n_boot, seed=seed, clusters=0)
    rng = np.random.default_rng(seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        ia = rng.integers(0, na.size, size=(n_boot, na.size))
        ib = rng.integers(0, nb.size, size=(n_boot, nb.size))  # drawn after a's, from the same generator
        stats = nb[ib].sum(axis=1) / db[ib].sum(axis=1) - na[ia].sum(axis=1) / da[ia].sum(axis=1)
    low, high = _percentiles(stats, level)
    return Interval(low=low, high=high, level=level, n_boot=n_boot, seed=seed, clusters=na.size + nb.size)


def bootstrap_mean(
    values: Sequence[float] | FloatArray, *, n_boot: int = DEFAULT_N_BOOT, seed: int = DEFAULT_SEED, level: float = 0.95
) -> Interval:
    """CI of the mean of per-task values (e.g. paired differences), tasks resampled."""
    v = np.asarray(values, dtype=np.float64)
    return bootstrap_ratio(v, np.ones_like(v), n_boot=n_boot, seed=seed, level=level)


# --- repeatability -----------------------------------------------------------------------------------------------


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate of P(at least one of k attempts passes) from c passes in n attempts (k <= n)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate of P(all of k attempts pass) from c passes in n attempts (k <= n)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return math.comb(c, k) / math.comb(n, k)


def pass_k_curves(n: int, c: int) -> tuple[FloatArray, FloatArray]:
    """pass@k and pass^k for k = 1..n at once (index k-1), as running products instead of binomials.

    C(n-c,k)/C(n,k) = prod_{i<k} (n-c-i)/(n-i) and C(c,k)/C(n,k) = prod_{i<k} (c-i)/(n-i): stable for any n.
    """
    if not 0 <= c <= n or n < 1:
        raise ValueError(f"need 0 <= c <= n and n >= 1, got n={n} c={c}")
    i = np.arange(n, dtype=np.float64)
    none_pass: FloatArray = np.cumprod(np.clip(n - c - i, 0, None) / (n - i)).astype(np.float64)
    all_pass: FloatArray = np.cumprod(np.clip(c - i, 0, None) / (n - i)).astype(np.float64)
    return 1.0 - none_pass, all_pass


# --- paired tests ------------------------------------------------------------------------------------------------

Method = Literal["exact", "monte-carlo", "normal", "none"]


class PairedTest(CmbModel):
    """A two-sided p-value and how it was computed."""

    p: float | None
    method: Method
    n: int = Field(description="Pairs with a non-zero difference")
    statistic: float | None = None


def sign_flip_test(
    differences: Sequence[float] | FloatArray,
    *,
    n_resamples: int = 100_000,
    seed: int = DEFAULT_SEED,
    exact_max: int = EXACT_SIGN_FLIP_MAX,
) -> PairedTest:
    """Two-sided paired permutation test of mean difference 0: flip the sign of each task's difference.

    Exact (all 2^m sign vectors of the m non-zero differences) up to `exact_max`, otherwise Monte Carlo with
    p = (1 + hits) / (1 + resamples). Zero differences are unchanged by a flip and drop out.
    """
    d = np.asarray(differences, dtype=np.float64)
    d = d[d != 0]
    m = d.size
    if m == 0:
        return PairedTest(p=1.0, method="exact", n=0, statistic=0.0)
    observed = abs(d.sum())
    tol = 1e-9 * max(1.0, float(np.abs(d).sum()))
    if m <= exact_max:
        hits = 0
        total = 1 << m
        codes = np.arange(total, dtype=np.int64)
        block = max(1, _CHUNK_ELEMENTS // m)
        bits = np.arange(m, dtype=np.int64)
        for start in range(0, total, block):
            chunk = codes[start : start + block]
            signs = 1.0 - 2.0 * ((chunk[:, None] >> bits) & 1)
            hits += int(np.count_nonzero(np.abs(signs @ d) >= observed - tol))
        return PairedTest(p=hits / total, method="exact", n=m, statistic=float(d.sum()))
    rng = np.random.default_rng(seed)
    hits = 0
    done = 0
    block = max(1, _CHUNK_ELEMENTS // m)
    while done < n_resamples:
        size = min(block, n_resamples - done)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(size, m))
        hits += int(np.count_nonzero(np.abs(signs @ d) >= observed - tol))
        done += size
    return PairedTest(p=(1 + hits) / (1 + n_resamples), method="monte-carlo", n=m, statistic=float(d.sum()))


def _average_ranks(x: FloatArray) -> FloatArray:
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(x.size, dtype=np.float64)
    sorted_x = x[order]
    i = 0
    while i < x.size:
        j = i
        while j + 1 < x.size and sorted_x[j + 1] == sorted_x[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def wilcoxon_signed_rank(
    differences: Sequence[float] | FloatArray, *, exact_max: int = EXACT_WILCOXON_MAX
) -> PairedTest:
    """Two-sided Wilcoxon signed-rank test (zero differences dropped, tied |d| given average ranks).

    Exact null distribution of W+ (ties included: doubled ranks are integers, counted by dynamic programming) up
    to `exact_max` non-zero pairs, otherwise the normal approximation with tie and continuity corrections.
    """
    d = np.asarray(differences, dtype=np.float64)
    d = d[d != 0]
    m = d.size
    if m == 0:
        return PairedTest(p=1.0, method="exact", n=0, statistic=0.0)
    ranks = _average_ranks(np.abs(d))
    w_plus = float(ranks[d > 0].sum())
    if m <= exact_max:
        doubled = np.rint(2 * ranks).astype(np.int64)
        total = int(doubled.sum())
        dist = np.zeros(total + 1, dtype=np.float64)
        dist[0] = 1.0
        for r in doubled:
            shifted = np.zeros_like(dist)
            shifted[r:] = dist[: total + 1 - r]
            dist = 0.5 * (dist + shifted)
        s = round(2 * w_plus)
        cdf_low = float(dist[: s + 1].sum())
        cdf_high = float(dist[s:].sum())
        return PairedTest(p=min(1.0, 2.0 * min(cdf_low, cdf_high)), method="exact", n=m, statistic=w_plus)
    mean = m * (m + 1) / 4.0
    _, tie_counts = np.unique(np.abs(d), return_counts=True)
    var = m * (m + 1) * (2 * m + 1) / 24.0 - float((tie_counts**3 - tie_counts).sum()) / 48.0
    z = (abs(w_plus - mean) - 0.5) / math.sqrt(var) if var > 0 else 0.0
    p = math.erfc(max(z, 0.0) / math.sqrt(2.0))
    return PairedTest(p=min(1.0, p), method="normal", n=m, statistic=w_plus)


def bonferroni(p_values: Sequence[float | None]) -> list[float | None]:
    """Bonferroni-adjusted p-values over the family of tests given (None stays None and is not counted)."""
    family = sum(p is not None for p in p_values)
    return [None if p is None else min(1.0, p * family) for p in p_values]
