"""grade(): a pure function from (grader spec, reference, submission folder) to a GradeReport."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ValidationError

from cmb.grading._compare import show
from cmb.grading._registry import REGISTRY, CheckContext, GraderConfigError, Outcome, Registry
from cmb.grading._submission import Submission, SubmissionError
from cmb.models import Category, Check, CheckResult, GradeReport, GraderSpec, Reference

_CATEGORY_PRIORITY = (Category.FORMAT, Category.SOFTWARE, Category.SCIENTIFIC)


def grader_hash(spec: GraderSpec, reference: Reference) -> str:
    """Content hash of a grader and its reference, stored with every result."""
    payload = json.dumps(
        {"grader": spec.model_dump(mode="json"), "reference": reference.model_dump(mode="json")},
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def validate_params(check: Check, registry: Registry = REGISTRY) -> BaseModel:
    """Validate a check's params against its type; raises GraderConfigError with the check's id."""
    try:
        ctype = registry.get(check.type)
    except KeyError as exc:
        raise GraderConfigError(f"check {check.id!r}: {exc.args[0]}") from None
    try:
        return ctype.params.model_validate(check.params)
    except ValidationError as exc:
        details = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise GraderConfigError(f"check {check.id!r} ({check.type}) params: {details}") from None


def partial_credit(check: Check, outcome: Outcome) -> float:
    """1 or 0, or for a check with a partial rule: full within a fraction of the tolerance, linear to 0 at it."""
    if not outcome.passed:
        return 0.0
    if check.partial is None or outcome.deviation is None:
        return 1.0
    f = check.partial.full_within
    if outcome.deviation <= f:
        return 1.0
    return max(0.0, min(1.0, (1.0 - outcome.deviation) / (1.0 - f)))


def run_check(
    check: Check,
    submission: Submission,
    reference: Reference,
    reference_dir: Path | None = None,
    registry: Registry = REGISTRY,
) -> CheckResult:
    """Run one check. Submission problems fail the check; grader problems raise GraderConfigError."""
    ctype = registry.get(check.type)
    params = validate_params(check, registry)
    ctx: CheckContext[BaseModel] = CheckContext(check, params, submission, reference, reference_dir)
    try:
        outcome = ctype.fn(ctx)
    except SubmissionError as exc:
        outcome = Outcome(False, str(exc))
    except GraderConfigError:
        raise
    except (RecursionError, MemoryError, OverflowError, ValueError, TypeError, KeyError, IndexError) as exc:
        # A parser choking on hostile input: the submission is at fault, but say exactly what happened.
        outcome = Outcome(False, f"{check.target.file}: could not be interpreted ({type(exc).__name__}: {exc})"[:400])
    tol = check.effective_tolerance.describe() if ctype.numeric else None
    return CheckResult(
        id=check.id,
        type=check.type,
        category=check.category,
        passed=outcome.passed,
        credit=partial_credit(check, outcome),
        expected=show(outcome.expected),
        actual=show(outcome.actual),
        unit=check.unit,
        tolerance=tol,
        message=outcome.message,
    )


def preflight(spec: GraderSpec, reference: Reference, registry: Registry = REGISTRY) -> None:
    """Catch grader bugs before looking at the submission, so an empty submission cannot hide them."""
    for check in spec.checks:
        validate_params(check, registry)
        if registry.get(check.type).needs_reference:
            if check.reference is None:
                raise GraderConfigError(f"check {check.id!r} ({check.type}) names no reference value")
            if check.reference not in reference.values:
                raise GraderConfigError(f"check {check.id!r}: reference has no value {check.reference!r}")


def grade(
    spec: GraderSpec,
    reference: Reference,
    submission_dir: Path,
    reference_dir: Path | None = None,
    registry: Registry = REGISTRY,
) -> GradeReport:
    """Grade a submission folder. The task passes only when every check passes."""
    if spec.task != reference.task:
        raise GraderConfigError(f"grader is for {spec.task!r} but reference is for {reference.task!r}")
    preflight(spec, reference, registry)
    submission = Submission(Path(submission_dir))
    results = [run_check(c, submission, reference, reference_dir, registry) for c in spec.checks]
    n = len(results)
    failed = {r.category for r in results if not r.passed}
    first = next((c for c in _CATEGORY_PRIORITY if c in failed), None)
    return GradeReport(
        task_id=spec.task,
        passed=all(r.passed for r in results),
        score=sum(r.passed for r in results) / n,
        partial_score=sum(r.credit for r in results) / n,
        failure_category=first,
        grader_hash=grader_hash(spec, reference),
        checks=results,
    )
