"""Live sweep metrics exported through Ray's metrics API (ray.util.metrics), for Prometheus and Grafana.

The driver records one event per attempt started and finished; Ray's metrics agent on each node serves them to
Prometheus with the `ray_` prefix (counters also get `_total`), and dashboards/cmb-sweeps.json charts them. The
names here are the contract with that dashboard (a test reads both).

Ray is imported only when it is already running in this process: importing this module never starts or loads
Ray, and without Ray every call is a no-op, so the thread executor and unit tests run unchanged.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from cmb.models import FailureClass

Kind = Literal["counter", "gauge", "histogram"]
PROMETHEUS_PREFIX = "ray_"
# Seconds: short attempts (input preparation, a null or recall agent) get buckets of their own, so the quantiles of
# the wall-time panel are not interpolated inside one wide first bucket.
DURATION_BUCKETS_S = (5.0, 15.0, 30.0, 60.0, 300.0, 600.0, 1200.0, 1800.0, 3600.0, 7200.0, 10800.0, 18000.0, 36000.0)


@dataclass(frozen=True)
class MetricDef:
    """One exported metric: its name in Ray, type, help text and tag keys."""

    name: str
    kind: Kind
    description: str
    tags: tuple[str, ...]
    boundaries: tuple[float, ...] = ()

    @property
    def prometheus(self) -> str:
        """The name Prometheus sees (histograms add _bucket, _sum and _count to it)."""
        return PROMETHEUS_PREFIX + self.name + ("_total" if self.kind == "counter" else "")


STARTED = MetricDef("cmb_attempts_started", "counter", "Attempts launched", ("sweep", "agent", "condition"))
FINISHED = MetricDef(
    "cmb_attempts_finished",
    "counter",
    "Attempts recorded, by outcome: pass, fail (the agent's) or infrastructure (the harness's, retried)",
    ("sweep", "agent", "condition", "outcome"),
)
RUNNING = MetricDef("cmb_attempts_running", "gauge", "Attempts running now", ("sweep",))
QUEUED = MetricDef("cmb_attempts_queued", "gauge", "Attempts waiting for a slot", ("sweep",))
COST = MetricDef(
    "cmb_cost_usd",
    "counter",
    "USD spent by finished attempts, by part: model (as the gateway recorded) or compute (resources x wall time)",
    ("sweep", "agent", "part"),
)
UNPRICED = MetricDef(
    "cmb_attempts_unpriced",
    "counter",
    "Finished attempts whose model has no price (cost not counted)",
    ("sweep", "agent"),
)
DURATION = MetricDef(
    "cmb_attempt_seconds",
    "histogram",
    "Wall time of finished attempts",
    ("sweep", "condition"),
    DURATION_BUCKETS_S,
)
METRICS: tuple[MetricDef, ...] = (STARTED, FINISHED, RUNNING, QUEUED, COST, UNPRICED, DURATION)


class Backend(Protocol):
    """Makes instruments for metric definitions (Ray's, or a recorder in tests)."""

    def make(self, metric: MetricDef) -> Any:
        """An object with inc (counter), set (gauge) or observe (histogram), each taking (value, tags)."""


class RayBackend:
    """ray.util.metrics instruments; only constructed when Ray is initialised in this process."""

    def make(self, metric: MetricDef) -> Any:
        """A Counter, Gauge or Histogram of ray.util.metrics."""
        from ray.util import metrics as ray_metrics  # Ray only when it already runs here

        if metric.kind == "counter":
            return ray_metrics.Counter(metric.name, description=metric.description, tag_keys=metric.tags)
        if metric.kind == "gauge":
            return ray_metrics.Gauge(metric.name, description=metric.description, tag_keys=metric.tags)
        return ray_metrics.Histogram(
            metric.name, description=metric.description, boundaries=list(metric.boundaries), tag_keys=metric.tags
        )


def ray_backend() -> RayBackend | None:
    """Ray's backend when Ray is imported and initialised here, else None (metrics off)."""
    ray = sys.modules.get("ray")
    if ray is None or not ray.is_initialized():
        return None
    return RayBackend()


def outcome_of(passed: bool | None, failure_class: str | None) -> str:
    """The `outcome` tag: pass, fail, or infrastructure (kept apart: it is never the agent's)."""
    if failure_class == FailureClass.INFRASTRUCTURE.value:
        return "infrastructure"
    return "pass" if passed else "fail"


class SweepMetrics:
    """The live metrics of one sweep, recorded by its driver. Without a backend every call does nothing."""

    def __init__(self, sweep: str, backend: Backend | None = None) -> None:
        self.sweep = sweep
        self._instruments: Mapping[str, Any] = {m.name: backend.make(m) for m in METRICS} if backend is not None else {}
        self._running = 0
        self._queued = 0

    @classmethod
    def for_ray(cls, sweep: str) -> SweepMetrics:
        """Metrics through Ray when it runs in this process, else a no-op recorder."""
        return cls(sweep, ray_backend())

    @property
    def enabled(self) -> bool:
        """Whether anything is exported."""
        return bool(self._instruments)

    def _tags(self, **tags: str) -> dict[str, str]:
        return {"sweep": self.sweep, **tags}

    def refresh(self) -> None:
        """Export the gauges' last values again; the driver calls this every turn of its loop.

        Ray (2.60) drops a gauge from its export about two report intervals (10 s each by default) after it was
        last set, so a gauge set only when it changes vanishes from Prometheus while attempts run for minutes.
        """
        if self.enabled:
            self._instruments[QUEUED.name].set(float(self._queued), self._tags())
            self._instruments[RUNNING.name].set(float(self._running), self._tags())

    def queue(self, queued: int) -> None:
        """Attempts waiting for a slot."""
        self._queued = queued
        if self.enabled:
            self._instruments[QUEUED.name].set(float(queued), self._tags())

    def started(self, agent: str, condition: str) -> None:
        """One attempt launched."""
        self._running += 1
        if self.enabled:
            self._instruments[STARTED.name].inc(1.0, self._tags(agent=agent, condition=condition))
            self._instruments[RUNNING.name].set(float(self._running), self._tags())

    def finished(
        self,
        agent: str,
        condition: str,
        *,
        passed: bool | None,
        failure_class: str | None,
        model_cost_usd: float | None,
        compute_cost_usd: float | None,
        seconds: float,
    ) -> None:
        """One attempt recorded (model cost None = unpriced, counted apart and never as $0)."""
        self._running = max(0, self._running - 1)
        if not self.enabled:
            return
        outcome = outcome_of(passed, failure_class)
        self._instruments[FINISHED.name].inc(1.0, self._tags(agent=agent, condition=condition, outcome=outcome))
        self._instruments[RUNNING.name].set(float(self._running), self._tags())
        if model_cost_usd is None:
            self._instruments[UNPRICED.name].inc(1.0, self._tags(agent=agent))
        elif model_cost_usd > 0:
            self._instruments[COST.name].inc(model_cost_usd, self._tags(agent=agent, part="model"))
        if compute_cost_usd:
            self._instruments[COST.name].inc(compute_cost_usd, self._tags(agent=agent, part="compute"))
        self._instruments[DURATION.name].observe(max(seconds, 0.0), self._tags(condition=condition))
