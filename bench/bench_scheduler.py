"""The scheduler's costs, measured side by side in one run:

1. harness overhead per attempt (everything but the agent's own time: staging, sandbox start and teardown,
   network probe, collection, audit, grading, record) on the local and docker backends, with the `null` agent,
   as a ratio to a bare `docker run --rm IMAGE true` of the same image;
2. scheduler throughput with no-op attempts (attempts/s through plan, slots, launchers, Parquet, and MLflow),
   on Ray launcher actors and on threads;
3. the makespan of a simulated large sweep (thousands of single and workflow attempts on a cluster of many
   nodes, discrete-event simulation of the driver's policy and a Kubernetes-like placement) over its lower bound.

    python bench/bench_scheduler.py [--repeats 5] [--attempts 400] [--image cmb-agent:slim] [--skip-harness] [--json]

With --json the figures go to stdout as JSON (each with the baseline measured beside it) and the table to stderr.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import Figures  # noqa: E402

from cmb.catalog import Catalog
from cmb.models import ResourceProfile, RunKey, SweepSpec
from cmb.scheduler import noop_attempt, run_sweep
from cmb.scheduler._sim import SimPool, simulate, synthetic_sweep
from cmb.settings import CmbSettings

ROOT = CmbSettings().root
TASK = "si-eos-analysis"
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


def harness_overhead(backend: str, image: str, repeats: int, home: Path) -> tuple[float, float]:
    """Median (overhead, wall) seconds of a null attempt: wall minus the agent's own time."""
    from cmb.agents import get_agent
    from cmb.runner import RunOptions, run_attempt
    from cmb.sandbox import get_backend

    entry = Catalog.load(ROOT).get(TASK)
    overheads, walls = [], []
    for i in range(repeats + 1):
        key = RunKey(sweep="bench", agent="null", task=TASK, condition=entry.conditions()[0], trial=i)
        options = RunOptions(home=home, image=image, profiles={entry.spec.resources: PROFILE})
        t0 = time.perf_counter()
        record = run_attempt(key, entry, get_agent("null"), get_backend(backend), options)
        wall = time.perf_counter() - t0
        if record.failure_class is not None and record.failure_class.value == "infrastructure":
            raise RuntimeError(f"{backend}: infrastructure failure: {record.audit_messages}")
        if i:  # the first one warms caches (imports, image layers)
            walls.append(wall)
            overheads.append(wall - record.timings.agent)
    return statistics.median(overheads), statistics.median(walls)


