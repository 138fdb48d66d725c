"""A sweep on a Ray cluster of three nodes on this machine, each started by `ray start` as on real machines.

The head carries the driver only; node A has two single-task slots; node B two single-task slots and the only
workflow slot. Launchers ask for those resources (the spec's launcher_resources), so Ray must place single-task
launchers on both nodes and workflow launchers on B alone. Node A is killed mid-sweep and a replacement joins (as an
autoscaler would add one): the attempts that ran on A are infrastructure retries, nothing is lost or counted twice,
and every record lands in the one Parquet store. Fake attempts keep it fast; Ray, the driver and the store are real.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from cmb.store import ParquetStore
from tests.processes import free_port, wait_for
from tests.scheduler.fakes import launches, make_suite

pytest.importorskip("ray")
pytestmark = [pytest.mark.ray, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]
TRIALS = 8
SINGLE_TASKS, WORKFLOWS, AGENTS = 3, 1, 2
N = (SINGLE_TASKS + WORKFLOWS) * TRIALS * AGENTS  # each task under its one condition of the sweep (SF or WF)
OBJECT_STORE_BYTES = 100 * 2**20
JOIN_S, JOIN_TRIES = 90, 3  # how long a node may take to register, and how many nodes are started before giving up
# A cluster on loopback, for one test: Ray's token authentication is left off, as for any single-user local cluster.
ENV = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": str(REPO)}


class RayNode:
    """One `ray start --block` process: a Ray node with its own ports, stopped with its process group."""

    started = 0  # nodes started so far: each gets a worker-port range of its own

    def __init__(self, log: Path, *args: str) -> None:
        ports = {
            f"--{name}": str(free_port())
            for name in (
                "node-manager-port", "object-manager-port", "metrics-export-port", "runtime-env-agent-port",
                "dashboard-agent-grpc-port", "dashboard-agent-listen-port",
            )
        }  # fmt: skip
        # Worker ports below the ephemeral range that free_port draws from, apart for each node.
        low = 20_000 + 2_000 * (RayNode.started % 6)
        RayNode.started += 1
        # A small object store: three nodes on one machine must not each claim 30 % of its memory.
        cmd = ["ray", "start", "--block", "--disable-usage-stats", "--num-cpus", "1", *args]
        cmd += ["--object-store-memory", str(OBJECT_STORE_BYTES)]
        cmd += [x for kv in ports.items() for x in kv] + [
            "--min-worker-port",
            str(low),
            "--max-worker-port",
            str(low + 999),
        ]
        self.log = log
        self.proc = subprocess.Popen(
            cmd, env=ENV, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
        )

    def tail(self, lines: int = 30) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the node and every process it started, at once
            self.proc.wait(timeout=30)


_NODES = """
import json, sys, ray
ray.init(address=sys.argv[1], log_to_driver=False, configure_logging=False)
alive = [n for n in ray.nodes() if n["Alive"]]
print(json.dumps({n["NodeID"]: sorted(k for k in n["Resources"] if k.startswith("cmb-")) for n in alive}))
"""


def _alive_nodes(address: str) -> dict[str, list[str]]:
    """The cluster's live nodes (node id -> its cmb resources), as the GCS reports them to a driver."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _NODES, address], env=ENV, capture_output=True, text=True, timeout=60
        )
    except subprocess.TimeoutExpired:  # a driver that cannot attach yet: the cluster is still starting
        return {}
    return json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 and done.stdout.strip() else {}


