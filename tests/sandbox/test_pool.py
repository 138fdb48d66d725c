"""Warm sandbox pools: ready ahead of demand, one attempt per sandbox, torn down after it, nothing left behind."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cmb.models import ResourceProfile
from cmb.sandbox import ExecResult, Sandbox, SandboxError, SandboxPool, SandboxSpec
from cmb.sandbox._pool import MIN_LIFETIME_S, drain_pools, pool_for

PROFILE = ResourceProfile(name="single", cpus=1, memory_gib=1, time_limit_s=600, disk_gib=1)


class Counted(Sandbox):
    """A sandbox that only counts what happens to it."""

    backend = "counted"
    live: set[str] = set()
    started: list[str] = []
    torn_down: list[str] = []
    fail_start = False
    start_s = 0.0
    lock = threading.Lock()

    def __init__(self, spec: SandboxSpec) -> None:
        super().__init__(spec)
        self.dead = False

    def start(self) -> None:
        time.sleep(self.start_s)
        if Counted.fail_start:
            raise SandboxError("the engine is gone")
        with Counted.lock:
            Counted.live.add(self.spec.name)
            Counted.started.append(self.spec.name)

    def alive(self) -> bool:
        return not self.dead

    def put(self, src: Path, dest: str = ".") -> None:
        pass

    def exec(
        self, argv: list[str], timeout_s: float, env: dict[str, str] | None = None, cwd: str | None = None
    ) -> ExecResult:
        return ExecResult(0, "", "", 0.0)

    def get(self, src: str, dest: Path, max_bytes: int = 256 * 1024 * 1024) -> None:
        raise FileNotFoundError(src)

    def teardown(self) -> None:
        with Counted.lock:
            if self.spec.name in Counted.live:
                Counted.live.discard(self.spec.name)
                Counted.torn_down.append(self.spec.name)


MADE: list[SandboxPool] = []


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    Counted.live, Counted.started, Counted.torn_down = set(), [], []
    Counted.fail_start, Counted.start_s = False, 0.0
    yield
    drain_pools()
    while MADE:  # no filler of one test may go on into the next
        MADE.pop().drain()


def make_pool(spares: int = 2, prepare=lambda sb: {"probed": sb.spec.name}) -> SandboxPool:  # type: ignore[no-untyped-def]
    pool = SandboxPool(Counted, SandboxSpec(name="shape", profile=PROFILE), prepare, max_spares=spares)
    MADE.append(pool)
    return pool


def wait_until(condition, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_claim_after_the_first_gets_a_sandbox_made_ahead_with_its_checks() -> None:
    pool = make_pool()
    first = pool.claim(600)  # nothing was asked for before: made now
    assert pool.stats["claimed_cold"] == 1
    wait_until(lambda: pool.ready == 1)  # one spare per attempt in flight
    second = pool.claim(600)
    assert pool.stats["claimed_warm"] == 1
    assert second.sandbox is not first.sandbox
    assert second.facts == {"probed": second.sandbox.spec.name}  # the entry's checks travel with the sandbox
    assert second.sandbox.spec.name.startswith("cmbpool-") and second.sandbox.spec.profile.time_limit_s >= 600
    wait_until(lambda: pool.ready == 2)  # two in flight, two spares
    pool.drain()
    assert Counted.live == {first.sandbox.spec.name, second.sandbox.spec.name}  # their attempts retire them
    pool.retire(first.sandbox)  # an attempt that ends after the drain still has its sandbox removed
    assert first.sandbox.spec.name in Counted.torn_down


def test_a_retired_sandbox_is_torn_down_in_the_background_and_never_handed_out_again() -> None:
    pool = make_pool(spares=1)
    seen = set()
    for _ in range(6):
        warm = pool.claim(600)
        assert warm.sandbox.spec.name not in seen
        seen.add(warm.sandbox.spec.name)
        pool.retire(warm.sandbox)
    wait_until(lambda: set(Counted.torn_down) >= seen)
    pool.drain()
    assert Counted.live == set() and sorted(Counted.started) == sorted(Counted.torn_down)


def test_spares_follow_the_attempts_in_flight_up_to_the_cap() -> None:
    pool = make_pool(spares=3)
    claimed = [pool.claim(600) for _ in range(5)]
    wait_until(lambda: pool.ready == 3)  # five in flight, capped at three spares
    time.sleep(0.2)
    assert pool.ready == 3
    for warm in claimed:
        pool.retire(warm.sandbox)
    wait_until(lambda: len(Counted.torn_down) == 5)
    assert pool.ready == 3  # spares are kept, not made again, while nothing is claimed
    pool.drain()
    assert Counted.live == set()


def test_no_spares_means_every_claim_is_made_on_demand() -> None:
    pool = make_pool(spares=0)
    for _ in range(3):
        pool.retire(pool.claim(600).sandbox)
    time.sleep(0.2)
    assert pool.ready == 0 and pool.stats["claimed_cold"] == 3


def test_a_sandbox_too_short_lived_or_gone_is_replaced_not_handed_out() -> None:
    pool = make_pool(spares=1)
    pool.claim(600)
    wait_until(lambda: pool.ready == 1)
    long = pool.claim(MIN_LIFETIME_S * 3)  # longer than the spare was made for
    assert long.sandbox.spec.profile.time_limit_s >= MIN_LIFETIME_S * 3
    assert pool.stats["claimed_cold"] == 2
    wait_until(lambda: pool.ready == 1)
    with pool._cond:
        pool._ready[0].sandbox.dead = True  # type: ignore[attr-defined]  # e.g. the engine restarted
        dead = pool._ready[0].sandbox.spec.name
    fresh = pool.claim(600)
    assert fresh.sandbox.spec.name != dead
    wait_until(lambda: dead in Counted.torn_down)


def test_a_failed_warm_up_leaves_nothing_and_the_claim_reports_the_error() -> None:
    pool = make_pool(spares=1)
    pool.claim(600)
    wait_until(lambda: pool.ready == 1)
    Counted.fail_start = True
    pool.claim(600)  # the spare: the filler now tries to make the next one, and fails
    wait_until(lambda: pool.stats["failed"] >= 1)
    assert pool.last_error is not None and "the engine is gone" in pool.last_error
    with pytest.raises(SandboxError, match="the engine is gone"):
        pool.claim(600)  # no spare: made now, and its error is the attempt's (an infrastructure failure)
    Counted.fail_start = False
    assert pool.claim(600).sandbox.spec.name in Counted.live
    assert len(Counted.live) == 3  # the three claimed; nothing of the failed starts


def test_a_failed_preparation_tears_the_sandbox_down() -> None:
    def refuse(sandbox: Sandbox) -> object:
        raise SandboxError("the network probe reached the host")

    pool = make_pool(spares=1, prepare=refuse)
    for _ in range(2):
        with pytest.raises(SandboxError, match="reached the host"):
            pool.claim(600)
    time.sleep(0.2)
    assert Counted.live == set() and len(Counted.started) == len(Counted.torn_down) >= 2


def test_draining_while_a_spare_is_being_made_leaves_nothing() -> None:
    Counted.start_s = 0.3
    pool = make_pool(spares=2)
    claimed = pool.claim(600)
    time.sleep(0.1)  # a spare is being made
    pool.drain()
    assert Counted.live == {claimed.sandbox.spec.name}  # only the claimed one, which its attempt retires
    with pytest.raises(SandboxError, match="drained"):
        pool.claim(600)


def test_one_pool_per_shape_in_a_process_and_drain_empties_them() -> None:
    a = pool_for(("shape", 1), lambda: make_pool())
    assert pool_for(("shape", 1), lambda: make_pool()) is a
    b = pool_for(("shape", 2), lambda: make_pool())
    assert b is not a
    a.claim(600)
    wait_until(lambda: a.ready == 1)
    assert drain_pools() == 2
    assert len(Counted.live) == 1  # the claimed one only
    assert pool_for(("shape", 1), lambda: make_pool()) is not a


def test_a_pool_is_idle_once_the_retired_are_gone_and_the_spares_made() -> None:
    Counted.start_s = 0.2
    pool = make_pool(spares=1)
    pool.retire(pool.claim(600).sandbox)  # made on demand; the filler makes a spare meanwhile
    wait_until(lambda: pool.idle)
    warm = pool.claim(600)  # the spare, at once: its replacement is still to be made
    assert not pool.idle
    wait_until(lambda: pool.idle)
    assert pool.ready == 1
    pool.retire(warm.sandbox)
    wait_until(lambda: pool.idle)
    assert warm.sandbox.spec.name in Counted.torn_down
