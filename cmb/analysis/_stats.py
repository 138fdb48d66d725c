"""Statistics that hold up with few tasks: task-clustered bootstrap, unbiased pass@k, exact paired tests.

Every random procedure takes an explicit seed and starts a fresh generator from it, so a reported interval can be
recomputed from the seed alone.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import Field

from cmb.models import CmbModel

FloatArray = npt.NDArray[np.float64]
DEFAULT_SEED = 20260817
DEFAULT_N_BOOT = 5000
_CHUNK_ELEMENTS = 4_000_000  # bound the (resamples x tasks) index block in memory
_CACHE_ELEMENTS = 1_000_000  # resample counts kept for reuse only up to this size (8 MB each)
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


def _tally(idx: npt.NDArray[np.integer[Any]], n_clusters: int) -> FloatArray:
    """How often each resample (row of `idx`) drew each cluster, as floats for the matrix products."""
    rows = idx.shape[0]
    flat = (idx + n_clusters * np.arange(rows)[:, None]).ravel()
    return np.bincount(flat, minlength=rows * n_clusters).reshape(rows, n_clusters).astype(np.float64)


@functools.lru_cache(maxsize=16)  # at most 16 x 8 MB, reused by every group with as many tasks
def _all_counts(n_clusters: int, n_boot: int, seed: int) -> FloatArray:
    """Every resample's draw counts at once. Groups with as many tasks share them: same seed, same draws."""
    rng = np.random.default_rng(seed)
    counts = _tally(rng.integers(0, n_clusters, size=(n_boot, n_clusters)), n_clusters)
    counts.flags.writeable = False
    return counts


