"""The MLflow mirror: one experiment per sweep, one run per attempt, a parent run per sweep with aggregates.

Parquet is the truth and MLflow only mirrors it, so every call here is best effort: a failure is reported to the
caller (who carries on) and `sync` replays the Parquet store into MLflow idempotently. An attempt's MLflow run is
tagged with the id of the Parquet write it mirrors (`cmb.run_id`), set last, after metrics and artifacts: a run
without it is incomplete and is replaced on the next sync; a run with an older id (the attempt was written again)
is replaced too; a run with the current id is left alone. An attempt costs three calls besides its artifacts
(create the run with its tags; metrics, params and the commit tag in one `log_batch`; end the run), and batches
are split at the limits of the installed MLflow.

MLflow is imported lazily (it takes seconds), and with an embedded sqlite database (the default) the schema is
created once by `initialise`, by the driver, before workers log concurrently.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from cmb.models import FailureClass, RunRecord
from cmb.store._base import ResultStore

log = logging.getLogger(__name__)

TAG = "cmb."
ROLE_SWEEP = "sweep"
ROLE_ATTEMPT = "attempt"
PARENT_TAG = "mlflow.parentRunId"
RUN_NAME_TAG = "mlflow.runName"
# Attempt artifacts mirrored when present in the attempt's folder (the runner's layout), and a size cap per file.
ARTIFACT_DIRS = ("submission", "trajectory")
ARTIFACT_FILES = (
    "grade.json",
    "audit.json",
    "record.json",
    "stdout.txt",
    "stderr.txt",
    "trajectory.jsonl",
    "trajectory.atif.json",  # the model conversation in Harbor's ATIF, from the gateway transcript
)
ARTIFACT_MAX_BYTES = 50 * 2**20
# Keep a slow or dead server from stalling a launcher: few retries, short timeouts (overridable by env).
HTTP_DEFAULTS = {"MLFLOW_HTTP_REQUEST_MAX_RETRIES": "1", "MLFLOW_HTTP_REQUEST_TIMEOUT": "15"}
_METRIC_KEY = re.compile(r"[^A-Za-z0-9_.\-/ :]")


def default_tracking_uri(home: Path) -> str:
    """The embedded default: an sqlite database in CMB_HOME."""
    return f"sqlite:///{(Path(home) / 'mlflow.db').resolve()}"


def is_local_uri(uri: str) -> bool:
    """Whether the tracking store is a local database or folder (artifacts then go to CMB_HOME too)."""
    return uri.startswith(("sqlite:", "file:")) or "://" not in uri


def attempt_artifacts(home: Path, key: str) -> Path:
    """CMB_HOME/artifacts/<sweep>/<key slug>/, where the runner leaves an attempt's files."""
    from cmb.models import RunKey

    parsed = RunKey.parse(key)
    return Path(home) / "artifacts" / parsed.sweep / parsed.slug


@dataclass(frozen=True)
class MlflowConfig:
    """Where to mirror a sweep; picklable, so launchers on other processes or nodes can build their own client."""

    tracking_uri: str
    experiment: str
    home: Path = Path("cmb-data")
    parent_run_id: str | None = None
    spec_hash: str | None = None
    params: dict[str, str] = field(default_factory=dict)  # the sweep's spec, logged on the parent run


@dataclass
class SyncReport:
    """What a replay did."""

    logged: int = 0
    skipped: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)
    pending: int = 0  # stored attempts left unmirrored, for a later `cmb mlflow-sync`


def _entity_bytes(entity: Any) -> int:
    return len(str(entity.key)) + len(str(entity.value)) + 64  # JSON field names and a timestamp