def throughput(executor: str, attempts: int, slots: int, mlflow: bool, home: Path) -> float:
    """Attempts per second of no-op attempts through the whole driver (Ray already started)."""
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
    t0 = time.perf_counter()
    settings = CmbSettings(root=ROOT, store={"home": home})
    summary = run_sweep(spec, settings=settings, attempt_fn=noop_attempt, executor=executor,  # type: ignore[arg-type]
                        mlflow_uri=None if mlflow else "none", progress=False, per_launcher=1)  # fmt: skip
    elapsed = time.perf_counter() - t0
    assert summary.complete, summary
    return summary.done / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--attempts", type=int, default=400)
    parser.add_argument("--image", default="cmb-agent:slim")
    parser.add_argument("--skip-harness", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON (the table goes to stderr)")
    args = parser.parse_args()
    global OUT
    OUT = sys.stderr if args.json else sys.stdout
    figures = Figures("scheduler")
    tmp = Path(tempfile.mkdtemp(prefix="cmb-bench-"))
    say(f"bench_scheduler · {datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {sys.platform} · tmp {tmp}")

    say("\n1. harness overhead per attempt (null agent; wall time minus the agent's own time), median")
    if args.skip_harness:
        row("skipped", "-", "--skip-harness")
    elif not docker_image(args.image):
        row("skipped", "-", f"image {args.image} not found (bash deploy/image/build-local.sh slim)")
    else:
        bare = bare_docker_run(args.image, args.repeats)
        row(f"bare `docker run --rm {args.image} true`", f"{bare:.2f} s", "1.00x")
        for backend in ("local", "docker"):
            try:
                overhead, wall = harness_overhead(backend, args.image, args.repeats, tmp / f"home-{backend}")
            except Exception as exc:  # a backend that cannot run here is reported, not fatal
                row(f"cmb {backend} backend", "failed", f"{type(exc).__name__}: {exc}"[:80])
                continue
            row(
                f"cmb {backend} backend: overhead (wall {wall:.2f} s)",
                f"{overhead:.2f} s",
                f"{overhead / bare:.2f}x bare",
            )
            figures.add(f"harness_overhead_{backend}", f"harness overhead per attempt, {backend} backend", overhead,
                        "s", bare, f"a bare `docker run --rm {args.image} true`")  # fmt: skip

    say(f"\n2. scheduler throughput, no-op attempts, ~{args.attempts} per run")
    from cmb.scheduler import _ray

    _ray.connect(num_cpus=2)
    rates: dict[tuple[str, int, bool], float] = {}
    try:
        for executor, slots, mlflow in (("ray", 4, False), ("ray", 8, False), ("threads", 8, False),
                                        ("ray", 4, True)):  # fmt: skip
            rate = throughput(executor, args.attempts, slots, mlflow, tmp / f"tp-{executor}-{slots}-{mlflow}")
            what = f"{executor} launchers, {slots} slots" + (", MLflow sqlite mirror" if mlflow else ", Parquet only")
            row(what, f"{rate:.1f} att/s", "Ray launcher start-up included" if executor == "ray" else "")
            rates[(executor, slots, mlflow)] = rate
    finally:
        _ray.disconnect()
    threads = rates.get(("threads", 8, False))
    for slots in (4, 8):
        if ("ray", slots, False) in rates:
            figures.add(f"throughput_ray_{slots}_slots", f"no-op attempts per second, Ray launchers, {slots} slots",
                        rates[("ray", slots, False)], "attempts/s", threads, "threads launchers, 8 slots")  # fmt: skip
    if ("ray", 4, True) in rates:
        parquet_only = rates.get(("ray", 4, False))
        figures.add("throughput_ray_mlflow", "no-op attempts per second, Ray, 4 slots, sqlite MLflow mirror",
                    rates[("ray", 4, True)], "attempts/s", parquet_only, "the same, Parquet only")  # fmt: skip

    say("\n3. simulated sweeps (discrete events): makespan over its lower bound")
    scenarios = [
        ("dedicated", "dedicated pools: 40 single + 32 workflow nodes", 5000, 200,
         [SimPool("single", 40, 15.5, 60.0), SimPool("workflow", 32, 31.5, 124.0)], "single", "workflow"),
        ("shared", "one shared pool of 72 nodes", 5000, 200, [SimPool("all", 72, 31.5, 124.0)], "all", "all"),
    ]  # fmt: skip
    for tag, title, n_single, n_wf, pools, sp, wp in scenarios:
        attempts = synthetic_sweep(n_single, n_wf, single_pool=sp, workflow_pool=wp, seed=7)
        capacity_single = sum(p.nodes * int(p.cpus // 4.1) for p in pools if p.name == sp)
        capacity_wf = sum(p.nodes for p in pools if p.name == wp)
        slots = {"single": capacity_single, "workflow": capacity_wf}
        total = capacity_single + capacity_wf if sp != wp else capacity_single
        say(f"  {title}: {n_single} single + {n_wf} workflow attempts")
        labels = {
            (True, False): ("cmb-order", "    cmb order (longest time limit first)"),
            (False, False): ("submission-order", "    submission order"),
            (True, True): ("clairvoyant", "    reference: longest actual duration first"),
        }
        for (ordered, clairvoyant), (order, label) in labels.items():
            t0 = time.perf_counter()
            r = simulate(attempts, pools, slots, total, ordered=ordered, clairvoyant=clairvoyant)
            busy = ", ".join(f"{k} {v:.0%}" for k, v in r.busy_fraction.items())
            note = f"{r.makespan_s / 3600:.1f} h vs {r.lower_bound_s / 3600:.1f} h; nodes busy {busy}"
            row(label, f"{r.ratio:.3f}x LB", f"{note}; simulated in {time.perf_counter() - t0:.1f} s")
            what = f"simulated {n_single + n_wf:,}-attempt sweep, {title}, {label.strip()}: makespan"
            figures.add(f"sim_{tag}_{order}", what, r.makespan_s / 3600, "h", r.lower_bound_s / 3600,
                        "its lower bound")  # fmt: skip
    shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        figures.dump()


if __name__ == "__main__":
    main()
