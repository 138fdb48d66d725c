"""The discrete-event simulation the benchmark uses, on cases small enough to work out by hand."""

from __future__ import annotations

import pytest

from cmb.scheduler._sim import SimAttempt, SimPool, lower_bound, simulate, synthetic_sweep


def single(i: int, duration: float, pool: str = "p") -> SimAttempt:
    return SimAttempt(i, "single", pool, 4.0, 16.0, False, 3600, duration, 0, f"t{i}")


def workflow(i: int, duration: float, pool: str = "p") -> SimAttempt:
    return SimAttempt(i, "workflow", pool, 4.0, 16.0, True, 18000, duration, 0, f"w{i}")


def test_exclusive_attempts_take_a_node_each() -> None:
    attempts = [workflow(i, 10.0) for i in range(3)]
    pools = [SimPool("p", 2, 32, 128)]
    r = simulate(attempts, pools, {"workflow": 3}, 3)
    assert (r.makespan_s, r.lower_bound_s) == (20.0, 15.0)


def test_small_attempts_pack_by_requests_and_sidecar() -> None:
    pools = [SimPool("p", 1, 12.4, 64)]  # three 4.1-CPU pods fit, a fourth does not
    r = simulate([single(i, 5.0) for i in range(4)], pools, {"single": 4}, 4)
    assert r.makespan_s == 10.0 and r.lower_bound_s == pytest.approx(20 / 3)


def test_long_profiles_first_beats_submission_order_on_a_shared_pool() -> None:
    attempts = [single(i, 1.0) for i in range(4)] + [workflow(4, 10.0)]
    pools = [SimPool("p", 2, 8.2, 64)]  # two singles per node
    slots = {"single": 4, "workflow": 1}  # with four slots in all, what is dispatched first matters
    assert simulate(attempts, pools, slots, 4, ordered=True).makespan_s == 10.0
    assert simulate(attempts, pools, slots, 4, ordered=False).makespan_s == 11.0


def test_slots_cap_concurrency() -> None:
    pools = [SimPool("p", 10, 64, 256)]
    r = simulate([single(i, 1.0) for i in range(6)], pools, {"single": 2}, 2)
    assert r.makespan_s == 3.0


def test_unplaceable_attempts_are_reported() -> None:
    with pytest.raises(RuntimeError, match="never be placed"):
        simulate([single(0, 1.0, pool="gpu")], [SimPool("p", 1, 64, 256), SimPool("gpu", 1, 2, 8)], {"single": 1}, 1)


def test_synthetic_sweeps_respect_their_limits_and_the_bound_holds() -> None:
    attempts = synthetic_sweep(500, 20, seed=3)
    assert sum(a.profile == "workflow" for a in attempts) == 20 and len(attempts) == 520
    assert all(a.duration_s <= a.time_limit_s for a in attempts)
    pools = [SimPool("single", 10, 15.5, 60), SimPool("workflow", 4, 31.5, 124)]
    r = simulate(attempts, pools, {"single": 30, "workflow": 4}, 34)
    assert r.makespan_s >= lower_bound(attempts, pools) == r.lower_bound_s
