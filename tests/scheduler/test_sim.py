"""The discrete-event simulation the benchmark uses, on cases small enough to work out by hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cmb.scheduler._sim import Cloud, SimAttempt, SimPool, lower_bound, simulate, synthetic_sweep


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


CLOUD = Cloud()
COLD = CLOUD.scan_s + CLOUD.boot_s  # a pod pending at 0 is seen at the first scan, then its node boots


def test_a_cold_cluster_adds_scan_boot_pull_and_pod_start() -> None:
    r = simulate([workflow(0, 100.0)], [SimPool("p", 2, 32, 128)], {"workflow": 1}, 1, cloud=CLOUD)
    assert r.makespan_s == pytest.approx(COLD + CLOUD.pull_s + CLOUD.pod_start_s + 100.0)
    assert CLOUD.pull_s == pytest.approx(1.4 * 2**30 / 60e6)
    assert r.peak_nodes == {"p": 1}


def test_a_pre_pulled_image_skips_the_pull_and_reaches_the_bound() -> None:
    cloud = replace(CLOUD, prepulled=True)
    r = simulate([workflow(0, 100.0)], [SimPool("p", 2, 32, 128)], {"workflow": 1}, 1, cloud=cloud)
    assert r.makespan_s == pytest.approx(COLD + cloud.pod_start_s + 100.0) == pytest.approx(r.lower_bound_s)


def test_a_node_pulls_the_image_once() -> None:
    attempts = [workflow(0, 100.0), workflow(1, 50.0)]
    r = simulate(attempts, [SimPool("p", 1, 32, 128)], {"workflow": 1}, 1, cloud=CLOUD)
    assert r.makespan_s == pytest.approx(COLD + CLOUD.pull_s + 2 * CLOUD.pod_start_s + 150.0)


def test_an_empty_node_is_billed_until_the_scale_down_delay_ends() -> None:
    r = simulate([workflow(0, 100.0)], [SimPool("p", 1, 32, 128)], {"workflow": 1}, 1, cloud=CLOUD)
    up = CLOUD.boot_s + CLOUD.pull_s + CLOUD.pod_start_s
    assert r.billed_node_s["p"] == pytest.approx(up + 100.0 + CLOUD.scale_down_s)
    assert r.busy_node_s["p"] == 100.0
    quick = replace(CLOUD, boot_s=1.0, prepulled=True, pod_start_s=0.0, scale_down_s=0.0)
    r = simulate([workflow(0, 5.0)], [SimPool("p", 1, 32, 128)], {"workflow": 1}, 1, cloud=quick)
    assert r.billed_node_s["p"] == quick.min_billed_s  # per-second billing, with its minimum


def test_the_autoscaler_counts_booting_nodes_and_stops_at_the_pool_size() -> None:
    attempts = [single(i, 100.0) for i in range(6)]  # three to a 16-CPU node
    r = simulate(attempts, [SimPool("p", 5, 15.5, 60)], {"single": 6}, 6, cloud=CLOUD)
    assert r.peak_nodes == {"p": 2} and r.max_wait_s == COLD
    r = simulate(attempts, [SimPool("p", 1, 15.5, 60)], {"single": 6}, 6, cloud=CLOUD)
    assert r.peak_nodes == {"p": 1}
    assert r.makespan_s == pytest.approx(COLD + CLOUD.pull_s + 2 * (CLOUD.pod_start_s + 100.0))


def test_pods_waiting_past_the_schedule_timeout_are_late() -> None:
    r = simulate([workflow(i, 1000.0) for i in range(2)], [SimPool("p", 1, 32, 128)], {"workflow": 2}, 2)
    assert (r.max_wait_s, r.late) == (1000.0, 1)


def test_weights_make_a_workflow_take_a_nodes_worth_of_slots() -> None:
    attempts = [workflow(0, 10.0)] + [single(i, 10.0) for i in range(1, 4)]
    pools = [SimPool("p", 1, 15.5, 60)]  # three singles or one workflow
    r = simulate(attempts, pools, {"single": 3, "workflow": 1}, 3, weights={"workflow": 3})
    assert (r.makespan_s, r.max_wait_s, r.late) == (20.0, 0.0, 0)


def test_billed_never_falls_below_busy() -> None:
    attempts = synthetic_sweep(300, 12, seed=5)
    pools = [SimPool("single", 6, 15.5, 60), SimPool("workflow", 4, 31.5, 124)]
    for cloud in (None, CLOUD, replace(CLOUD, prepulled=True, scale_down_s=0.0)):
        r = simulate(attempts, pools, {"single": 18, "workflow": 4}, 22, cloud=cloud)
        assert r.makespan_s >= r.lower_bound_s
        assert all(r.billed_node_s[p] >= r.busy_node_s[p] > 0 for p in ("single", "workflow"))


def test_the_default_policy_meets_its_targets_on_the_benchmark_sweep() -> None:
    attempts = synthetic_sweep(5000, 200, seed=7)
    pools = [SimPool("single", 40, 15.5, 60.0), SimPool("workflow", 44, 31.5, 124.0)]
    r = simulate(attempts, pools, {"single": 120, "workflow": 44}, 164, cloud=Cloud())
    assert r.ratio <= 1.10 and r.cost_ratio <= 1.15 and r.late == 0
