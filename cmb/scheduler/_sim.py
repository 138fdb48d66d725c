"""A discrete-event simulation of the driver's scheduling policy on a cluster, for benchmarks.

The simulated driver is the real policy: attempts in `dispatch_key` order, a `SlotPolicy` of slots per profile
plus an overall cap. Dispatched attempts become pods that a simple Kubernetes-like scheduler places first-fit on
ready nodes (requests = limits, the `files` helper container included; node-exclusive attempts need an empty node
of their pool); pods that fit nowhere wait in its queue, in order. Durations are drawn from lognormal laws and
capped at the time limit, which the driver never knows in advance.

Nodes are either all there from the start (`cloud=None`: the idealised cluster of fixed size) or come and go as
a cloud's cluster autoscaler makes them (`Cloud`): pending pods are seen at its next scan, a node is requested,
boots, pulls the image at its first pod (unless pre-pulled), and is removed once it has been empty for the
scale-down delay. A node is billed from its request to its removal.

The makespan is compared with a lower bound that no scheduler on the same cluster can beat, and the billed
node-hours with the busy ones (each attempt's share of its node for its duration).
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
from collections import deque
from dataclasses import dataclass, field

from cmb.scheduler._driver import SlotPolicy
from cmb.scheduler._plan import dispatch_key

SIDECAR_CPUS = 0.1
SIDECAR_GIB = 0.125
SCHEDULE_TIMEOUT_S = 900.0  # the Kubernetes backend's default: a pod pending longer fails the launch


@dataclass(frozen=True)
class Cloud:
    """How a managed Kubernetes cluster on a public cloud adds, readies, removes and bills nodes.

    The defaults are typical of EKS or GKE with the Kubernetes cluster autoscaler and the full agent image.
    """

    scan_s: float = 10.0  # the autoscaler's --scan-interval default: it sees a pending pod at its next scan
    boot_s: float = 90.0  # VM launch, OS boot and kubelet join until the node is Ready: 60-90 s on EKS and GKE
    image_gib: float = 1.4  # the full agent image, pulled once per node (imagePullPolicy IfNotPresent)
    pull_mb_s: float = 60.0  # registry pull and unpack on one node: 50-100 MB/s (disk throughput, gunzip)
    prepulled: bool = False  # the image baked into the node image, so a new node pulls nothing
    pod_start_s: float = 5.0  # a bound pod to a running agent: sandbox, `files` container staging the workspace
    scale_down_s: float = 600.0  # the autoscaler's --scale-down-unneeded-time default: an empty node stays 10 min
    min_billed_s: float = 60.0  # per-second billing with a one-minute minimum (EC2, Compute Engine, Azure VMs)

    @property
    def pull_s(self) -> float:
        """Seconds a new node takes to have the image."""
        return 0.0 if self.prepulled else self.image_gib * 2**30 / (self.pull_mb_s * 1e6)


# A cluster of fixed size with no delays: the idealised model `cloud=None` stands for.
_FIXED = Cloud(scan_s=0.0, boot_s=0.0, prepulled=True, pod_start_s=0.0, scale_down_s=math.inf, min_billed_s=0.0)


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
    """Identical nodes: allocatable CPUs and memory each.

    `nodes` is the pool's size (its maximum when autoscaled), `min_nodes` the autoscaler's floor.
    """

    name: str
    nodes: int
    cpus: float
    memory_gib: float
    min_nodes: int = 0


@dataclass
class _Node:
    pool: SimPool
    requested_s: float
    ready_s: float
    cpus: float
    memory_gib: float
    running: int = 0
    image_s: float | None = None  # when the image is on the node
    empty_since: float = 0.0
    removed_s: float | None = None


@dataclass
class SimResult:
    """Outcome of one simulated sweep. Node-seconds are per pool; busy ones are attempts' shares of their nodes."""

    makespan_s: float
    lower_bound_s: float
    attempts: int
    busy_fraction: dict[str, float] = field(default_factory=dict)
    billed_node_s: dict[str, float] = field(default_factory=dict)
    busy_node_s: dict[str, float] = field(default_factory=dict)
    peak_nodes: dict[str, int] = field(default_factory=dict)
    node_cpus: dict[str, float] = field(default_factory=dict)
    max_wait_s: float = 0.0  # the longest a dispatched attempt's pod waited for a node
    late: int = 0  # pods that waited longer than SCHEDULE_TIMEOUT_S: failed launches on a real cluster

    @property
    def ratio(self) -> float:
        """Makespan over its lower bound (1.0 is optimal)."""
        return self.makespan_s / self.lower_bound_s

    @property
    def cost_ratio(self) -> float:
        """Billed over busy node-hours, pools weighted by node size (a cloud's price follows the CPUs)."""
        return self.billed_cpu_h / self.busy_cpu_h

    @property
    def billed_cpu_h(self) -> float:
        """Billed node-hours times their nodes' allocatable CPUs."""
        return sum(s * self.node_cpus[k] for k, s in self.billed_node_s.items()) / 3600

    @property
    def busy_cpu_h(self) -> float:
        """Busy node-hours times their nodes' allocatable CPUs."""
        return sum(s * self.node_cpus[k] for k, s in self.busy_node_s.items()) / 3600