def join(address: str, log: Path, *args: str, nodes: int) -> RayNode:
    """Start a node and wait until the cluster has `nodes` live nodes. A node that exits or does not register in time
    (a port taken between choosing and binding it, a slow start on a loaded machine) is replaced by a new one, with
    fresh ports of its own; the error after the last try shows every try's log."""
    failures = []
    for attempt in range(1, JOIN_TRIES + 1):
        node = RayNode(log.with_name(f"{log.stem}-{attempt}{log.suffix}"), *args)

        def registered(node: RayNode = node) -> bool:
            if node.proc.poll() is not None:
                raise ChildProcessError(f"ray start exited {node.proc.returncode}")
            return len(_alive_nodes(address)) == nodes

        try:
            wait_for(registered, JOIN_S, f"{log.stem} to join")
            return node
        except (TimeoutError, ChildProcessError) as e:
            node.stop()
            failures.append(f"try {attempt}: {e}\n{node.tail()}")
    raise TimeoutError(f"{log.stem} did not join a cluster of {nodes} nodes:\n" + "\n".join(failures))


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, object]]:
    # A Ray temp folder of its own (short: it holds sockets), so that `ray start` leaves no address file in
    # /tmp/ray for a later ray.init() to take for a running cluster.
    temp = Path(tempfile.mkdtemp(prefix="cmb-ray-", dir="/tmp"))
    monkeypatch.setitem(ENV, "RAY_TMPDIR", str(temp))
    port = free_port()
    address = f"127.0.0.1:{port}"
    nodes: dict[str, RayNode] = {}
    try:
        head = ("--head", "--port", str(port), "--include-dashboard=false")
        nodes["head"] = join(address, tmp_path / "head.log", *head, nodes=1)
        nodes["a"] = join(
            address, tmp_path / "a.log", "--address", address, "--resources", '{"cmb-single": 2}', nodes=2
        )
        resources = '{"cmb-single": 2, "cmb-workflow-node": 1}'
        nodes["b"] = join(address, tmp_path / "b.log", "--address", address, "--resources", resources, nodes=3)
        yield {"address": address, "nodes": nodes, "tmp": tmp_path}
    finally:
        for node in reversed(list(nodes.values())):
            node.stop()
        shutil.rmtree(temp, ignore_errors=True)


def test_a_sweep_places_launchers_by_profile_and_survives_a_lost_node(cluster: dict[str, object]) -> None:
    address, nodes, tmp = str(cluster["address"]), cluster["nodes"], Path(str(cluster["tmp"]))
    assert isinstance(nodes, dict)
    by_resources = {",".join(v): k for k, v in _alive_nodes(address).items()}
    node_a, node_b = by_resources["cmb-single"], by_resources["cmb-single,cmb-workflow-node"]

    suite, home, log_dir = make_suite(tmp / "suite"), tmp / "home", tmp / "launches"
    spec = {
        "name": "two-nodes", "agents": ["oracle", "null"], "tasks": ["all"], "conditions": ["SF", "WF"],
        "trials": TRIALS, "max_concurrency": 5, "concurrency": {"single": 4, "workflow": 1}, "retry_backoff_s": 0,
        "launcher_resources": {"single": {"cmb-single": 1}, "workflow": {"cmb-workflow-node": 1}},
    }  # fmt: skip
    (tmp / "sweep.yaml").write_text(yaml.safe_dump(spec))
    driver = subprocess.Popen(
        [sys.executable, "-c", "from cmb.cli import main; main()", "--root", str(suite), "sweep"]
        + [str(tmp / "sweep.yaml"), "--address", address, "--mlflow-uri", "none"]
        + ["--attempt-fn", "tests.scheduler.fakes:fake_attempt"]
        + ["--attempt-option", f"log_dir={log_dir}", "--attempt-option", "sleep=1.0", "--no-progress", "--json"],
        env={**ENV, "CMB_HOME": str(home)}, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        # Node A is lost once it has run some single-task attempts, and a replacement node joins.
        def on_both() -> bool:
            ran = Counter((x["profile"], x["node"]) for x in launches(log_dir))
            return ran[("single", node_a)] >= 2 and ran[("single", node_b)] >= 1

        wait_for(on_both, 180, "single-task attempts to run on both nodes")
        before = launches(log_dir)
        nodes["a"].stop()
        nodes["a2"] = RayNode(tmp / "a2.log", "--address", address, "--resources", '{"cmb-single": 2}')
        out, err = driver.communicate(timeout=600)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == 0, (out + err)[-3000:]
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["done"] == summary["total"] == N and not summary["interrupted"], summary

    # Placement: single-task launchers on both nodes, workflow launchers on B alone.
    placed = Counter((x["profile"], x["node"]) for x in before)
    assert placed[("single", node_a)] >= 2 and placed[("single", node_b)] >= 1, placed
    every = launches(log_dir)
    assert {x["node"] for x in every if x["profile"] == "workflow"} == {node_b}

    # The lost node cost infrastructure retries only: every attempt once in the one store, with its real verdict.
    runs = ParquetStore(home / "results").runs("two-nodes", dedupe=False)
    assert runs.height == N and runs.get_column("key").n_unique() == N
    assert summary["retries"] >= 1 and runs.get_column("retries").sum() == summary["retries"]
    assert runs.filter(runs["failure_class"] == "infrastructure").height == 0
    passed = dict(zip(runs.get_column("key"), runs.get_column("passed"), strict=True))
    assert all(passed[k] == ("/oracle/" in k) for k in passed)
    assert summary["infrastructure"] == 0
    later = {x["node"] for x in every[len(before) :]} - {node_a, node_b}
    assert later, "the replacement node ran none of the retried attempts"
