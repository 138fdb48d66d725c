"""The live dashboard fed for real: a Prometheus of the test's own scrapes a running sweep's Ray metrics, and every
query of dashboards/cmb-sweeps.json returns what the sweep's store says.

A Ray head of the test's own (in a session of its own, as bench/chaos.py starts one) exports the driver's
ray_cmb_* metrics on a fixed port; Prometheus (Debian's `prometheus`, 2.42) scrapes it every second; a real
`cmb sweep --address` on the local backend runs oracle and null on two fast tasks, SF and SR, two trials each
(16 attempts). Then each panel's expression is evaluated through /api/v1/query and compared with the store.

A count the sweep never incremented (infrastructure failures, unpriced attempts) has no series in Prometheus at
all: Ray creates a counter's series on its first increment. For such a count "matches" means an empty result;
every other query must return at least one sample.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.processes import free_port, port_open, wait_for

REPO = Path(__file__).resolve().parents[2]
DASHBOARD = REPO / "dashboards" / "cmb-sweeps.json"
AGENTS = ("oracle", "null")
TASKS = ("si-pw-scf-inputs", "si-eos-analysis")
CONDITIONS = ("SF", "SR")
TRIALS = 2
ATTEMPTS = len(AGENTS) * len(TASKS) * len(CONDITIONS) * TRIALS
SWEEP = "live-dashboard"

pytestmark = [pytest.mark.slow, pytest.mark.ray]


def _prometheus() -> str:
    found = shutil.which("prometheus")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the prometheus binary is missing (scripts/setup.sh installs Debian's `prometheus`)")
        pytest.skip("needs the prometheus binary (apt-get install prometheus, or scripts/setup.sh)")
    return found


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group (Ray's head takes its raylet, GCS and workers with it), then SIGKILL what is left."""
    for sig, wait_s in ((signal.SIGTERM, 60), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            continue
        if sig == signal.SIGTERM:  # the head is gone; its children may linger a moment
            time.sleep(1)
    with_children = subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True, text=True).stdout.split()
    for pid in with_children:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass


@dataclass
class Cluster:
    ray_port: int
    metrics_port: int
    env: dict[str, str]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    # Ray's unix sockets live under its temp dir, and their paths must stay under 108 characters: a short folder.
    ray_tmp = Path(tempfile.mkdtemp(prefix="cmb-ray-", dir="/tmp"))
    ray_port, metrics_port = free_port(), free_port()
    env = {**os.environ, "CMB_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO),
           "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": os.urandom(16).hex(),  # this cluster alone
           "RAY_metrics_report_interval_ms": "1000", "RAY_USAGE_STATS_ENABLED": "0"}  # fmt: skip
    head = subprocess.Popen(
        ["ray", "start", "--head", "--block", f"--port={ray_port}", f"--metrics-export-port={metrics_port}",
         f"--temp-dir={ray_tmp}", "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats",
         "--object-store-memory=100000000"],
        stdout=(tmp_path / "ray.log").open("ab"), stderr=subprocess.STDOUT, env=env, start_new_session=True,
    )  # fmt: skip
    try:
        wait_for(
            lambda: port_open(ray_port) and port_open(metrics_port) or head.poll() is not None, 120, "the Ray head"
        )
        assert head.poll() is None, (tmp_path / "ray.log").read_text()[-3000:]
        yield Cluster(ray_port, metrics_port, env)
    finally:
        stop(head)
        shutil.rmtree(ray_tmp, ignore_errors=True)