def log_batches(client: Any, run_id: str, metrics: list[Any], params: list[Any], tags: list[Any]) -> int:
    """`log_batch` in as few calls as MLflow's limits allow (entities per kind, in all, bytes per request).

    Order is kept, metrics then params then tags, so a commit tag given last lands in the last call. Returns the
    number of calls.
    """
    from mlflow.utils import validation as v

    caps = {"m": v.MAX_METRICS_PER_BATCH, "p": v.MAX_PARAMS_TAGS_PER_BATCH, "t": v.MAX_PARAMS_TAGS_PER_BATCH}
    max_bytes = v.MAX_BATCH_LOG_REQUEST_SIZE // 2  # headroom for the request's own encoding
    chunk: dict[str, list[Any]] = {"m": [], "p": [], "t": []}
    size, calls = 0, 0

    def send() -> None:
        nonlocal chunk, size, calls
        client.log_batch(run_id, metrics=chunk["m"], params=chunk["p"], tags=chunk["t"])
        chunk, size, calls = {"m": [], "p": [], "t": []}, 0, calls + 1

    for kind, items in (("m", metrics), ("p", params), ("t", tags)):
        for item in items:
            n = sum(map(len, chunk.values()))
            cost = _entity_bytes(item)
            if n and (len(chunk[kind]) >= caps[kind] or n >= v.MAX_ENTITIES_PER_BATCH or size + cost > max_bytes):
                send()
            chunk[kind].append(item)
            size += cost
    if any(chunk.values()):
        send()
    return calls


def _ms(record_time: Any) -> int:
    return int(record_time.timestamp() * 1000)


def _metric_key(text: str) -> str:
    return _METRIC_KEY.sub("_", text)


def attempt_tags(record: RunRecord, spec_hash: str | None) -> dict[str, str]:
    """The tags of an attempt's MLflow run (without the commit tag)."""
    key = record.key
    tags = {
        f"{TAG}role": ROLE_ATTEMPT,
        f"{TAG}key": str(key),
        f"{TAG}sweep": key.sweep,
        f"{TAG}agent": key.agent,
        f"{TAG}model": record.usage.model or "",
        f"{TAG}task": key.task,
        f"{TAG}study": record.study,
        f"{TAG}kind": record.kind.value,
        f"{TAG}condition": key.condition.value,
        f"{TAG}trial": str(key.trial),
        f"{TAG}failure_class": record.failure_class.value if record.failure_class else "",
        f"{TAG}exit_reason": record.exit_reason.value,
        RUN_NAME_TAG: f"{key.agent}/{key.task}/{key.condition.value}/{key.trial}",
    }
    if spec_hash:
        tags[f"{TAG}spec_hash"] = spec_hash
    return tags


def attempt_metrics(record: RunRecord) -> dict[str, float]:
    """passed, score, cost, tokens, steps, seconds and their relatives; an unpriced cost is left out, not 0."""
    usage, t = record.usage, record.timings
    metrics: dict[str, float] = {
        "passed": float(record.passed),
        "score": record.gated_score,
        "raw_score": record.raw_score,
        "tokens": float(usage.input_tokens + usage.output_tokens),
        "input_tokens": float(usage.input_tokens),
        "output_tokens": float(usage.output_tokens),
        "steps": float(usage.requests),  # model calls: the gateway's count of the agent's steps
        "seconds": (record.finished_at - record.started_at).total_seconds(),
        "agent_seconds": t.agent,
        "retries": float(record.retries),
        "audit_passed": float(record.audit_passed),
    }
    if record.grade is not None:
        metrics["partial_score"] = record.grade.partial_score
    if usage.model_cost_usd is not None:
        metrics["cost"] = usage.model_cost_usd + (record.compute_cost_usd or 0.0)
        metrics["model_cost"] = usage.model_cost_usd
    if record.compute_cost_usd is not None:
        metrics["compute_cost"] = record.compute_cost_usd
    compute = record.compute
    metrics["held_seconds"] = compute.held_s
    if compute.cpu_s is not None:
        metrics["cpu_seconds"] = compute.cpu_s
    if compute.peak_memory_bytes is not None:
        metrics["peak_memory_gib"] = compute.peak_memory_bytes / 2**30
    return metrics


def attempt_params(record: RunRecord) -> dict[str, str]:
    """What the attempt ran with: versions, resources and limits."""
    res = record.resources
    return {
        "task_hash": record.task_hash,
        "grader_hash": record.grader_hash,
        "harness_version": record.harness_version,
        "profile": res.name,
        "cpus": str(res.cpus),
        "memory_gib": str(res.memory_gib),
        "time_limit_s": str(res.time_limit_s),
        "node_exclusive": str(res.node_exclusive),
        "price_table": record.usage.price_table or "",
        "compute_price_sheet": record.compute.price_sheet or "",
    }


