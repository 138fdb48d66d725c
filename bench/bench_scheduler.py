"""The scheduler's costs, measured side by side in one run:

1. harness overhead per attempt (everything but the agent's own time: staging, sandbox start and teardown,
   network probe, collection, audit, grading, record) on the local and docker backends, with the `null` agent,
   on a sandbox from a warm pool (the sweeps' default) and on one made for the attempt, as a ratio to a bare
   `docker run --rm IMAGE true` of the same image; beside it, as the peer, Inspect AI's own sandboxes on a sample
   that runs `true` (where inspect-ai is installed and the sandbox's requirements are met);
2. scheduler throughput with no-op attempts (attempts/s through plan, slots, launchers, Parquet, and MLflow),
   on Ray launcher actors and on threads, after one untimed sweep (so that no row pays the driver process's
   first reading of the task files and loading of the check registry, which a long-lived process pays once);
3. a simulated large sweep (thousands of single and workflow attempts; discrete-event simulation of the driver's
   policy, a Kubernetes-like placement and a cloud's cluster autoscaler): makespan over its lower bound and billed
   over busy node-hours, for dedicated pools and one shared pool, under the driver's policy and alternatives.

    python bench/bench_scheduler.py [--repeats 5] [--attempts 400] [--rounds 3] [--image cmb-agent:slim]
                                    [--skip-harness] [--json]

With --json the figures go to stdout as JSON (each with the baseline measured beside it) and the table to stderr.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import Figures  # noqa: E402

from cmb.catalog import Catalog
from cmb.models import ResourceProfile, RunKey, SweepSpec
from cmb.scheduler import noop_attempt, run_sweep
from cmb.scheduler._sim import Cloud, SimAttempt, SimPool, simulate, synthetic_sweep
from cmb.settings import CmbSettings

ROOT = CmbSettings().root
TASK = "si-eos-analysis"
SETTLE_S = 2.0  # before each timed throughput run
PROFILE = ResourceProfile(name="single", cpus=1, memory_gib=1, time_limit_s=300, disk_gib=1)


OUT = sys.stdout  # the table; stderr when the figures go to stdout as JSON


def say(text: str = "") -> None:
    print(text, file=OUT)


def row(name: str, value: str, note: str = "") -> None:
    say(f"  {name:<46} {value:>16}  {note}")


def docker_image(image: str) -> bool:
    if shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "image", "inspect", image], capture_output=True, check=False).returncode == 0


def bare_docker_run(image: str, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(["docker", "run", "--rm", "--network", "none", image, "true"], check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def harness_overhead(backend: str, image: str, repeats: int, home: Path, pooled: bool) -> tuple[float, float]:
    """Median (overhead, wall) seconds of a null attempt: wall minus the agent's own time.

    `pooled`: the sandbox is claimed from a warm pool that had one ready, as in a sweep whose agents take longer
    than a sandbox takes to make: each timed attempt waits, untimed, until the pool has torn down the last one and
    made its spare, and a second more for the engine's own work after a removal (unmounts, network teardown): all
    of it happens while a real sweep's agents run, off the attempts' path. The own-sandbox figure pays it in full.
    """
    from cmb.agents import get_agent
    from cmb.runner import RunOptions, run_attempt
    from cmb.sandbox import drain_pools, get_backend
    from cmb.sandbox._pool import _POOLS

    entry = Catalog.load(ROOT).get(TASK)
    overheads, walls = [], []
    try:
        for i in range(repeats + 1):
            key = RunKey(sweep="bench", agent="null", task=TASK, condition=entry.conditions()[0], trial=i)
            options = RunOptions(home=home, image=image, profiles={entry.spec.resources: PROFILE},
                                 pool_spares=1 if pooled else None)  # fmt: skip
            for pool in _POOLS.values():
                deadline = time.monotonic() + 120
                while not pool.idle and time.monotonic() < deadline:
                    time.sleep(0.01)
                time.sleep(1.0)
            t0 = time.perf_counter()
            record = run_attempt(key, entry, get_agent("null"), get_backend(backend), options)
            wall = time.perf_counter() - t0
            if record.failure_class is not None and record.failure_class.value == "infrastructure":
                raise RuntimeError(f"{backend}: infrastructure failure: {record.audit_messages}")
            if i:  # the first one warms caches (imports, image layers) and, pooled, makes the pool
                walls.append(wall)
                overheads.append(wall - record.timings.agent)
    finally:
        drain_pools()
    return statistics.median(overheads), statistics.median(walls)


def inspect_peer(kind: str, repeats: int) -> tuple[float | None, str]:
    """Seconds per sample of Inspect AI's own `kind` sandbox on a sample that runs `true` in it (no model).

    Two evals of 1 and repeats + 1 samples, one sample at a time; the difference per added sample leaves out the
    eval's fixed start-up. None, with the reason, where Inspect or its sandbox's requirements are missing.
    """
    try:
        from inspect_ai import Task
        from inspect_ai import eval as inspect_eval
        from inspect_ai.dataset import Sample
        from inspect_ai.scorer import match
        from inspect_ai.solver import Generate, TaskState, solver
        from inspect_ai.util import sandbox
    except ImportError:
        return None, "inspect-ai not installed"

    @solver  # type: ignore[misc]
    def run_true() -> Any:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            await sandbox().exec(["true"])
            return state

        return solve

    logs_dir = tempfile.mkdtemp(prefix="cmb-bench-inspect-")

    def seconds(n: int) -> float:
        samples = [Sample(input="x", target="y", id=i) for i in range(n)]
        task = Task(dataset=samples, solver=run_true(), scorer=match(), sandbox=kind)
        t0 = time.perf_counter()
        logs = inspect_eval(task, model="mockllm/model", max_samples=1, display="none", log_dir=logs_dir,
                            log_samples=False)  # fmt: skip
        if logs[0].status != "success":
            raise RuntimeError(str(logs[0].error.message if logs[0].error else logs[0].status))
        return time.perf_counter() - t0

    try:
        seconds(1)  # imports, image, the sandbox's own first-use work
        one, many = seconds(1), seconds(repeats + 1)
    except Exception as exc:  # e.g. its docker sandbox asks for a newer engine than this machine has
        return None, f"{type(exc).__name__}: {exc}".splitlines()[0][:100]
    finally:
        shutil.rmtree(logs_dir, ignore_errors=True)
    return (many - one) / repeats, ""


def harness_section(args: argparse.Namespace, figures: Figures, tmp: Path) -> None:
    """Section 1: per-attempt harness overhead, warm pool and own sandbox, beside a bare docker run and Inspect."""
    say("\n1. harness overhead per attempt (null agent; wall time minus the agent's own time), median")
    if args.skip_harness:
        row("skipped", "-", "--skip-harness")
        return
    if not docker_image(args.image):
        row("skipped", "-", f"image {args.image} not found (bash deploy/image/build-local.sh slim)")
        return
    bare = bare_docker_run(args.image, args.repeats)
    bare_what = f"a bare `docker run --rm {args.image} true`"
    row(f"bare `docker run --rm {args.image} true`", f"{bare:.3f} s", "1.00x")
    for backend in ("local", "docker"):
        for pooled in (True, False):
            how = "warm pool" if pooled else "own sandbox"
            try:
                overhead, wall = harness_overhead(backend, args.image, args.repeats, tmp / f"home-{backend}", pooled)
            except Exception as exc:  # a backend that cannot run here is reported, not fatal
                row(f"cmb {backend}, {how}", "failed", f"{type(exc).__name__}: {exc}"[:80])
                continue
            row(f"cmb {backend}, {how} (wall {wall:.2f} s)", f"{overhead:.3f} s", f"{overhead / bare:.2f}x bare")
            name = f"harness_overhead_{backend}" + ("" if pooled else "_own_sandbox")
            figures.add(name, f"harness overhead per attempt, {backend} backend, {how}", overhead, "s", bare,
                        bare_what)  # fmt: skip
    for kind in ("local", "docker"):
        per, why = inspect_peer(kind, args.repeats)
        if per is None:
            row(f"peer: Inspect AI {kind} sandbox", "skipped", why)
            continue
        row(f"peer: Inspect AI {kind} sandbox, per sample", f"{per:.3f} s", f"{per / bare:.2f}x bare")
        figures.add(f"inspect_{kind}_per_sample", f"peer: Inspect AI's {kind} sandbox, seconds per trivial sample",
                    per, "s", bare, bare_what)  # fmt: skip


def throughput(executor: str, attempts: int, slots: int, mlflow: bool, home: Path) -> tuple[float, str]:
    """Attempts per second of no-op attempts through the whole driver (Ray already started), and a note.

    The clock runs from the call of run_sweep until every attempt is durable and counted (plan, launcher start-up
    and all); the end's wait for the MLflow mirror to catch up is left out of the rate and shown in the note.
    """
    entries = list(Catalog.load(ROOT).entries.values())
    singles = [e.id for e in entries if not e.is_workflow]
    trials = max(1, attempts // (len(singles) * 2))
    spec = SweepSpec(name=f"tp-{executor}-{int(mlflow)}", agents=["noop"], tasks=singles, conditions=["SF", "SR"],
                     trials=trials, max_concurrency=slots, profiles={"single": PROFILE})  # fmt: skip
    if mlflow:  # create the database before timing: that happens once per CMB_HOME, not per sweep
        from mlflow.tracking import MlflowClient

        from cmb.store import default_tracking_uri

        home.mkdir(parents=True, exist_ok=True)
        MlflowClient(default_tracking_uri(home)).search_experiments()
    # Each run starts from the same state: the dirty pages of the runs before written back, and Ray's worker pool
    # refilled (Ray replaces a killed launcher's worker process, which takes about a second to boot).
    os.sync()
    time.sleep(SETTLE_S)
    t0 = time.perf_counter()
    settings = CmbSettings(root=ROOT, store={"home": home})
    summary = run_sweep(spec, settings=settings, attempt_fn=noop_attempt, executor=executor,  # type: ignore[arg-type]
                        mlflow_uri=None if mlflow else "none", progress=False)  # fmt: skip
    elapsed = time.perf_counter() - t0 - summary.mlflow_wait_s
    assert summary.complete, summary
    note = "Ray launcher start-up included" if executor == "ray" else ""
    if summary.mlflow is not None:
        m = summary.mlflow
        note = f"mirror caught up {summary.mlflow_wait_s:.1f} s after: {m.logged} runs, {m.pending} left"
    return summary.done / elapsed, note


def simulated_sweeps(figures: Figures) -> None:
    """Section 3: a 5,200-attempt sweep on an autoscaled cloud cluster, under the driver's policy and others."""
    cloud = Cloud()
    say("\n3. simulated 5,200-attempt sweeps on an autoscaled cloud cluster (discrete events)")
    say(
        f"  cloud: autoscaler scan {cloud.scan_s:.0f} s, node boot {cloud.boot_s:.0f} s, {cloud.image_gib} GiB image "
        f"pulled at {cloud.pull_mb_s:.0f} MB/s ({cloud.pull_s:.0f} s), pod start {cloud.pod_start_s:.0f} s, "
        f"scale-down after {cloud.scale_down_s / 60:.0f} min, per-second billing ({cloud.min_billed_s:.0f} s min)"
    )
    say(
        "  LB: pool start-up (scan, boot, pod start) + max(longest attempt, work / max nodes); billed: node request "
        "to removal; busy: attempts' node shares; CPU-h weigh nodes by size; late: pods pending > 15 min"
    )
    dedicated = synthetic_sweep(5000, 200, seed=7)
    shared = synthetic_sweep(5000, 200, single_pool="all", workflow_pool="all", seed=7)

    def pools(workflow_nodes: int) -> list[SimPool]:
        return [SimPool("single", 40, 15.5, 60.0), SimPool("workflow", workflow_nodes, 31.5, 124.0)]

    today, chosen = pools(32), pools(44)  # workflow pool sized to its work; with headroom for the long tail
    big = [SimPool("all", 52, 31.5, 124.0)]  # the CPUs of 40 single + 32 workflow nodes, in one pool
    capacity = {"single": 7 * 52, "workflow": 52}
    split = {"single": 7 * 20, "workflow": 32}  # no pod waits for capacity that workflows hold
    runs: list[tuple[str, str, list[SimAttempt], list[SimPool], dict[str, int], dict[str, Any]]] = [
        ("dedicated_today", "dedicated 40 + 32 nodes, longest limit first", dedicated, today,
         {"single": 120, "workflow": 32}, {}),
        ("dedicated_today_submission", "dedicated 40 + 32 nodes, submission order", dedicated, today,
         {"single": 120, "workflow": 32}, {"ordered": False}),
        ("dedicated", "dedicated 40 + 44 nodes, longest limit first [chosen]", dedicated, chosen,
         {"single": 120, "workflow": 44}, {}),
        ("dedicated_submission", "  submission order", dedicated, chosen, {"single": 120, "workflow": 44},
         {"ordered": False}),
        ("dedicated_prepulled", "  image pre-pulled", dedicated, chosen, {"single": 120, "workflow": 44},
         {"cloud": replace(cloud, prepulled=True)}),
        ("dedicated_scale_down_2min", "  scale-down after 2 min", dedicated, chosen,
         {"single": 120, "workflow": 44}, {"cloud": replace(cloud, scale_down_s=120.0)}),
        ("dedicated_scale_down_30min", "  scale-down after 30 min", dedicated, chosen,
         {"single": 120, "workflow": 44}, {"cloud": replace(cloud, scale_down_s=1800.0)}),
        ("dedicated_fixed", "  fixed nodes, no autoscaling", dedicated, chosen, {"single": 120, "workflow": 44},
         {"cloud": None}),
        ("dedicated_clairvoyant", "  reference: longest actual duration first", dedicated, chosen,
         {"single": 120, "workflow": 44}, {"clairvoyant": True}),
        ("shared_capacity", "shared 52 nodes, slots = pool capacity per profile", shared, big, capacity, {}),
        ("shared", "shared 52 nodes, 32 workflow + 140 single slots", shared, big, split, {}),
        ("shared_weighted", "shared 52 nodes, slot_weights workflow 7 [chosen]", shared, big, capacity,
         {"weights": {"workflow": 7}}),
        ("shared_weighted_submission", "  the same, submission order", shared, big, capacity,
         {"weights": {"workflow": 7}, "ordered": False}),
    ]  # fmt: skip
    say(f"  {'policy':<54} {'makespan / LB':>22} {'billed / busy CPU-h':>26} {'peak':>5} {'late':>5}")
    for tag, label, attempts, sim_pools, slots, options in runs:
        weighted = "weights" in options
        total = capacity["single"] if weighted else sum(slots.values())
        r = simulate(attempts, sim_pools, slots, total, **{"cloud": cloud, **options})
        span = f"{r.ratio:.3f}x {r.makespan_s / 3600:5.1f}/{r.lower_bound_s / 3600:.1f} h"
        cost = f"{r.cost_ratio:.3f}x {r.billed_cpu_h:7,.0f}/{r.busy_cpu_h:,.0f}"
        say(f"  {label:<54} {span:>22} {cost:>26} {sum(r.peak_nodes.values()):>5} {r.late:>5}")
        what = f"simulated 5,200-attempt autoscaled sweep, {label.strip()}"
        figures.add(f"sim_{tag}", f"{what}: makespan", r.makespan_s / 3600, "h", r.lower_bound_s / 3600,
                    "its lower bound")  # fmt: skip
        figures.add(f"sim_{tag}_billed", f"{what}: billed node-hours (CPU-weighted)", r.billed_cpu_h, "CPU-h",
                    r.busy_cpu_h, "busy node-hours (CPU-weighted)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--attempts", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3, help="throughput runs per configuration (median)")
    parser.add_argument("--image", default="cmb-agent:slim")
    parser.add_argument("--skip-harness", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON (the table goes to stderr)")
    args = parser.parse_args()
    global OUT
    OUT = sys.stderr if args.json else sys.stdout
    figures = Figures("scheduler")
    tmp = Path(tempfile.mkdtemp(prefix="cmb-bench-"))
    say(f"bench_scheduler · {datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {sys.platform} · tmp {tmp}")
    harness_section(args, figures, tmp)

    say(f"\n2. scheduler throughput, no-op attempts, ~{args.attempts} per run, median of {args.rounds} rounds")
    from cmb.scheduler import _ray

    _ray.connect(num_cpus=2)
    # Each mirror run right after its Parquet-only twin, so that both meet the machine in the same state.
    configs = (("ray", 4, False), ("ray", 4, True), ("ray", 8, False), ("ray", 8, True), ("ray", 32, False),
               ("threads", 8, False))  # fmt: skip
    runs: dict[tuple[str, int, bool], list[tuple[float, str]]] = {c: [] for c in configs}
    try:
        throughput("threads", 1, 1, False, tmp / "tp-warm-up")
        for n in range(args.rounds):  # rounds, not repeats back to back: a slow spell of the machine hits all alike
            for executor, slots, mlflow in configs:
                home = tmp / f"tp-{executor}-{slots}-{mlflow}-{n}"
                runs[(executor, slots, mlflow)].append(throughput(executor, args.attempts, slots, mlflow, home))
    finally:
        _ray.disconnect()
    rates: dict[tuple[str, int, bool], float] = {}
    for (executor, slots, mlflow), got in runs.items():
        rate = statistics.median(r for r, _ in got)
        rates[(executor, slots, mlflow)] = rate
        what = f"{executor} launchers, {slots} slots" + (", MLflow sqlite mirror" if mlflow else ", Parquet only")
        spread = " / ".join(f"{r:.0f}" for r, _ in got)
        row(what, f"{rate:.1f} att/s", f"rounds {spread}; {got[-1][1]}".rstrip("; "))
    threads = rates.get(("threads", 8, False))
    for slots in (4, 8, 32):
        if ("ray", slots, False) in rates:
            figures.add(f"throughput_ray_{slots}_slots", f"no-op attempts per second, Ray launchers, {slots} slots",
                        rates[("ray", slots, False)], "attempts/s", threads, "threads launchers, 8 slots")  # fmt: skip
    for slots in (4, 8):
        if ("ray", slots, True) in rates:
            tag = "throughput_ray_mlflow" + ("" if slots == 4 else f"_{slots}_slots")
            figures.add(tag, f"no-op attempts per second, Ray, {slots} slots, sqlite MLflow mirror",
                        rates[("ray", slots, True)], "attempts/s", rates.get(("ray", slots, False)),
                        "the same, Parquet only")  # fmt: skip

    simulated_sweeps(figures)
    shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        figures.dump()


if __name__ == "__main__":
    main()
