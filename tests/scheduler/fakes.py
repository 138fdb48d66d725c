"""Fake attempt functions and a small task suite for scheduler tests.

Fakes are configured through AttemptContext.options.extra (they reach Ray launchers in other processes), and
leave one JSON file per launch in extra["log_dir"], so a test can count launches per key across processes.
"""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cmb.catalog import TaskEntry
from cmb.models import CheckResult, ExitReason, FailureClass, GradeReport, RunKey, RunRecord, Usage
from cmb.sandbox import SandboxError
from cmb.scheduler import AttemptContext

SUITE = {
    "alpha/t-one": {"kind": "output-analysis"},
    "alpha/t-two": {"kind": "input-preparation"},
    "beta/t-three": {"kind": "run-and-analyze"},
}


def make_suite(root: Path, *, workflow: bool = True) -> Path:
    for rel, extra in SUITE.items():
        study, task = rel.split("/")
        d = root / "tasks" / study / task
        d.mkdir(parents=True)
        (d / "task.yaml").write_text(
            f"id: {task}\nstudy: {study}\nkind: {extra['kind']}\ncodes: [python]\ntitle: Task {task}\n"
            "answer_files: [answer.json]\n"
        )
        (d / "prompt.full.md").write_text(f"Solve {task}.\n")
    if workflow:
        d = root / "tasks" / "alpha" / "wf-alpha"
        d.mkdir(parents=True)
        (d / "workflow.yaml").write_text(
            "id: wf-alpha\nstudy: alpha\ncodes: [python]\ntitle: Alpha workflow\nsteps: [t-one, t-two]\n"
            "answer_files: [answer.json]\n"
        )
        (d / "prompt.full.md").write_text("Do it all.\n")
    (root / "graders").mkdir(exist_ok=True)
    return root


def launches(log_dir: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted(log_dir.glob("*.json"))]


def _count(log_dir: Path, key: RunKey) -> int:
    return sum(1 for p in log_dir.glob("*.json") if json.loads(p.read_text())["key"] == str(key))


def _record(key: RunKey, entry: TaskEntry, ctx: AttemptContext, passed: bool, started: datetime) -> RunRecord:
    checks = [
        CheckResult(id="value", type="numeric.scalar", category="scientific", passed=passed,
                    credit=float(passed), message="ok" if passed else "off by 20%"),
        CheckResult(id="format", type="schema.file", category="format", passed=True, credit=1.0, message="ok"),
    ]  # fmt: skip
    grade = GradeReport(task_id=key.task, passed=passed, score=0.5 + 0.5 * passed,
                        partial_score=0.5 + 0.5 * passed, grader_hash="fake", checks=checks)  # fmt: skip
    return RunRecord(
        key=key,
        study=entry.spec.study,
        kind=entry.spec.kind.value,
        started_at=started,
        finished_at=max(started, datetime.now(UTC)) + timedelta(microseconds=1),
        exit_reason="completed",
        usage=Usage(model="fake-model", requests=4, input_tokens=1000, output_tokens=200, model_cost_usd=0.01),
        resources=ctx.profile,
        grade=grade,
        raw_score=grade.score,
        gated_score=grade.score,
        passed=passed,
        failure_class=None if passed else FailureClass.SCIENTIFIC,
        task_hash=entry.task_hash(),
        grader_hash="fake",
        harness_version="test",
    )


def _ray_node() -> str | None:
    """The Ray node this launch runs on (in a launcher actor), else None."""
    import sys

    ray = sys.modules.get("ray")  # loaded where a launcher runs; never imported here for the other executors
    return ray.get_runtime_context().get_node_id() if ray is not None and ray.is_initialized() else None


def fake_attempt(key: RunKey, entry: TaskEntry, ctx: AttemptContext) -> RunRecord:
    """oracle* agents pass, others fail scientifically; failures are injected by options."""
    started = datetime.now(UTC)
    opts = ctx.options.extra
    log_dir = Path(opts["log_dir"])
    log_dir.mkdir(parents=True, exist_ok=True)
    running = log_dir / "running"
    running.mkdir(exist_ok=True)
    marker = running / f"{uuid.uuid4().hex}.{ctx.profile.name}"
    marker.touch()
    concurrent = len(list(running.glob(f"*.{ctx.profile.name}")))
    launch = {"key": str(key), "slug": key.slug, "retry": ctx.retry, "pid": os.getpid(), "t": time.time(),
              "profile": ctx.profile.name, "concurrent": concurrent, "backend": ctx.options.backend,
              "node": _ray_node()}  # fmt: skip
    name = f"{time.time_ns()}-{uuid.uuid4().hex[:6]}"
    (log_dir / f"{name}.tmp").write_text(json.dumps(launch))
    (log_dir / f"{name}.tmp").replace(log_dir / f"{name}.json")  # whole or absent: other launches count these
    try:
        if opts.get("kill_key") == str(key) and ctx.retry == 0:
            time.sleep(float(opts.get("kill_after_s", "0.2")))
            os.kill(os.getpid(), signal.SIGKILL)  # the launcher dies mid-attempt
        if opts.get("interrupt_key") == str(key) and ctx.retry == 0:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C at the driver (threads executor: same process)
        if time.time() < float(opts.get("outage_until", "0")):  # the backend is down for every attempt
            raise SandboxError("Docker engine unavailable")
        if str(key) in opts.get("sandbox_error_keys", "").split(","):
            if _count(log_dir, key) <= int(opts.get("sandbox_errors", "1")):
                raise SandboxError(f"container for {key.slug} could not start")
        if str(key) in opts.get("infra_record_keys", "").split(","):
            rec = _record(key, entry, ctx, False, started)
            return rec.model_copy(update={"failure_class": FailureClass.INFRASTRUCTURE,
                                          "exit_reason": ExitReason.INFRASTRUCTURE,
                                          "grade": None, "raw_score": 0.0, "gated_score": 0.0})  # fmt: skip
        if str(key) in opts.get("crash_keys", "").split(","):
            raise RuntimeError("adapter bug")
        time.sleep(float(opts.get("sleep", "0")))
        return _record(key, entry, ctx, key.agent.startswith("oracle"), started)
    finally:
        marker.unlink(missing_ok=True)