def sweep_aggregates(runs: pl.DataFrame) -> dict[str, float]:
    """Aggregates of a sweep's deduplicated runs for its parent run. Infrastructure failures leave the denominator."""
    if runs.is_empty():
        return {"attempts": 0.0}
    infra = pl.col("failure_class").fill_null("") == FailureClass.INFRASTRUCTURE.value
    counted = runs.filter(~infra)
    out: dict[str, float] = {
        "attempts": float(runs.height),
        "infrastructure_failures": float(runs.filter(infra).height),
        "infrastructure_retries": float(runs.get_column("retries").sum() or 0),
        "tokens": float((runs.get_column("input_tokens") + runs.get_column("output_tokens")).sum() or 0),
    }
    cost = runs.get_column("model_cost_usd").drop_nulls()
    if cost.len():
        out["cost"] = float(cost.sum())
    if counted.height:
        out["pass_rate"] = float(counted.select(pl.col("passed").mean()).item() or 0.0)
        out["mean_score"] = float(counted.select(pl.col("gated_score").mean()).item() or 0.0)
        for column in ("condition", "agent"):
            rates = counted.group_by(column).agg(pl.col("passed").mean().alias("rate"))
            for value, rate in rates.iter_rows():
                out[_metric_key(f"pass_rate.{column}.{value}")] = float(rate)
    return out


@dataclass(frozen=True)
class ExperimentLink:
    """Where a sweep's experiment is seen in the MLflow UI, or one line saying why it can't be."""

    sweep: str
    experiment_id: str | None = None
    url: str | None = None  # the run list: a full address for a server, the UI's hash route for a local store
    problem: str | None = None


@dataclass(frozen=True)
class ExperimentLinks:
    """The UI addresses of some sweeps' experiments in one tracking store."""

    tracking_uri: str | None
    serve: str | None = None  # the command that serves the UI of a local store (a server serves its own)
    problem: str | None = None  # why none can be looked up: MLflow off, no database, no answer
    links: list[ExperimentLink] = field(default_factory=list)

    def lines(self, labels: list[str] | None = None) -> list[str]:
        """One line per sweep (or one for all, when nothing could be looked up), prefixed by `labels`."""
        if self.problem is not None:
            return [f"MLflow: {self.problem}"]
        out = [f"MLflow UI: {self.serve}, then open" if self.serve else "MLflow UI:"]
        for i, link in enumerate(self.links):
            label = f"{labels[i]} " if labels and i < len(labels) else ""
            out.append(f"  {label}{link.sweep}: {link.url if link.url else link.problem}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "tracking_uri": self.tracking_uri,
            "serve": self.serve,
            "problem": self.problem,
            "experiments": [link.__dict__ for link in self.links],
        }


def _redact(uri: str) -> str:
    """The URI without a password (a database URI may carry one)."""
    return re.sub(r"(://[^/:@]*):[^/@]*@", r"\1:***@", uri)


def experiment_links(home: Path, tracking_uri: str | None, sweeps: list[str]) -> ExperimentLinks:
    """The run lists of `sweeps`' experiments in the MLflow UI, looked up by experiment name; never raises.

    `tracking_uri` is the configured one (None: the embedded sqlite database in `home`, 'none': MLflow is off).
    A server's run list is `<uri>/#/experiments/<id>/runs`; a local store's is that route of the UI that
    `mlflow ui --backend-store-uri <uri>` serves. A local database that does not exist is not created.
    """
    if tracking_uri is not None and tracking_uri.strip().lower() == "none":
        return ExperimentLinks(None, problem="off (store.mlflow_uri / CMB_MLFLOW_URI is 'none')")
    uri = tracking_uri or default_tracking_uri(home)
    shown = _redact(uri)
    is_server = uri.startswith(("http://", "https://"))
    if uri.startswith("sqlite:///"):
        db = Path(uri.removeprefix("sqlite:///").split("?", 1)[0])  # sqlite:////abs/path or sqlite:///relative
        if not db.is_file():
            return ExperimentLinks(shown, problem=f"no tracking database at {db} (nothing mirrored there yet)")
    for name, value in HTTP_DEFAULTS.items():
        os.environ.setdefault(name, value)
    try:
        from mlflow.tracking import MlflowClient

        client = MlflowClient(tracking_uri=uri)
        found = {sweep: client.get_experiment_by_name(sweep) for sweep in dict.fromkeys(sweeps)}
    except Exception as exc:  # a server down, a database of another version: say so, don't fail the caller
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        return ExperimentLinks(shown, problem=f"{shown} could not be read ({type(exc).__name__}: {first})")
    base = f"{uri.rstrip('/')}/" if is_server else ""
    links = []
    for sweep in sweeps:
        exp = found[sweep]
        if exp is None:
            links.append(
                ExperimentLink(sweep, problem=f"no experiment named {sweep!r} (run `cmb mlflow-sync {sweep}`)")
            )
        else:
            exp_id = str(exp.experiment_id)
            links.append(ExperimentLink(sweep, exp_id, f"{base}#/experiments/{exp_id}/runs"))
    serve = None if is_server else f"mlflow ui --backend-store-uri {shown}"
    return ExperimentLinks(shown, serve=serve, links=links)