def _resample_counts(n_clusters: int, n_boot: int, seed: int) -> Iterator[FloatArray]:
    """Blocks of resample counts (rows: resamples, columns: clusters) in the generator's order.

    Resample b draws `rng.integers(0, T, size=T)` cluster indices; its row counts how often each was drawn, so a
    resampled sum is the row's product with the clusters' values. Block boundaries do not change the stream.
    """
    if n_boot * n_clusters <= _CACHE_ELEMENTS:
        yield _all_counts(n_clusters, n_boot, seed)
        return
    rng = np.random.default_rng(seed)
    block = max(1, _CHUNK_ELEMENTS // max(n_clusters, 1))
    for start in range(0, n_boot, block):
        size = min(block, n_boot - start)
        yield _tally(rng.integers(0, n_clusters, size=(size, n_clusters)), n_clusters)


def _clustered_sums(values: FloatArray, n_boot: int, seed: int) -> FloatArray:
    """Resampled column sums of `values` (rows: clusters): shape (n_boot, columns), one matrix product a block.

    The sums equal summing the drawn rows one by one; exactly so for integer counts such as passes and attempts.
    """
    sums = np.empty((n_boot, values.shape[1]), dtype=np.float64)
    filled = 0
    for counts in _resample_counts(values.shape[0], n_boot, seed):
        sums[filled : filled + len(counts)] = counts @ values
        filled += len(counts)
    return sums


def _percentiles(stats: FloatArray, level: float) -> tuple[float | None, float | None]:
    finite = stats[np.isfinite(stats)]
    if finite.size == 0:
        return None, None
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(finite, [tail, 1.0 - tail])
    return float(low), float(high)


def _interval(stats: FloatArray, level: float, n_boot: int, seed: int, clusters: int) -> Interval:
    low, high = _percentiles(stats, level)
    return Interval(low=low, high=high, level=level, n_boot=n_boot, seed=seed, clusters=clusters)


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
    return bootstrap_ratios([(numerators, denominators)], n_boot=n_boot, seed=seed, level=level)[0]


def bootstrap_ratios(
    groups: Sequence[tuple[Sequence[float] | FloatArray, Sequence[float] | FloatArray]],
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> list[Interval]:
    """`bootstrap_ratio` of many (numerators, denominators) groups at once, the same interval for each.

    Groups with the same number of tasks share their draws (same seed), so each such set costs one matrix
    product of the resample counts with all their columns, and one quantile call.
    """
    arrays = [(np.asarray(n, dtype=np.float64), np.asarray(d, dtype=np.float64)) for n, d in groups]
    out: list[Interval | None] = [None] * len(arrays)
    by_size: dict[int, list[int]] = {}
    for i, (num, _) in enumerate(arrays):
        by_size.setdefault(num.size, []).append(i)
    for size, members in by_size.items():
        if size == 0:
            for i in members:
                out[i] = Interval(low=None, high=None, level=level, n_boot=n_boot, seed=seed, clusters=0)
            continue
        columns = np.stack([x for i in members for x in arrays[i]], axis=1)  # num, den, num, den ...
        sums = _clustered_sums(columns, n_boot, seed)
        with np.errstate(invalid="ignore", divide="ignore"):
            stats = sums[:, 0::2] / sums[:, 1::2]
        tail = (1.0 - level) / 2.0
        # the quantiles of all groups at once where every resample has a ratio
        whole = np.flatnonzero(np.isfinite(stats).all(axis=0)).tolist()
        bounds = np.quantile(stats[:, whole], [tail, 1.0 - tail], axis=0).T.tolist() if whole else []
        column = dict(zip(whole, bounds, strict=True))
        for j, i in enumerate(members):
            if j in column:
                low, high = column[j]
                out[i] = Interval(low=low, high=high, level=level, n_boot=n_boot, seed=seed, clusters=size)
            else:  # some resamples drew no attempts: the quantiles of the others
                out[i] = _interval(stats[:, j], level, n_boot, seed, size)
    return [ci for ci in out if ci is not None]


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
    columns = np.stack([np.asarray(x, dtype=np.float64) for x in (num_a, den_a, num_b, den_b)], axis=1)
    if columns.shape[0] == 0:
        return Interval(low=None, high=None, level=level, n_boot=n_boot, seed=seed, clusters=0)
    s = _clustered_sums(columns, n_boot, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        stats = s[:, 2] / s[:, 3] - s[:, 0] / s[:, 1]
    return _interval(stats, level, n_boot, seed, columns.shape[0])


def _unpaired_counts(size_a: int, size_b: int, n_boot: int, seed: int) -> tuple[FloatArray, FloatArray]:
    rng = np.random.default_rng(seed)
    ca = _tally(rng.integers(0, size_a, size=(n_boot, size_a)), size_a)
    cb = _tally(rng.integers(0, size_b, size=(n_boot, size_b)), size_b)  # drawn after a's, from the same generator
    ca.flags.writeable = cb.flags.writeable = False
    return ca, cb


_cached_unpaired_counts = functools.lru_cache(maxsize=4)(_unpaired_counts)


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
    a = np.stack([np.asarray(num_a, dtype=np.float64), np.asarray(den_a, dtype=np.float64)], axis=1)
    b = np.stack([np.asarray(num_b, dtype=np.float64), np.asarray(den_b, dtype=np.float64)], axis=1)
    if a.shape[0] == 0 or b.shape[0] == 0:
        return Interval(low=None, high=None, level=level, n_boot=n_boot, seed=seed, clusters=0)
    small = n_boot * (a.shape[0] + b.shape[0]) <= _CACHE_ELEMENTS
    ca, cb = (_cached_unpaired_counts if small else _unpaired_counts)(a.shape[0], b.shape[0], n_boot, seed)
    sa, sb = ca @ a, cb @ b
    with np.errstate(invalid="ignore", divide="ignore"):
        stats = sb[:, 0] / sb[:, 1] - sa[:, 0] / sa[:, 1]
    return _interval(stats, level, n_boot, seed, a.shape[0] + b.shape[0])


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


def pass_k_means(
    pairs: npt.NDArray[np.integer[Any]], weight: npt.NDArray[np.integer[Any]], k_max: int
) -> tuple[dict[str, float | None], dict[str, float | None], dict[str, int]]:
    """Mean pass@k and pass^k over tasks, k = 1..k_max; a task counts for the k up to its own trials.

    `pairs` holds distinct (trials n, passes c) rows and `weight` how many tasks have each. The curves are
    `pass_k_curves` for all pairs at once (the same running products), summed over pairs in their order.
    """
    n = pairs[:, 0].astype(np.float64)[:, None]
    c = pairs[:, 1].astype(np.float64)[:, None]
    if np.any(c < 0) or np.any(c > n) or np.any(n < 1):
        raise ValueError("need 0 <= c <= n and n >= 1 for every task")
    i = np.arange(k_max, dtype=np.float64)[None, :]
    used = i < n  # pass@k of a task is defined up to its own trials
    with np.errstate(invalid="ignore", divide="ignore"):
        none_pass = np.cumprod(np.where(used, np.clip(n - c - i, 0, None) / (n - i), 1.0), axis=1)
        all_pass = np.cumprod(np.where(used, np.clip(c - i, 0, None) / (n - i), 1.0), axis=1)
    w = weight.astype(np.float64)[:, None]
    # cumsum adds the pairs one after another, as a loop over them would (the last row is the total)
    zero = np.zeros((1, k_max))
    at_sum = np.cumsum(np.concatenate([zero, np.where(used, w * (1.0 - none_pass), 0.0)]), axis=0)[-1]
    hat_sum = np.cumsum(np.concatenate([zero, np.where(used, w * all_pass, 0.0)]), axis=0)[-1]
    count = (used * weight[:, None]).sum(axis=0)
    ks = [str(k) for k in range(1, k_max + 1)]
    at_k = {k: (float(at_sum[j] / count[j]) if count[j] else None) for j, k in enumerate(ks)}
    hat_k = {k: (float(hat_sum[j] / count[j]) if count[j] else None) for j, k in enumerate(ks)}
    return at_k, hat_k, {k: int(count[j]) for j, k in enumerate(ks)}


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