def per_node(pool: SimPool, cpus: float, memory_gib: float) -> int:
    """How many attempts of a size one node of the pool holds."""
    return int(min(pool.cpus // (cpus + SIDECAR_CPUS), pool.memory_gib // (memory_gib + SIDECAR_GIB)))


def share(pool: SimPool, a: SimAttempt) -> float:
    """The part of a node an attempt takes: all of it when exclusive, else one over the attempts of its size."""
    return 1.0 if a.exclusive else 1.0 / max(1, per_node(pool, a.cpus, a.memory_gib))


def lower_bound(attempts: list[SimAttempt], pools: list[SimPool], cloud: Cloud | None = None) -> float:
    """Per pool, its start-up time plus the larger of its longest attempt and its node-seconds over its nodes.

    Start-up is the least time before an attempt can run: a pod start, after an autoscaler scan and a node boot
    where the pool starts empty. Image pulls are left out, as pre-pulling avoids them.
    """
    by_pool = {p.name: p for p in pools}
    longest: dict[str, float] = {}
    node_seconds: dict[str, float] = {}
    for a in attempts:
        longest[a.pool] = max(longest.get(a.pool, 0.0), a.duration_s)
        node_seconds[a.pool] = node_seconds.get(a.pool, 0.0) + a.duration_s * share(by_pool[a.pool], a)
    bound = 0.0
    for name, seconds in node_seconds.items():
        pool = by_pool[name]
        start = 0.0 if cloud is None else cloud.pod_start_s + (0.0 if pool.min_nodes else cloud.scan_s + cloud.boot_s)
        bound = max(bound, start + max(longest[name], seconds / pool.nodes))
    return bound


def simulate(
    attempts: list[SimAttempt],
    pools: list[SimPool],
    slots: dict[str, int],
    total_slots: int,
    *,
    ordered: bool = True,
    clairvoyant: bool = False,
    cloud: Cloud | None = None,
    weights: dict[str, int] | None = None,
) -> SimResult:
    """Run the sweep in the driver's order, on fixed nodes (`cloud=None`) or on an autoscaled cloud cluster.

    `ordered=False` dispatches in submission order instead; `clairvoyant=True` longest actual duration first, a
    reference no real driver can reach (it needs to know the future). `weights` is the sweep's `slot_weights`: an
    attempt of a profile counts as that many slots of the overall cap (a node-exclusive workflow as a node's worth
    of single tasks).
    """
    if clairvoyant:
        queue = deque(sorted(attempts, key=lambda a: -a.duration_s))
    else:
        queue = deque(sorted(attempts, key=SimAttempt.key) if ordered else attempts)
    model = cloud or _FIXED
    policy = SlotPolicy(slots, total_slots, weights)
    by_pool = {p.name: p for p in pools}
    nodes: dict[str, list[_Node]] = {p.name: [] for p in pools}
    rank = {a.index: i for i, a in enumerate(queue)}  # FIFO within a priority: the order of dispatch
    pending: list[SimAttempt] = []  # dispatched, waiting for the Kubernetes scheduler
    dispatched: dict[int, float] = {}
    events: list[tuple[float, int, str, _Node | None, SimAttempt | None]] = []
    seq = itertools.count()
    busy: dict[str, float] = {}
    result = SimResult(0.0, lower_bound(attempts, pools, cloud), len(attempts))
    tick_due = False
    now = 0.0

    def push(at: float, kind: str, node: _Node | None = None, a: SimAttempt | None = None) -> None:
        heapq.heappush(events, (at, next(seq), kind, node, a))

    def request(pool: SimPool, ready_s: float) -> _Node:
        node = _Node(pool, now, ready_s, pool.cpus, pool.memory_gib, empty_since=ready_s)
        nodes[pool.name].append(node)
        alive = sum(n.removed_s is None for n in nodes[pool.name])
        result.peak_nodes[pool.name] = max(result.peak_nodes.get(pool.name, 0), alive)
        return node

    for p in pools:  # fixed nodes, or the autoscaler's floor, there from the start with the image
        for _ in range(p.nodes if cloud is None else p.min_nodes):
            request(p, 0.0).image_s = 0.0

    def fits(node: _Node, a: SimAttempt) -> bool:
        return (
            node.cpus >= a.cpus + SIDECAR_CPUS
            and node.memory_gib >= a.memory_gib + SIDECAR_GIB
            and not (a.exclusive and node.running)
        )

    def take(node: _Node, a: SimAttempt) -> None:
        node.cpus -= a.cpus + SIDECAR_CPUS
        node.memory_gib -= a.memory_gib + SIDECAR_GIB
        node.running += 1

    def schedule() -> None:
        # The Kubernetes scheduler takes pending pods by priority (workflow's PriorityClass is higher), FIFO within
        # one, and places any that fits: no head-of-line blocking, and no preemption (preemptionPolicy: Never).
        nonlocal tick_due
        pending.sort(key=lambda x: (-x.time_limit_s, rank[x.index]))
        waiting: list[SimAttempt] = []
        unfit: set[tuple[str, float, float, bool]] = set()  # shapes that found no node: the same will not
        for a in pending:
            shape = (a.pool, a.cpus, a.memory_gib, a.exclusive)
            node = None
            if shape not in unfit:
                ready = (n for n in nodes[a.pool] if n.removed_s is None and n.ready_s <= now)
                node = next((n for n in ready if fits(n, a)), None)
            if node is None:
                unfit.add(shape)
                waiting.append(a)
                continue
            take(node, a)
            if node.image_s is None:
                node.image_s = now + model.pull_s
            wait = now - dispatched[a.index]
            result.max_wait_s = max(result.max_wait_s, wait)
            result.late += wait > SCHEDULE_TIMEOUT_S
            push(max(now, node.image_s) + model.pod_start_s + a.duration_s, "end", node, a)
        pending[:] = waiting
        if waiting and cloud is not None and not tick_due:
            tick_due = True
            push((math.floor(now / model.scan_s) + 1) * model.scan_s, "scan")

    def scale_up() -> None:
        # The autoscaler's estimate: pending pods go first onto nodes still booting, then onto as few new nodes as
        # hold them, up to the pool's size.
        for pool in pools:
            booting = [n for n in nodes[pool.name] if n.removed_s is None and n.ready_s > now]
            alive = sum(n.removed_s is None for n in nodes[pool.name])
            room = [_Node(pool, 0.0, 0.0, n.cpus, n.memory_gib, n.running) for n in booting]
            new = 0
            for a in (a for a in pending if a.pool == pool.name):
                node = next((n for n in room if fits(n, a)), None)
                if node is None and alive + new < pool.nodes:
                    node = _Node(pool, 0.0, 0.0, pool.cpus, pool.memory_gib)
                    if not fits(node, a):
                        continue
                    room.append(node)
                    new += 1
                if node is not None:
                    take(node, a)
            for _ in range(new):
                push(now + model.boot_s, "ready", request(pool, now + model.boot_s))

    def dispatch() -> None:
        blocked: deque[SimAttempt] = deque()
        while queue:
            a = queue.popleft()
            if policy.can_start(a.profile):
                policy.start(a.profile)
                pending.append(a)
                dispatched[a.index] = now
            else:
                blocked.append(a)
                if policy.taken() >= policy.total:
                    break
        queue.extendleft(reversed(blocked))

    def idle(node: _Node) -> None:
        node.empty_since = now
        if math.isfinite(model.scale_down_s):
            push(now + model.scale_down_s, "idle", node)

    dispatch()
    schedule()
    while events:
        now, _, kind, node, a = heapq.heappop(events)
        if node is None:  # an autoscaler scan
            tick_due = False
            scale_up()
        elif kind == "ready":
            schedule()
            if not node.running:
                idle(node)
        elif kind == "idle":  # removed if it has stayed empty since
            alive = sum(n.removed_s is None for n in nodes[node.pool.name])
            if not node.running and now >= node.empty_since + model.scale_down_s and alive > node.pool.min_nodes:
                node.removed_s = now
        else:
            assert a is not None
            node.cpus += a.cpus + SIDECAR_CPUS
            node.memory_gib += a.memory_gib + SIDECAR_GIB
            node.running -= 1
            busy[a.pool] = busy.get(a.pool, 0.0) + a.duration_s * share(by_pool[a.pool], a)
            result.makespan_s = now
            policy.finish(a.profile)
            dispatch()
            schedule()
            if not node.running:
                idle(node)
    if queue or pending:
        raise RuntimeError(f"{len(queue) + len(pending)} attempts could never be placed")
    for name, pool_nodes in nodes.items():
        billed = [(n.removed_s if n.removed_s is not None else result.makespan_s) - n.requested_s for n in pool_nodes]
        result.billed_node_s[name] = sum(max(b, model.min_billed_s) for b in billed)
        result.busy_node_s[name] = busy.get(name, 0.0)
        result.node_cpus[name] = by_pool[name].cpus
    result.busy_fraction = {k: v / result.billed_node_s[k] for k, v in busy.items() if result.billed_node_s[k]}
    return result


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