@pytest.fixture
def prometheus(tmp_path: Path, cluster: Cluster) -> Iterator[str]:
    binary = _prometheus()
    port = free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(json.dumps({  # JSON is YAML
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "scrape_configs": [{"job_name": "ray", "static_configs": [{"targets": [f"127.0.0.1:{cluster.metrics_port}"]}]}],
    }))  # fmt: skip
    proc = subprocess.Popen(
        [binary, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
         f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=1h"],
        stdout=(tmp_path / "prometheus.log").open("ab"), stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        if proc.poll() is not None:
            raise AssertionError((tmp_path / "prometheus.log").read_text()[-3000:])
        try:
            return urllib.request.urlopen(url + "/-/ready", timeout=2).status == 200
        except OSError:
            return False

    try:
        wait_for(ready, 60, "Prometheus /-/ready")
        yield url
    finally:
        stop(proc)


def api(url: str, path: str, **params: str) -> Any:
    body = urllib.request.urlopen(f"{url}{path}?{urllib.parse.urlencode(params)}", timeout=10).read()
    reply = json.loads(body)
    assert reply["status"] == "success", reply
    return reply["data"]


def query(url: str, expr: str, at: float) -> dict[tuple[tuple[str, str], ...], float]:
    """An instant vector as {sorted labels: value}."""
    data = api(url, "/api/v1/query", query=expr, time=f"{at:.3f}")
    assert data["resultType"] == "vector", (expr, data)
    return {tuple(sorted(s["metric"].items())): float(s["value"][1]) for s in data["result"]}


def dashboard() -> tuple[list[tuple[str, str]], list[str]]:
    """(panel title, expr) of every target, and the templating queries."""
    board = json.loads(DASHBOARD.read_text())
    targets = [(p["title"], t["expr"]) for p in board["panels"] for t in p["targets"]]
    templating = [v["query"]["query"] for v in board["templating"]["list"] if isinstance(v.get("query"), dict)]
    return targets, templating


def substitute(expr: str) -> str:
    assert 'sweep=~"$sweep"' in expr or "$sweep" not in expr, expr
    return expr.replace("$sweep", SWEEP).replace("$agent", ".*")


def by(result: dict[tuple[tuple[str, str], ...], float], label: str) -> dict[str, float]:
    return {dict(k)[label]: v for k, v in result.items()}


def label(result: dict[tuple[tuple[str, str], ...], float]) -> str:
    """A vector as 'labels=value, ...', for the report."""
    return ", ".join(f"{','.join(v for _, v in k) or 'all'}={v:.4g}" for k, v in sorted(result.items()))


def only(result: dict[tuple[tuple[str, str], ...], float]) -> float:
    assert len(result) == 1, result
    return next(iter(result.values()))


def run_sweep(cluster: Cluster, tmp_path: Path) -> dict[str, Any]:
    cmd = [sys.executable, "-c", "from cmb.cli import main; main()", "sweep", "--sweep-id", SWEEP,
           "--agents", ",".join(AGENTS), "--tasks", ",".join(TASKS), "--conditions", ",".join(CONDITIONS),
           "--trials", str(TRIALS), "--backend", "local", "--address", f"127.0.0.1:{cluster.ray_port}",
           "--mlflow-uri", "none", "--max-concurrency", "2", "--no-progress", "--json"]  # fmt: skip
    proc = subprocess.run(cmd, env=cluster.env, cwd=REPO, capture_output=True, text=True, timeout=240, check=False)
    (tmp_path / "sweep.log").write_text(proc.stderr)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout)


def store_figures(home: Path) -> dict[str, Any]:
    """What the sweep recorded, from its Parquet store."""
    from cmb.store import ParquetStore

    rows = list(ParquetStore(home / "results").runs(SWEEP).iter_rows(named=True))
    agentic = [r for r in rows if r["failure_class"] != "infrastructure"]

    def rate(keep: Callable[[dict[str, Any]], bool]) -> float:
        chosen = [r for r in agentic if keep(r)]
        return sum(bool(r["passed"]) for r in chosen) / len(chosen)

    model = [r.get("model_cost_usd") for r in rows]
    return {
        "rows": rows,
        "attempts": len(rows),
        "finished": len(agentic),
        "infrastructure": len(rows) - len(agentic),
        "pass_rate": rate(lambda r: True),
        "by_agent": {a: rate(lambda r, a=a: r["agent"] == a) for a in AGENTS},
        "by_condition": {c: rate(lambda r, c=c: r["condition"] == c) for c in CONDITIONS},
        "unpriced": {
            a: sum(r["agent"] == a and r.get("model_cost_usd") is None and (r.get("requests") or 0) > 0 for r in rows)
            for a in AGENTS
        },  # fmt: skip
        "model_cost": sum(c or 0.0 for c in model),
        "compute_cost": sum(r.get("compute_cost_usd") or 0.0 for r in rows),
        "cost_by_agent": {
            a: sum(
                (r.get("model_cost_usd") or 0.0) + (r.get("compute_cost_usd") or 0.0) for r in rows if r["agent"] == a
            )
            for a in AGENTS
        },  # fmt: skip
    }


def test_every_dashboard_query_returns_the_sweeps_figures(
    cluster: Cluster, prometheus: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started_at = time.time()
    summary = run_sweep(cluster, tmp_path)
    truth = store_figures(tmp_path / "home")
    assert truth["attempts"] == ATTEMPTS and summary["done"] + summary["skipped"] == ATTEMPTS, summary
    assert truth["infrastructure"] == 0 and truth["finished"] == ATTEMPTS

    finished = f'sum(ray_cmb_attempts_finished_total{{sweep="{SWEEP}"}})'
    running = f'sum(ray_cmb_attempts_running{{sweep="{SWEEP}"}})'

    def series(expr: str) -> dict[float, float]:
        data = api(prometheus, "/api/v1/query_range", query=expr, start=f"{started_at:.3f}", end=f"{time.time():.3f}",
                   step="1")  # fmt: skip
        return {float(t): float(v) for s in data["result"] for t, v in s["values"]}

    # The metrics agent exports with a delay, and drops the driver's series a little after the driver exits (they
    # go stale in Prometheus): the queries are evaluated at the last second the scrapes showed the sweep complete,
    # every attempt counted and none running.
    def complete() -> list[float]:
        done, idle = series(finished), series(running)
        return [t for t, v in done.items() if v >= ATTEMPTS and idle.get(t) == 0.0]

    try:
        wait_for(lambda: bool(complete()), 60, "the sweep's metrics in Prometheus", step_s=1)
    except TimeoutError:
        names = api(prometheus, "/api/v1/label/__name__/values")
        cmb = [n for n in names if n.startswith("ray_cmb_")]
        raise AssertionError(
            f"Prometheus has not got the sweep's {ATTEMPTS} finished attempts; cmb series it holds: {cmb or 'none'}"
            f" (of {len(names)} metric names scraped from Ray). With none, the driver records no SweepMetrics."
        ) from None
    time.sleep(3)  # the scrapes after that second, should the series still be there
    at = max(complete())
    assert at - started_at < 600  # the [5m] window covers most of the sweep, [15m] and [30m] all of it

    targets, templating = dashboard()
    lines: list[str] = []
    checked: set[str] = set()

    def check(title: str, expr: str, result: dict[tuple[tuple[str, str], ...], float], figure: str) -> None:
        checked.add(expr)
        lines.append(f"{title:45} {figure}")

    def verify(title: str, raw: str) -> None:
        expr = substitute(raw)
        got = query(prometheus, expr, at)
        finite = all(math.isfinite(v) for v in got.values())
        if "histogram_quantile" in expr:
            assert got and finite, (expr, got)
            assert set(by(got, "condition")) == set(CONDITIONS), got
            assert all(0 <= v <= 60 for v in got.values()), got  # every attempt here takes well under a minute
            check(title, raw, got, f"{by(got, 'condition')} s (finite, under a minute)")
        elif "rate(" in expr:
            if 'outcome="infrastructure"' in expr:
                assert got == {}, (expr, got)  # no infrastructure failure: no series
                check(title, raw, got, "empty (0 infrastructure failures: no series)")
                return
            assert got and finite and all(v >= 0 for v in got.values()), (expr, got)
            if "by (outcome)" in expr:
                assert set(by(got, "outcome")) == {"pass", "fail"} and sum(got.values()) > 0, got
            elif "by (part)" in expr:
                assert set(by(got, "part")) == {"compute"} | ({"model"} if truth["model_cost"] > 0 else set()), got
            check(title, raw, got, f"{label(got)} (finite)")
        elif "ray_cmb_attempts_running" in expr or "ray_cmb_attempts_queued" in expr:
            assert only(got) == 0, (expr, got)
            check(title, raw, got, "0 at the end (store: every attempt recorded)")
        elif "/" in expr and "by (agent)" in expr:
            assert by(got, "agent") == pytest.approx(truth["by_agent"]), (got, truth["by_agent"])
            check(title, raw, got, f"{by(got, 'agent')} = store {truth['by_agent']}")
        elif "/" in expr and "by (condition)" in expr:
            assert by(got, "condition") == pytest.approx(truth["by_condition"]), (got, truth["by_condition"])
            check(title, raw, got, f"{by(got, 'condition')} = store {truth['by_condition']}")
        elif "/" in expr:
            assert only(got) == pytest.approx(truth["pass_rate"]), (got, truth["pass_rate"])
            check(title, raw, got, f"{only(got):.4f} = store {truth['pass_rate']:.4f}")
        elif 'outcome="infrastructure"' in expr:
            # a count never incremented has no series: the stat says 0 through `or vector(0)`, not "No data"
            assert truth["infrastructure"] == 0 and only(got) == 0, got
            check(title, raw, got, "0 = store 0 (no series, `or vector(0)`)")
        elif "ray_cmb_attempts_finished_total" in expr:
            assert only(got) == truth["finished"], got
            check(title, raw, got, f"{only(got):.0f} = store {truth['finished']}")
        elif "ray_cmb_attempts_unpriced_total" in expr:
            want = {a: n for a, n in truth["unpriced"].items() if n}
            assert by(got, "agent") == want, (got, truth["unpriced"])  # never-incremented: absent, not 0
            check(title, raw, got, f"{by(got, 'agent') or 'empty'} = store {truth['unpriced']}")
        elif "ray_cmb_cost_usd_total" in expr:
            want = {a: c for a, c in truth["cost_by_agent"].items() if c}
            assert by(got, "agent") == pytest.approx(want, rel=1e-6, abs=1e-9), (got, want)
            check(title, raw, got, f"{by(got, 'agent')} USD = store {want}")
        else:
            raise AssertionError(f"no check for the dashboard query {raw!r} ({title}): add one")

    for title, raw in targets:
        try:
            verify(title, raw)
        except AssertionError as exc:
            held = query(prometheus, f'{{__name__=~"ray_cmb_.+", sweep="{SWEEP}"}}', at)
            raise AssertionError(f"{title}: {raw}\n{exc}\nthe sweep's series at {at}: {sorted(held.items())}") from None

    for raw in templating:
        m = re.fullmatch(r"label_values\((.+),\s*(\w+)\)", raw)
        assert m, raw
        values = api(prometheus, f"/api/v1/label/{m[2]}/values", **{"match[]": substitute(m[1])})
        want = {"sweep": [SWEEP], "agent": sorted(AGENTS)}[m[2]]
        assert values == want, (raw, values)
        check(f"templating ${m[2]}", raw, {}, f"{values}")

    total_cost = sum(
        only(query(prometheus, f'sum(ray_cmb_cost_usd_total{{sweep="{SWEEP}", part="{part}"}})', at) or {(): 0.0})
        for part in ("model", "compute")
    )
    assert total_cost == pytest.approx(truth["model_cost"] + truth["compute_cost"], rel=1e-6, abs=1e-9)
    lines.append(
        f"{'cost, all parts':45} {total_cost:.6f} USD = store {truth['model_cost'] + truth['compute_cost']:.6f}"
    )
    assert checked == {raw for _, raw in targets} | set(templating)
    with capsys.disabled():
        print("\n" + "\n".join(lines))
