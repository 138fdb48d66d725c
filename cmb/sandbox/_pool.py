"""Warm sandbox pools: sandboxes created, started and checked ahead of demand, each serving one attempt.

An attempt's sandbox used to be made on its critical path: create, harden, start, stage the harness, probe the
network. A pool does all of that in the background, for one shape of sandbox (backend, image, limits, network,
mounts), and hands a ready one to each claim. A claimed sandbox is never returned: after its one attempt it is
torn down (in the background too), and the pool makes another.

The pool keeps one spare per claim in flight (so it follows the slots of the process that uses it), up to a cap.
What `prepare` learnt when a sandbox entered the pool (the isolation proof) travels with it to the attempt that
claims it. Everything a pool creates carries the owner label of this process like any sandbox, so a crashed
process leaves nothing that the owner-label janitor (`cmb backends cleanup`, the sweep's end) does not
remove.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import Any

from cmb.sandbox._base import Sandbox, SandboxError, SandboxSpec

log = logging.getLogger(__name__)

NAME_PREFIX = "cmbpool"
MIN_LIFETIME_S = 3600  # a pooled sandbox is made for at least this time limit, so one shape serves most tasks
RETRY_PAUSE_S = 5.0  # after a failed warm-up, before the filler tries again


@dataclass(frozen=True)
class Warm:
    """A sandbox that entered the pool: started, prepared, and what its preparation found."""

    sandbox: Sandbox
    facts: Any  # what `prepare` returned (the runner's workdir and network probe)
    entered_at: float  # time.monotonic() when it became ready


Prepare = Callable[[Sandbox], Any]


class SandboxPool:
    """Ready sandboxes of one shape; `claim` takes one, `retire` tears a used one down off the critical path."""

    def __init__(self, backend: type[Sandbox], spec: SandboxSpec, prepare: Prepare, max_spares: int = 2) -> None:
        self.backend = backend
        self.spec = spec  # the shape; each sandbox gets a name of its own
        self.prepare = prepare
        self.max_spares = max(0, max_spares)
        self._ready: deque[Warm] = deque()
        self._making = 0
        self._in_flight = 0  # claimed and not yet retired
        self._retiring: deque[Sandbox] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._failure_at = 0.0
        self.last_error: str | None = None
        self.stats = {"made": 0, "claimed_warm": 0, "claimed_cold": 0, "failed": 0, "retired": 0}
        self._worker = threading.Thread(target=self._work, name=f"cmb-pool-{spec.image}", daemon=True)
        self._worker.start()

    # -- the attempt's side --------------------------------------------------------------------------------------

    def claim(self, time_limit_s: float) -> Warm:
        """A ready sandbox for an attempt of this time limit: a warm one, else one made now (errors propagate)."""
        with self._cond:
            if self._closed:
                raise SandboxError("the sandbox pool is drained")
            self._in_flight += 1
            warm = self._take(time_limit_s)
            self._cond.notify_all()  # the filler tops the spares up
        if warm is not None:
            self.stats["claimed_warm"] += 1
            return warm
        try:
            made = self._make(time_limit_s)
        except BaseException:
            with self._cond:
                self._in_flight -= 1
            raise
        self.stats["claimed_cold"] += 1
        return made

    def retire(self, sandbox: Sandbox) -> None:
        """The attempt is done with `sandbox`: it is torn down in the background, never handed out again."""
        with self._cond:
            self._in_flight = max(0, self._in_flight - 1)
            closed = self._closed
            if not closed:
                self._retiring.append(sandbox)
                self._cond.notify_all()
        if closed:  # drained: no filler is left to do it
            _teardown(sandbox)

    def drain(self) -> None:
        """Stop making sandboxes and tear down every ready and retiring one (waits for the filler to finish)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._worker.join(timeout=300)
        with self._cond:
            leftovers = [w.sandbox for w in self._ready] + list(self._retiring)
            self._ready.clear()
            self._retiring.clear()
        for sandbox in leftovers:
            _teardown(sandbox)

    @property
    def ready(self) -> int:
        """Sandboxes ready to be claimed now."""
        with self._cond:
            return len(self._ready)

    @property
    def idle(self) -> bool:
        """Nothing to tear down or make: every spare wanted is ready."""
        with self._cond:
            return not self._retiring and self._making == 0 and len(self._ready) >= self._wanted()

    # -- the filler's side ---------------------------------------------------------------------------------------

    def _take(self, time_limit_s: float) -> Warm | None:
        """A ready sandbox made for at least this time limit and still alive (called holding the lock)."""
        while self._ready:
            warm = self._ready.popleft()
            if warm.sandbox.spec.profile.time_limit_s >= time_limit_s and _alive(warm.sandbox):
                return warm
            self._retiring.append(warm.sandbox)  # too short-lived for this claim, or gone: replaced
        return None

    def _wanted(self) -> int:
        """Spares to keep: one per attempt in flight (at least one once anything was claimed), up to the cap."""
        claimed = self.stats["claimed_warm"] + self.stats["claimed_cold"]
        return min(self.max_spares, max(self._in_flight, 1 if claimed else 0))

    def _work(self) -> None:
        """Tear down what was retired first (it frees resources), then top up the spares."""
        while True:
            with self._cond:
                while not self._closed and not self._retiring and not self._should_make():
                    self._cond.wait(timeout=RETRY_PAUSE_S)
                if self._closed:
                    return
                retiring = self._retiring.popleft() if self._retiring else None
                make = retiring is None and self._should_make()
                if make:
                    self._making += 1
            if retiring is not None:
                _teardown(retiring)
                self.stats["retired"] += 1
                continue
            if make:
                self._fill_one()

    def _should_make(self) -> bool:
        if time.monotonic() - self._failure_at < RETRY_PAUSE_S:
            return False
        return len(self._ready) + self._making < self._wanted()

    def _fill_one(self) -> None:
        try:
            warm = self._make(MIN_LIFETIME_S)
        except Exception as exc:  # noqa: BLE001 - the claim path makes one itself and reports the error
            with self._cond:
                self._making -= 1
                self._failure_at = time.monotonic()
                self.last_error = f"{type(exc).__name__}: {exc}"
            self.stats["failed"] += 1
            log.warning("sandbox pool: warm-up failed: %s", self.last_error)
            return
        with self._cond:
            self._making -= 1
            if self._closed:
                self._retiring.append(warm.sandbox)
            else:
                self._ready.append(warm)
            self._cond.notify_all()

    def _make(self, time_limit_s: float) -> Warm:
        """Create, start and prepare one sandbox; nothing is left behind when any step fails."""
        limit = max(int(time_limit_s), MIN_LIFETIME_S, self.spec.profile.time_limit_s)
        profile = self.spec.profile.model_copy(update={"time_limit_s": limit})
        spec = replace(self.spec, name=f"{NAME_PREFIX}-{secrets.token_hex(6)}", profile=profile)
        sandbox = self.backend(spec)
        try:
            sandbox.start()
            facts = self.prepare(sandbox)
        except BaseException:
            _teardown(sandbox)
            raise
        self.stats["made"] += 1
        return Warm(sandbox, facts, time.monotonic())


def _alive(sandbox: Sandbox) -> bool:
    try:
        return sandbox.alive()
    except Exception:  # noqa: BLE001 - one that cannot answer is not handed out
        return False


def _teardown(sandbox: Sandbox) -> None:
    try:
        sandbox.teardown()
    except Exception as exc:  # noqa: BLE001 - a leftover carries the owner label: the janitor removes it
        log.warning("sandbox pool: teardown of %s failed: %s: %s", sandbox.spec.name, type(exc).__name__, exc)


# -- the pools of this process ---------------------------------------------------------------------------------

_POOLS: dict[Hashable, SandboxPool] = {}
_POOLS_LOCK = threading.Lock()


def pool_for(key: Hashable, make: Callable[[], SandboxPool]) -> SandboxPool:
    """The pool of this process for `key` (a sandbox shape), made on first use."""
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            pool = _POOLS[key] = make()
        return pool


def drain_pools() -> int:
    """Drain every pool of this process (the end of a sweep, or the process's exit); returns how many there were."""
    with _POOLS_LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        with contextlib.suppress(Exception):
            pool.drain()
    return len(pools)


atexit.register(drain_pools)
