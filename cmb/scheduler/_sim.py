"""A discrete-event simulation of the driver's scheduling policy on a cluster, for benchmarks.

The simulated driver is the real policy: attempts in `dispatch_key` order, a `SlotPolicy` of slots per profile
plus an overall cap. Dispatched attempts become pods that a simple Kubernetes-like scheduler places first-fit on
nodes (requests = limits, the `files` helper container included; node-exclusive attempts need an empty node of
their pool); pods that fit nowhere wait in its queue, in order. Durations are drawn from lognormal laws and
capped at the time limit, which the driver never knows in advance.

The makespan is compared with a lower bound: per pool, the work divided by the attempts the pool holds at once,
and no less than the longest attempt.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import deque
from dataclasses import dataclass, field

from cmb.scheduler._driver import SlotPolicy
from cmb.scheduler._plan import dispatch_key

SIDECAR_CPUS = 0.1
SIDECAR_GIB = 0.125


@dataclass(frozen=True)
class SimAttempt:
    """One attempt: what it asks for and how long it will really take."""

    index: int
    profile: str
    pool: str
    cpus: float
    memory_gib: float
    exclusive: bool
    time_limit_s: int
    duration_s: float
    trial: int
    task: str

    def key(self) -> tuple[int, int, str, str, str]:
        """The driver's dispatch order."""
        return dispatch_key(self.time_limit_s, self.trial, self.task, "agent", f"{self.index:08d}")


@dataclass(frozen=True)
class SimPool:
    """Identical nodes: allocatable CPUs and memory each."""

    name: str
    nodes: int
    cpus: float
    memory_gib: float


@dataclass
class _Node:
    pool: str
    cpus: float
    memory_gib: float
    running: int = 0


@dataclass
class SimResult:
    """Outcome of one simulated sweep."""

    makespan_s: float
    lower_bound_s: float
    attempts: int
    busy_fraction: dict[str, float] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        """Makespan over its lower bound (1.0 is optimal)."""
        return self.makespan_s / self.lower_bound_s


