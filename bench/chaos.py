"""Chaos campaign: real sweeps on the docker backend with faults injected at seeded points, and what they cost.

Each round is one sweep of at least 60 attempts (the oracle, the null agent and a gateway agent over two tasks)
driven by `cmb sweep` on a Ray cluster of its own, with its Parquet results on a small tmpfs, an MLflow server as
the mirror and a `cmb gateway serve` process in front of a scripted model provider (a stand-in for a paid API).
The round's seed draws when each fault strikes (a fraction of the sweep's progress) and whom it hits:

  driver-kill      SIGKILL of the driver while attempts run; the campaign starts it again with --resume
  launcher-kill    SIGKILL of a busy Ray launcher actor
  dockerd-restart  dockerd stopped and started again (its running sandboxes die with it)
  mlflow-outage    the MLflow server down from a quarter to three quarters of the sweep
  gateway-kill     SIGKILL of the gateway while a gateway agent's attempt runs; a fresh one takes its port
  results-full     the results volume filled to ENOSPC, freed a few seconds later

Before the rounds, a calibration sweep without faults records what each (agent, task, condition) comes to
(passed, failure class, exit reason). After each round, with every service back: attempts lost (planned, no
record), counted twice (more than one record), misclassified (a final record unlike the calibration: an
infrastructure fault charged to the agent, or left as infrastructure), orphans (labelled containers, volumes and
networks left) and MLflow runs missing after the replay (`cmb mlflow-sync`). Target: all zero.

    python bench/chaos.py [--rounds 4] [--trials 5] [--seed 0] [--json]

Needs root (tmpfs mount, dockerd restart), a Docker engine, Ray, MLflow and the cmb-agent:slim image.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from cmb.models import RunKey  # noqa: E402
from cmb.store import ParquetStore  # noqa: E402
from tests.agents.builtin_scripts import CLIENT, FIT_CODE  # noqa: E402
from tests.gateway.scripted_upstream import ScriptedUpstream  # noqa: E402
from tests.processes import free_port, port_open, wait_for  # noqa: E402
from tests.store.mlflow_helpers import MlflowServer  # noqa: E402

TASKS = ("si-eos-analysis", "si-pw-scf-inputs")
AGENTS = ("oracle", "null", "chaos-probe")
CONDITIONS = ("SF", "SR")
IMAGE = "cmb-agent:slim"
UPSTREAM_KEY = "sk-chaos-upstream"
RESULTS_MIB = 64
ROUND_TIMEOUT_S = 1500.0
STRIKE_WAIT_S = 30.0  # a fault that needs a running attempt waits this long for one, then strikes anyway
GAP_DONE = 3  # attempts finished between two faults, so that each one's effects can be told apart
KINDS = ("driver-kill", "launcher-kill", "dockerd-restart", "mlflow-outage", "gateway-kill", "results-full")


def log(msg: str) -> None:
    print(f"[chaos {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# -- docker ------------------------------------------------------------------------------------------------------


def docker_client() -> Any:
    import docker

    return docker.from_env(timeout=30)


def docker_up() -> bool:
    try:
        return bool(docker_client().ping())
    except Exception:
        return False


def attempts_in_flight(artifacts: Path) -> set[str]:
    """Slugs of the attempts under way now: each builds its artifacts in a staging folder until it is recorded.

    (Not the sandboxes' names: an attempt whose sandbox came from a warm pool runs in one named by its pool.)
    """
    try:
        return {
            p.name[1:].split(".tmp-")[0] for p in artifacts.iterdir() if p.name.startswith(".") and ".tmp-" in p.name
        }
    except OSError:
        return set()


def labelled_objects() -> dict[str, list[str]]:
    """Everything cmb's sandboxes create, by kind (what is left once no harness runs is an orphan)."""
    client = docker_client()
    wanted = {"label": ["cmb=1"]}
    return {
        "containers": sorted(c.name for c in client.containers.list(all=True, filters=wanted)),
        "volumes": sorted(v.name for v in client.volumes.list(filters=wanted)),
        "networks": sorted(n.name for n in client.networks.list(filters=wanted)),
    }


_started: list[subprocess.Popen[bytes]] = []  # dockerds this process started (reaped here when they exit)


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie child of ours does not: it is reaped here)."""
    for child in _started:
        if child.pid == pid:
            return child.poll() is None
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


_argv: list[str] = []  # how dockerd was started, to start it the same way


def start_dockerd() -> None:
    out = (Path(tempfile.gettempdir()) / "cmb-chaos-dockerd.log").open("ab")  # noqa: SIM115 - dockerd keeps it
    _started.append(subprocess.Popen(_argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True))


def restart_dockerd() -> None:
    """Stop dockerd and start it again, as its service manager would (or as it was started, without one)."""
    managed = shutil.which("systemctl") and subprocess.run(["systemctl", "is-active", "--quiet", "docker"],
                                                            capture_output=True).returncode == 0  # fmt: skip
    if managed:
        subprocess.run(["systemctl", "restart", "docker"], check=True, timeout=120)
    else:
        pid = int(Path("/var/run/docker.pid").read_text().strip())
        argv = [a.decode() for a in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:-1]]
        _argv[:] = argv
        os.kill(pid, signal.SIGTERM)
        wait_for(lambda: not alive(pid), 60, "dockerd's exit")
        start_dockerd()
    wait_for(docker_up, 120, "dockerd's restart", step_s=0.5)


# -- the services of a round -------------------------------------------------------------------------------------


@dataclass
class Fault:
    """One injected fault: what, when (attempts done, of how many), whom it hit, and what became of it."""

    kind: str
    at: float  # fraction of the sweep's attempts done when it is due
    until: float | None = None  # mlflow-outage: back when this fraction is done
    struck_at_done: int | None = None
    hit: list[str] = field(default_factory=list)  # attempt keys running when it struck
    detail: str = ""


class Campaign:
    """The services every round shares: Ray, MLflow, the gateway and its scripted provider, the results tmpfs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.results = self.home / "results"
        self.ray_port = free_port()
        self.gateway_port = free_port()
        self.admin_key = "chaos-admin-" + os.urandom(8).hex()
        self.mlflow = MlflowServer(root / "mlflow")
        self.upstream = ScriptedUpstream([{"content": FIT_CODE}] * 100_000, key=UPSTREAM_KEY)
        self.gateway: subprocess.Popen[bytes] | None = None
        self.ray: subprocess.Popen[bytes] | None = None
        self.agents_file = root / "agents.yaml"
        self.ballast = self.results / ".ballast"
        self.ray_token = os.urandom(16).hex()  # Ray's token authentication, for this cluster alone

    # lifetime
    def __enter__(self) -> Campaign:
        self.results.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={RESULTS_MIB}m", "tmpfs", str(self.results)], check=True)
        probe = {"install": "-", "api": "openai-chat", "command": 'python3 -c "$CMB_CLIENT"',
                 "env": {"CMB_CLIENT": CLIENT}, "default_model": "chaos/fit-model"}  # fmt: skip
        doc = {"agents": {"chaos-probe": probe}}
        self.agents_file.write_text(json.dumps(doc))
        self.upstream.start()
        self.start_gateway()
        self.mlflow.start()
        # In the foreground (--block), in a session of its own, with its files here: stopping it stops this cluster
        # and no other, and a later ray.init() does not find it as "the running local cluster".
        self.ray = subprocess.Popen(
            ["ray", "start", "--head", "--block", f"--port={self.ray_port}", "--num-cpus=8", "--disable-usage-stats",
             "--include-dashboard=false", "--object-store-memory=200000000", f"--temp-dir={self.root / 'ray'}"],
            stdout=(self.root / "ray.log").open("ab"), stderr=subprocess.STDOUT, env=self.env(), start_new_session=True,
        )  # fmt: skip
        wait_for(lambda: port_open(self.ray_port), 180, "the Ray head")
        return self

    def __exit__(self, *exc: object) -> None:
        if _argv and not docker_up():  # the campaign broke off during a restart: leave the engine running
            start_dockerd()
        if self.ray is not None:
            self.ray.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.ray.wait(timeout=60)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.ray.pid, signal.SIGKILL)
        self.stop_gateway()
        self.mlflow.stop()
        self.upstream.stop()
        self.ballast.unlink(missing_ok=True)
        subprocess.run(["umount", "-l", str(self.results)], capture_output=True)

    # gateway
    def start_gateway(self) -> None:
        cmd = [sys.executable, "-c", "from cmb.cli import main; main()", "gateway", "serve", "--host", "127.0.0.1",
               "--host", "docker", "--port", str(self.gateway_port), "--admin-key", self.admin_key,
               "--upstream", f"chaos={self.upstream.base_url}", "--upstream-key-env", "chaos=CHAOS_UPSTREAM_KEY",
               "--records-dir", str(self.home / "gateway")]  # fmt: skip
        out = (self.root / "gateway.log").open("ab")
        env = {**os.environ, "CHAOS_UPSTREAM_KEY": UPSTREAM_KEY, "PYTHONPATH": str(REPO)}
        self.gateway = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        wait_for(lambda: port_open(self.gateway_port), 60, "the gateway")

    def stop_gateway(self, sig: int = signal.SIGTERM) -> None:
        if self.gateway is not None and self.gateway.poll() is None:
            self.gateway.send_signal(sig)
            self.gateway.wait(timeout=30)
        self.gateway = None

    # the results volume
    def fill_results(self) -> None:
        with self.ballast.open("wb") as f:
            chunk = b"\0" * 2**20
            with contextlib.suppress(OSError):
                while True:
                    f.write(chunk)
                    f.flush()

    def free_results(self) -> None:
        self.ballast.unlink(missing_ok=True)

    # a driver session
    def env(self) -> dict[str, str]:
        return {**os.environ, "CMB_HOME": str(self.home), "CMB_AGENTS_FILE": str(self.agents_file),
                "CMB_GATEWAY_ADMIN_KEY": self.admin_key, "PYTHONPATH": str(REPO),
                "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": self.ray_token}  # fmt: skip

    def driver(self, spec_file: Path, *, resume: bool, log_file: Path) -> subprocess.Popen[bytes]:
        cmd = [sys.executable, "-c", "from cmb.cli import main; main()", "sweep", str(spec_file),
               "--address", f"127.0.0.1:{self.ray_port}", "--mlflow-uri", self.mlflow.uri,
               "--gateway-url", f"http://127.0.0.1:{self.gateway_port}", "--image", IMAGE, "--no-progress",
               *(["--resume"] if resume else [])]  # fmt: skip
        out = log_file.open("ab")
        return subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=self.env(), cwd=REPO)

    def mlflow_sync(self, sweep: str) -> None:
        cmd = [sys.executable, "-c", "from cmb.cli import main; main()", "mlflow-sync", sweep,
               "--mlflow-uri", self.mlflow.uri]  # fmt: skip
        subprocess.run(cmd, env=self.env(), cwd=REPO, check=True, capture_output=True, timeout=600)