class MlflowMirror:
    """Logs attempts and sweep aggregates to one MLflow tracking store."""

    def __init__(self, config: MlflowConfig) -> None:
        for name, value in HTTP_DEFAULTS.items():
            os.environ.setdefault(name, value)
        from mlflow.tracking import MlflowClient

        self.config = config
        self.client = MlflowClient(tracking_uri=config.tracking_uri)
        self._experiment_id: str | None = None
        self.parent_run_id = config.parent_run_id

    # experiment and parent run ---------------------------------------------------------------------------------

    def experiment_id(self) -> str:
        """The sweep's experiment, created on first use (a concurrent creator is tolerated)."""
        if self._experiment_id is not None:
            return self._experiment_id
        name = self.config.experiment
        exp = self.client.get_experiment_by_name(name)
        if exp is None:
            location = None
            if is_local_uri(self.config.tracking_uri):
                location = (Path(self.config.home).resolve() / "mlflow-artifacts").as_uri()
            try:
                self._experiment_id = str(
                    self.client.create_experiment(name, artifact_location=location, tags={f"{TAG}sweep": name})
                )
            except Exception:  # another process created it first
                exp = self.client.get_experiment_by_name(name)
                if exp is None:
                    raise
                self._experiment_id = str(exp.experiment_id)
        else:
            self._experiment_id = str(exp.experiment_id)
        return self._experiment_id

    def find_parent(self) -> str | None:
        """The sweep's parent run, if one exists."""
        found = self.client.search_runs(
            [self.experiment_id()], filter_string=f"tags.`{TAG}role` = '{ROLE_SWEEP}'", max_results=1
        )
        return str(found[0].info.run_id) if found else None

    def initialise(self) -> str:
        """Create the database schema, the experiment and the parent run (once, before concurrent logging)."""
        parent = self.find_parent()
        if parent is None:
            tags = {f"{TAG}role": ROLE_SWEEP, f"{TAG}sweep": self.config.experiment, RUN_NAME_TAG: "sweep"}
            if self.config.spec_hash:
                tags[f"{TAG}spec_hash"] = self.config.spec_hash
            parent = str(self.client.create_run(self.experiment_id(), tags=tags).info.run_id)
        self.parent_run_id = parent
        if self.config.params:
            from mlflow.entities import Param

            existing = self.client.get_run(parent).data.params
            new = [Param(k, v[:6000]) for k, v in self.config.params.items() if k not in existing]
            if new:
                self.client.log_batch(parent, params=new)
        return parent

    def log_aggregates(self, parent_run_id: str, runs: pl.DataFrame, *, finished: bool) -> None:
        """Aggregates of the deduplicated runs on the parent run; step = attempts so far, so the curve is kept."""
        from mlflow.entities import Metric

        aggregates = sweep_aggregates(runs)
        step = int(aggregates.get("attempts", 0))
        now = int(time.time() * 1000)
        log_batches(self.client, parent_run_id, [Metric(k, v, now, step) for k, v in aggregates.items()], [], [])
        self.client.log_text(parent_run_id, json.dumps(aggregates, indent=1, sort_keys=True), "aggregates.json")
        if finished:
            self.client.set_terminated(parent_run_id, status="FINISHED")

    # attempts --------------------------------------------------------------------------------------------------

    def _attempt_runs(self, key: str | None = None) -> Iterator[Any]:
        flt = f"tags.`{TAG}role` = '{ROLE_ATTEMPT}'"
        if key is not None:
            flt += f" and tags.`{TAG}key` = '{key}'"
        token = None
        while True:
            page = self.client.search_runs(
                [self.experiment_id()], filter_string=flt, max_results=1000, page_token=token
            )
            yield from page
            token = page.token
            if not token:
                return

    def mirrored(self) -> dict[str, list[tuple[str, str | None]]]:
        """Attempt key -> [(MLflow run id, mirrored write id or None when incomplete)]."""
        out: dict[str, list[tuple[str, str | None]]] = {}
        for run in self._attempt_runs():
            tags = run.data.tags
            out.setdefault(tags.get(f"{TAG}key", ""), []).append((run.info.run_id, tags.get(f"{TAG}run_id")))
        return out

    def log_attempt(
        self,
        record: RunRecord,
        run_id: str,
        *,
        spec_hash: str | None = None,
        existing: list[tuple[str, str | None]] | None = None,
    ) -> str | None:
        """Mirror one stored attempt; returns the MLflow run id, or None when it was already mirrored."""
        from mlflow.entities import Metric, Param, RunTag

        key = str(record.key)
        if existing is None:
            existing = [(r.info.run_id, r.data.tags.get(f"{TAG}run_id")) for r in self._attempt_runs(key)]
        if any(mirrored == run_id for _, mirrored in existing):
            return None
        for stale, _ in existing:  # incomplete, or mirrors a superseded write
            self.client.delete_run(stale)
        tags = attempt_tags(record, spec_hash)
        if self.parent_run_id:
            tags[PARENT_TAG] = self.parent_run_id
        run = self.client.create_run(self.experiment_id(), start_time=_ms(record.started_at), tags=tags)
        mlflow_id = str(run.info.run_id)
        stamp = _ms(record.finished_at)
        self._log_artifacts(mlflow_id, record)
        log_batches(
            self.client,
            mlflow_id,
            [Metric(k, v, stamp, 0) for k, v in attempt_metrics(record).items()],
            [Param(k, v) for k, v in attempt_params(record).items()],
            [RunTag(f"{TAG}run_id", run_id)],  # the commit mark: after everything else of the run
        )
        status = "FINISHED" if record.failure_class is not FailureClass.INFRASTRUCTURE else "FAILED"
        self.client.set_terminated(mlflow_id, status=status, end_time=stamp)
        return mlflow_id

    def _log_artifacts(self, mlflow_id: str, record: RunRecord) -> None:
        folder = attempt_artifacts(self.config.home, str(record.key))
        logged_grade = False
        if folder.is_dir():
            for name in ARTIFACT_DIRS:
                sub = folder / name
                if sub.is_dir() and not sub.is_symlink() and any(sub.iterdir()):
                    self.client.log_artifacts(mlflow_id, str(sub), name)
            for name in ARTIFACT_FILES:
                path = folder / name
                if path.is_file() and not path.is_symlink() and path.stat().st_size <= ARTIFACT_MAX_BYTES:
                    self.client.log_artifact(mlflow_id, str(path))
                    logged_grade |= name == "grade.json"
        if record.grade is not None and not logged_grade:
            self.client.log_text(mlflow_id, record.grade.model_dump_json(indent=2), "grade.json")

    # replay ----------------------------------------------------------------------------------------------------

    def sync(self, store: ResultStore, sweep: str, *, finished: bool = False) -> SyncReport:
        """Replay a sweep's deduplicated Parquet rows into MLflow; already mirrored writes are skipped.

        Then the sweep's aggregates go on its parent run (marked finished when the sweep is).
        """
        report = SyncReport()
        runs = store.runs(sweep)
        mirrored = self.mirrored()
        parent = self.parent_run_id or self.initialise()
        for row in runs.select("key", "run_id", "spec_hash", "record_json").iter_rows(named=True):
            have = mirrored.get(row["key"], [])
            if any(mirrored_id == row["run_id"] for _, mirrored_id in have):
                report.skipped += 1
                continue
            try:
                record = RunRecord.model_validate_json(row["record_json"])
                self.log_attempt(record, row["run_id"], spec_hash=row["spec_hash"], existing=have)
                report.logged += 1
            except Exception as exc:  # keep going: one bad row must not stop the replay
                report.failed += 1
                report.errors.append(f"{row['key']}: {type(exc).__name__}: {exc}")
        self.log_aggregates(parent, runs, finished=finished)
        return report
