"""The live-sweep dashboard and the metrics it charts: names agree, events are counted right, Ray exports them."""

from __future__ import annotations

import json
import re
import socket
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from cmb.analysis import CostModel
from cmb.scheduler._metrics import METRICS, MetricDef, SweepMetrics, outcome_of, ray_backend
from tests.analysis.helpers import analysis, run

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "dashboards" / "cmb-sweeps.json"
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")


def _exprs() -> list[str]:
    board = json.loads(DASHBOARD.read_text())
    return [t["expr"] for p in board["panels"] for t in p["targets"]] + [
        v["query"]["query"] for v in board["templating"]["list"] if isinstance(v.get("query"), dict)
    ]


def _exported_names() -> set[str]:
    names = set()
    for m in METRICS:
        names |= {m.prometheus + s for s in HISTOGRAM_SUFFIXES} if m.kind == "histogram" else {m.prometheus}
    return names


def test_dashboard_queries_only_exported_metrics_and_charts_all_of_them():
    board = json.loads(DASHBOARD.read_text())
    assert board["uid"] == "cmb-sweeps" and {v["name"] for v in board["templating"]["list"]} >= {"sweep", "agent"}
    used = {name for e in _exprs() for name in re.findall(r"\bray_cmb_[a-z_]+", e)}
    assert used <= _exported_names(), used - _exported_names()
    for m in METRICS:
        assert any(name.startswith(m.prometheus) for name in used), f"{m.name} is exported but not charted"
    for e in _exprs():
        assert e.count("(") == e.count(")") and e.count("{") == e.count("}"), e
    assert len({p["id"] for p in board["panels"]}) == len(board["panels"])


def test_prometheus_configs_parse():
    conf = yaml.safe_load((ROOT / "dashboards" / "prometheus" / "prometheus.yml").read_text())
    files = conf["scrape_configs"][0]["file_sd_configs"][0]["files"]
    assert files == ["/tmp/ray/prom_metrics_service_discovery.json"]
    monitor = yaml.safe_load((ROOT / "dashboards" / "prometheus" / "podmonitor.yaml").read_text())
    assert monitor["kind"] == "PodMonitor" and monitor["spec"]["podMetricsEndpoints"][0]["port"] == "metrics"


class Recorder:
    """A metrics backend that keeps every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, float, dict[str, str]]] = []

    def make(self, metric: MetricDef) -> Any:
        recorder = self

        class Instrument:
            def inc(self, value: float = 1.0, tags: dict[str, str] | None = None) -> None:
                recorder.calls.append((metric.name, "inc", value, dict(tags or {})))

            def set(self, value: float, tags: dict[str, str] | None = None) -> None:
                recorder.calls.append((metric.name, "set", value, dict(tags or {})))

            def observe(self, value: float, tags: dict[str, str] | None = None) -> None:
                recorder.calls.append((metric.name, "observe", value, dict(tags or {})))

        return Instrument()

    def total(self, name: str, **tags: str) -> float:
        return sum(v for n, op, v, t in self.calls if n == name and op == "inc" and tags.items() <= t.items())

    def last(self, name: str) -> float:
        return [v for n, op, v, _ in self.calls if n == name and op == "set"][-1]


def test_sweep_metrics_count_outcomes_cost_and_running():
    rec = Recorder()
    m = SweepMetrics("s1", rec)
    m.queue(3)
    m.started("a", "SF")
    m.started("a", "SF")
    assert rec.last("cmb_attempts_running") == 2
    m.finished("a", "SF", passed=True, failure_class=None, model_cost_usd=0.4, compute_cost_usd=0.1, seconds=60)
    m.finished("a", "SF", passed=False, failure_class="infrastructure", model_cost_usd=None, compute_cost_usd=0.05,
               seconds=5)  # fmt: skip
    assert rec.last("cmb_attempts_running") == 0 and rec.last("cmb_attempts_queued") == 3
    assert rec.total("cmb_attempts_finished", outcome="pass", sweep="s1", agent="a", condition="SF") == 1
    assert rec.total("cmb_attempts_finished", outcome="infrastructure") == 1
    assert rec.total("cmb_cost_usd", part="model") == pytest.approx(0.4)
    assert rec.total("cmb_cost_usd", part="compute") == pytest.approx(0.15)
    assert rec.total("cmb_attempts_unpriced", agent="a") == 1  # unpriced is counted apart, not as $0
    assert [v for n, op, v, _ in rec.calls if op == "observe"] == [60, 5]


def test_refresh_exports_the_gauges_last_values_again():
    rec = Recorder()  # Ray drops a gauge it has not been given for two report intervals: the driver refreshes them
    m = SweepMetrics("s1", rec)
    m.queue(5)
    m.started("a", "SF")
    rec.calls.clear()
    m.refresh()
    assert sorted((n, v) for n, op, v, _ in rec.calls if op == "set") == [
        ("cmb_attempts_queued", 5.0), ("cmb_attempts_running", 1.0)]  # fmt: skip
    assert all(t == {"sweep": "s1"} for _, _, _, t in rec.calls)
    SweepMetrics("s2").refresh()  # no backend: nothing


def test_sweep_metrics_are_a_no_op_without_ray():
    m = SweepMetrics.for_ray("s") if ray_backend() is None else SweepMetrics("s")
    assert not m.enabled
    m.started("a", "SF")
    m.finished("a", "SF", passed=True, failure_class=None, model_cost_usd=1.0, compute_cost_usd=1.0, seconds=1)


def test_outcome_tags():
    assert outcome_of(True, None) == "pass"
    assert outcome_of(False, "scientific") == "fail" and outcome_of(None, None) == "fail"
    assert outcome_of(False, "infrastructure") == "infrastructure"


def test_live_compute_cost_equals_the_tables():
    prices = CostModel(cpu_hour_usd=0.2, node_hour_usd=3.0)
    rows = [run("x", "t1", "SF", 0, "P", hours=0.25), run("x", "w1", "WF", 0, "P", hours=2.0)]
    cost = analysis(rows, cost=prices, n_boot=200).table("cost")
    by_cond = {r["condition"]: r["compute_cost_usd"] for r in cost.rows if r["condition"]}
    assert by_cond["SF"] == pytest.approx(prices.compute_cost(4, False, 900))
    assert by_cond["WF"] == pytest.approx(prices.compute_cost(128, True, 7200))


@pytest.mark.ray
@pytest.mark.slow
def test_ray_exports_every_metric_under_the_dashboards_names():
    ray = pytest.importorskip("ray")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ray.init(num_cpus=1, include_dashboard=False, _metrics_export_port=port, log_to_driver=False,
             configure_logging=False)  # fmt: skip
    try:
        m = SweepMetrics.for_ray("ray-test")
        assert m.enabled
        m.queue(1)
        m.started("a", "SF")
        m.finished("a", "SF", passed=True, failure_class=None, model_cost_usd=0.5, compute_cost_usd=0.2, seconds=30)
        m.finished("a", "SF", passed=None, failure_class=None, model_cost_usd=None, compute_cost_usd=0.0, seconds=1)
        wanted = _exported_names()
        found: set[str] = set()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not wanted <= found:
            try:
                body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
            except OSError:
                body = ""
            found = {line.split("{")[0] for line in body.splitlines() if 'sweep="ray-test"' in line}
            time.sleep(2)
        assert wanted <= found, wanted - found
    finally:
        ray.shutdown()