def launcher_pids(busy: bool) -> list[int]:
    """Ray launcher actor processes (their title says what they run)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            title = (proc / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        if title.startswith("ray::Launcher") and (not busy or title.startswith("ray::Launcher.run")):
            found.append(int(proc.name))
    return found


# -- a round -----------------------------------------------------------------------------------------------------


def planned_keys(sweep: str, trials: int) -> list[RunKey]:
    return [RunKey.parse(f"{sweep}/{a}/{t}/{c}/{n}") for a in AGENTS for t in TASKS for c in CONDITIONS
            for n in range(trials)]  # fmt: skip


def write_spec(path: Path, sweep: str, trials: int) -> None:
    spec = {"name": sweep, "agents": list(AGENTS), "tasks": list(TASKS), "conditions": list(CONDITIONS),
            "trials": trials, "backend": "docker", "max_concurrency": 2, "max_retries": 6, "retry_backoff_s": 1.0,
            "profiles": {"single": {"name": "single", "cpus": 1, "memory_gib": 2, "time_limit_s": 300,
                                    "disk_gib": 1}}}  # fmt: skip
    path.write_text(json.dumps(spec))


def schedule(rng: random.Random) -> list[Fault]:
    """One fault of each kind, at seeded points (the MLflow outage spans the middle half)."""
    faults = [Fault(kind, at=round(rng.uniform(0.08, 0.85), 3)) for kind in KINDS if kind != "mlflow-outage"]
    faults.append(Fault("mlflow-outage", at=0.25, until=0.75))
    return sorted(faults, key=lambda f: f.at)


class Round:
    """One sweep under its faults, driven to completion with `--resume` after every death of its driver."""

    def __init__(self, camp: Campaign, sweep: str, trials: int, faults: list[Fault], seed: str) -> None:
        self.camp, self.sweep, self.faults = camp, sweep, faults
        self.rng = random.Random(seed)
        self.keys = planned_keys(sweep, trials)
        self.by_slug = {k.slug: str(k) for k in self.keys}
        self.spec_file = camp.root / f"{sweep}.json"
        write_spec(self.spec_file, sweep, trials)
        self.log_file = camp.root / f"{sweep}.driver.log"
        self.store = ParquetStore(camp.results)
        self.sessions = 0
        self.recover_at: list[tuple[float, Callable[[], None]]] = []  # (monotonic deadline, what)
        self.mlflow_back: tuple[float, Callable[[], None]] | None = None

    def done(self) -> int:
        try:
            return len(self.store.done_keys(self.sweep))
        except Exception:  # a file renamed away under a reader
            return -1

    def running(self, agent: str | None = None) -> list[str]:
        flight = attempts_in_flight(self.camp.home / "artifacts" / self.sweep)
        keys = [self.by_slug[s] for s in flight if s in self.by_slug]
        return [k for k in keys if agent is None or RunKey.parse(k).agent == agent]

    def strike(self, fault: Fault, driver: subprocess.Popen[bytes]) -> None:
        camp = self.camp
        fault.hit = self.running()
        if fault.kind == "driver-kill":
            driver.send_signal(signal.SIGKILL)
        elif fault.kind == "launcher-kill":
            pids = launcher_pids(busy=True) or launcher_pids(busy=False)
            if pids:
                pid = self.rng.choice(sorted(pids))
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                fault.detail = f"launcher pid {pid}"
            else:
                fault.detail = "no launcher found"
        elif fault.kind == "dockerd-restart":
            t0 = time.monotonic()
            restart_dockerd()
            fault.detail = f"dockerd back after {time.monotonic() - t0:.1f} s"
        elif fault.kind == "gateway-kill":
            camp.stop_gateway(signal.SIGKILL)
            camp.start_gateway()
        elif fault.kind == "results-full":
            camp.fill_results()
            hold = round(self.rng.uniform(4.0, 12.0), 1)
            self.recover_at.append((time.monotonic() + hold, camp.free_results))
            fault.detail = f"full for {hold} s"
        elif fault.kind == "mlflow-outage":
            camp.mlflow.stop()
            self.mlflow_back = (fault.until or 0.75, camp.mlflow.start)

    def run(self) -> None:
        total = len(self.keys)
        pending = list(self.faults)
        due_since: dict[int, float] = {}
        last_strike = -GAP_DONE
        driver = self.camp.driver(self.spec_file, resume=False, log_file=self.log_file)
        self.sessions = 1
        deadline = time.monotonic() + ROUND_TIMEOUT_S
        while True:
            if time.monotonic() > deadline:
                driver.kill()
                raise TimeoutError(f"{self.sweep} did not finish within {ROUND_TIMEOUT_S:.0f} s")
            done = self.done()
            now = time.monotonic()
            for t, action in [r for r in self.recover_at if r[0] <= now]:
                action()
                self.recover_at.remove((t, action))
            if self.mlflow_back is not None and done >= self.mlflow_back[0] * total:
                self.mlflow_back[1]()
                self.mlflow_back = None
            due = pending and done >= max(pending[0].at * total, last_strike + GAP_DONE)
            if due and driver.poll() is None:
                fault = pending[0]
                needs = {"gateway-kill": "chaos-probe", "mlflow-outage": None, "results-full": None}
                agent = needs.get(fault.kind, "any")
                since = due_since.setdefault(id(fault), now)
                ready = agent is None or bool(self.running(None if agent == "any" else agent))
                if ready or now - since > STRIKE_WAIT_S:
                    fault.struck_at_done = done
                    log(f"{self.sweep}: {fault.kind} at {done}/{total} done, {len(self.running())} running")
                    self.strike(fault, driver)
                    pending.pop(0)
                    last_strike = done
            if driver.poll() is not None:
                if driver.returncode == 0 and self.done() == total:
                    self.faults = [f for f in self.faults if f.struck_at_done is not None]  # the sweep outran them
                    break
                time.sleep(1.0)
                log(f"{self.sweep}: driver exited {driver.returncode}; resuming ({self.done()}/{total} done)")
                driver = self.camp.driver(self.spec_file, resume=True, log_file=self.log_file)
                self.sessions += 1
            time.sleep(0.3)
        for _, action in self.recover_at:
            action()
        if self.mlflow_back is not None:
            self.mlflow_back[1]()


# -- figures -----------------------------------------------------------------------------------------------------


def signatures(store: ParquetStore, sweep: str) -> dict[tuple[str, str, str], tuple[Any, ...]]:
    rows = store.runs(sweep).iter_rows(named=True)
    return {(r["agent"], r["task"], r["condition"]): (r["passed"], r["failure_class"], r["exit_reason"]) for r in rows}


def mlflow_keys(uri: str, experiment: str) -> list[str]:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(uri)
    exp = client.get_experiment_by_name(experiment)
    if exp is None:
        return []
    runs = client.search_runs([exp.experiment_id], filter_string="tags.`cmb.role` = 'attempt'", max_results=5000)
    return [r.data.tags["cmb.key"] for r in runs]


def measure(rnd: Round, calibration: dict[tuple[str, str, str], tuple[Any, ...]]) -> dict[str, Any]:
    """What the round lost, doubled, misclassified and left, in all and per fault."""
    store, sweep = rnd.store, rnd.sweep
    raw = store.runs(sweep, dedupe=False)
    counts = Counter(raw.get_column("key").to_list())
    expected = {str(k) for k in rnd.keys}
    lost = sorted(expected - set(counts))
    doubled = sorted(k for k, n in counts.items() if n > 1)
    misclassified, retries = [], {}
    for r in store.runs(sweep).iter_rows(named=True):
        retries[r["key"]] = r["retries"]
        signature = (r["passed"], r["failure_class"], r["exit_reason"])
        if signature != calibration.get((r["agent"], r["task"], r["condition"])):
            misclassified.append(r["key"])
    rnd.camp.mlflow_sync(sweep)
    in_mlflow = Counter(mlflow_keys(rnd.camp.mlflow.uri, sweep))
    mlflow_missing = sorted(expected - set(in_mlflow))
    orphans = labelled_objects()
    bad = {"lost": lost, "doubled": doubled, "misclassified": sorted(misclassified)}
    faults = []
    for f in rnd.faults:
        hit = set(f.hit)
        faults.append({**asdict(f), "retried": sum(1 for k in hit if retries.get(k, 0) > 0),
                       **{name: sorted(hit & set(keys)) for name, keys in bad.items()}})  # fmt: skip
    return {
        "sweep": sweep,
        "attempts": len(expected),
        "driver_sessions": rnd.sessions,
        "retries": sum(retries.values()),
        **bad,
        "mlflow_missing": mlflow_missing,
        "mlflow_doubled": sorted(k for k, n in in_mlflow.items() if n > 1),
        "orphans": [name for names in orphans.values() for name in names],
        "faults": faults,
    }


def run_campaign(rounds: int, trials: int, seed: int, kinds: tuple[str, ...] = KINDS) -> dict[str, Any]:
    t0 = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="cmb-chaos-"))
    try:
        with Campaign(root) as camp:
            log("calibration sweep (no faults)")
            cal = Round(camp, f"chaos-cal-{seed}", 1, [], f"{seed}:cal")
            cal.run()
            calibration = signatures(cal.store, cal.sweep)
            results = []
            for r in range(rounds):
                faults = [f for f in schedule(random.Random(f"{seed}:{r}")) if f.kind in kinds]
                rnd = Round(camp, f"chaos-{seed}-{r}", trials, faults, f"{seed}:{r}:strike")
                log(f"round {r + 1}/{rounds}: {len(rnd.keys)} attempts, faults {[f.kind for f in faults]}")
                rnd.run()
                results.append(measure(rnd, calibration))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return summarise(results, seed, time.monotonic() - t0)


def summarise(rounds: list[dict[str, Any]], seed: int, seconds: float) -> dict[str, Any]:
    figures = ("lost", "doubled", "misclassified", "mlflow_missing", "mlflow_doubled", "orphans")
    by_kind: dict[str, Counter[str]] = {}
    for rnd in rounds:
        for f in rnd["faults"]:
            c = by_kind.setdefault(f["kind"], Counter())
            c["injected"] += 1
            c["hit"] += len(f["hit"])
            c["retried"] += f["retried"]
            for name in ("lost", "doubled", "misclassified"):
                c[name] += len(f[name])
    totals = {name: sum(len(r[name]) for r in rounds) for name in figures}
    return {
        "seed": seed,
        "rounds": len(rounds),
        "attempts": sum(r["attempts"] for r in rounds),
        "faults": sum(len(r["faults"]) for r in rounds),
        "retries": sum(r["retries"] for r in rounds),
        "driver_sessions": sum(r["driver_sessions"] for r in rounds),
        **totals,
        "ok": not any(totals.values()),
        "by_kind": {k: dict(v) for k, v in sorted(by_kind.items())},
        "seconds": round(seconds, 1),
        "details": rounds,
    }


def print_table(out: dict[str, Any]) -> None:
    print(f"chaos campaign, seed {out['seed']}: {out['rounds']} rounds, {out['attempts']} attempts, "
          f"{out['faults']} faults, {out['retries']} infrastructure retries, {out['seconds']:.0f} s")  # fmt: skip
    print(f"{'fault':<16} {'injected':>8} {'hit':>5} {'retried':>7} {'lost':>5} {'doubled':>7} {'misclass.':>9}")
    for kind, c in out["by_kind"].items():
        print(f"{kind:<16} {c.get('injected', 0):>8} {c.get('hit', 0):>5} {c.get('retried', 0):>7} "
              f"{c.get('lost', 0):>5} {c.get('doubled', 0):>7} {c.get('misclassified', 0):>9}")  # fmt: skip
    print(f"in all: lost {out['lost']}, doubled {out['doubled']}, misclassified {out['misclassified']}, "
          f"orphans {out['orphans']}, MLflow runs missing after replay {out['mlflow_missing']} "
          f"(doubled {out['mlflow_doubled']}): {'OK' if out['ok'] else 'FAILED'}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=4, help="sweeps, one fault of each kind in each")
    parser.add_argument("--trials", type=int, default=5, help="trials per agent, task and condition (5: 60 attempts)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out = run_campaign(args.rounds, args.trials, args.seed)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print_table(out)
    sys.exit(0 if out["ok"] else 1)


if __name__ == "__main__":
    main()
