"""RunRecords for store and scheduler tests, built in one line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cmb.models import (
    DEFAULT_PROFILES,
    CheckResult,
    Condition,
    FailureClass,
    GradeReport,
    RunKey,
    RunRecord,
    Usage,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def make_record(
    key: RunKey | str = "s1/oracle/t1/SF/0",
    *,
    passed: bool = True,
    failure: FailureClass | None = None,
    cost: float | None = 0.01,
    tokens: int = 100,
    finished_after_s: float = 10.0,
    retries: int = 0,
    n_checks: int = 2,
    study: str = "st",
    kind: str = "output-analysis",
) -> RunRecord:
    key = RunKey.parse(key) if isinstance(key, str) else key
    if not passed and failure is None:
        failure = FailureClass.SCIENTIFIC
    grade = None
    if failure is not FailureClass.INFRASTRUCTURE:
        checks = [
            CheckResult(
                id=f"c{i}",
                type="numeric.scalar",
                category="scientific",
                passed=passed or i > 0,
                credit=1.0 if (passed or i > 0) else 0.0,
                message="ok" if passed else "off",
            )
            for i in range(n_checks)
        ]
        score = sum(c.passed for c in checks) / max(1, n_checks)
        grade = GradeReport(
            task_id=key.task,
            passed=passed,
            score=score,
            partial_score=score,
            grader_hash="g",
            checks=checks,
        )
    score = 1.0 if passed else (grade.score if grade else 0.0)
    return RunRecord(
        key=key,
        study=study,
        kind=kind,
        started_at=T0,
        finished_at=T0 + timedelta(seconds=finished_after_s),
        exit_reason="completed" if failure is not FailureClass.INFRASTRUCTURE else "infrastructure",
        retries=retries,
        usage=Usage(model="m1", requests=3, input_tokens=tokens, output_tokens=tokens // 2, model_cost_usd=cost),
        resources=DEFAULT_PROFILES["workflow" if key.condition in (Condition.WF, Condition.WR) else "single"],
        grade=grade,
        raw_score=score,
        gated_score=score,
        passed=passed,
        failure_class=failure,
        task_hash="th",
        grader_hash="g",
        harness_version="0.1.0",
    )