def per_node(pool: SimPool, cpus: float, memory_gib: float) -> int:
    """How many attempts of a size one node of the pool holds."""
    return int(min(pool.cpus // (cpus + SIDECAR_CPUS), pool.memory_gib // (memory_gib + SIDECAR_GIB)))


def lower_bound(attempts: list[SimAttempt], pools: list[SimPool]) -> float:
    """The larger of the longest attempt and, per pool, its node-seconds of work over its nodes.

    An attempt's node-seconds are its duration times its share of a node (1 when exclusive, else one over the
    attempts of its size a node holds).
    """
    bound = max(a.duration_s for a in attempts)
    by_pool = {p.name: p for p in pools}
    node_seconds: dict[str, float] = {}
    for a in attempts:
        pool = by_pool[a.pool]
        share = 1.0 if a.exclusive else 1.0 / max(1, per_node(pool, a.cpus, a.memory_gib))
        node_seconds[a.pool] = node_seconds.get(a.pool, 0.0) + a.duration_s * share
    for name, seconds in node_seconds.items():
        bound = max(bound, seconds / by_pool[name].nodes)
    return bound


def simulate(
    attempts: list[SimAttempt],
    pools: list[SimPool],
    slots: dict[str, int],
    total_slots: int,
    *,
    ordered: bool = True,
    clairvoyant: bool = False,
) -> SimResult:
    """Run the sweep in the driver's order.

    `ordered=False` dispatches in submission order instead; `clairvoyant=True` longest actual duration first, a
    reference no real driver can reach (it needs to know the future).
    """
    if clairvoyant:
        queue = deque(sorted(attempts, key=lambda a: -a.duration_s))
    else:
        queue = deque(sorted(attempts, key=SimAttempt.key) if ordered else attempts)
    policy = SlotPolicy(slots, total_slots)
    nodes = [_Node(p.name, p.cpus, p.memory_gib) for p in pools for _ in range(p.nodes)]
    pending: deque[SimAttempt] = deque()  # dispatched, waiting for the Kubernetes scheduler
    events: list[tuple[float, int, int]] = []  # (end time, attempt index, node index)
    by_index = {a.index: a for a in attempts}
    by_pool = {p.name: p for p in pools}
    busy: dict[str, float] = {}
    now = 0.0

    def place(a: SimAttempt) -> int | None:
        cpus, mem = a.cpus + SIDECAR_CPUS, a.memory_gib + SIDECAR_GIB
        for i, node in enumerate(nodes):
            if node.pool != a.pool or node.cpus < cpus or node.memory_gib < mem:
                continue
            if a.exclusive and node.running:
                continue
            return i
        return None

    def schedule() -> None:
        # The Kubernetes scheduler takes pending pods by priority (workflow's PriorityClass is higher), FIFO within
        # one, and places any that fits: no head-of-line blocking, and no preemption (preemptionPolicy: Never).
        ordered_pending = sorted(pending, key=lambda x: -x.time_limit_s)
        pending.clear()
        for a in ordered_pending:
            i = place(a)
            if i is None:
                pending.append(a)
                continue
            node = nodes[i]
            node.cpus -= a.cpus + SIDECAR_CPUS
            node.memory_gib -= a.memory_gib + SIDECAR_GIB
            node.running += 1
            heapq.heappush(events, (now + a.duration_s, a.index, i))

    def dispatch() -> None:
        blocked: deque[SimAttempt] = deque()
        while queue:
            a = queue.popleft()
            if policy.can_start(a.profile):
                policy.start(a.profile)
                pending.append(a)
            else:
                blocked.append(a)
                if sum(policy.used.values()) >= policy.total:
                    break
        queue.extendleft(reversed(blocked))

    dispatch()
    schedule()
    while events:
        now, index, i = heapq.heappop(events)
        a = by_index[index]
        node = nodes[i]
        node.cpus += a.cpus + SIDECAR_CPUS
        node.memory_gib += a.memory_gib + SIDECAR_GIB
        node.running -= 1
        share = 1.0 if a.exclusive else 1.0 / max(1, per_node(by_pool[a.pool], a.cpus, a.memory_gib))
        busy[a.pool] = busy.get(a.pool, 0.0) + a.duration_s * share
        policy.finish(a.profile)
        dispatch()
        schedule()
    if queue or pending:
        raise RuntimeError(f"{len(queue) + len(pending)} attempts could never be placed")
    bound = lower_bound(attempts, pools)
    capacity = {p.name: p.nodes * now for p in pools}
    return SimResult(
        makespan_s=now,
        lower_bound_s=bound,
        attempts=len(attempts),
        busy_fraction={k: v / capacity[k] for k, v in busy.items() if capacity.get(k)},
    )


def synthetic_sweep(
    n_single: int,
    n_workflow: int,
    *,
    single_pool: str = "single",
    workflow_pool: str = "workflow",
    workflow_cpus: float = 30.0,
    workflow_gib: float = 120.0,
    seed: int = 0,
) -> list[SimAttempt]:
    """Attempts shaped like the default profiles, in submission order (workflows spread evenly among singles).

    Singles: 4 CPU / 16 GiB, median 15 min, limit 1 h. Workflows: a whole node, median 2 h, limit 5 h. A few of
    each hit their limit.
    """
    rng = random.Random(seed)
    total = n_single + n_workflow
    workflows = {k * total // n_workflow for k in range(n_workflow)} if n_workflow else set()
    out: list[SimAttempt] = []
    for i in range(total):
        if i in workflows:
            duration = min(5 * 3600.0, rng.lognormvariate(math.log(2 * 3600), 0.5))
            out.append(SimAttempt(i, "workflow", workflow_pool, workflow_cpus, workflow_gib, True, 5 * 3600,
                                  duration, i // 50, f"wf{i % 7}"))  # fmt: skip
        else:
            duration = min(3600.0, rng.lognormvariate(math.log(15 * 60), 0.8))
            out.append(SimAttempt(i, "single", single_pool, 4.0, 16.0, False, 3600, duration, i // 50,
                                  f"t{i % 23}"))  # fmt: skip
    return out
