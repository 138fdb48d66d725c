"""Checks and inputs for the qe tests: the silicon input with one change, graded on one check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cmb.grading import run_check
from cmb.grading._submission import Submission, SubmissionError
from cmb.grading.qe import Evaluator, fatal_problems, parse_pw_input, pw_cell
from cmb.models import Check, CheckResult, Reference, ReferenceValue
from tests.grading.qe._cases import case_text

SI = case_text("plain")
QE_TYPES = ("qe.valid", "qe.param", "qe.kpoints", "qe.species", "qe.structure")


def with_system(extra: str, text: str = SI) -> str:
    return text.replace("  ecutwfc = 12.0\n", f"  ecutwfc = 12.0\n  {extra}\n", 1)


def qe_check(
    type_: str, setting: str | None = None, *, params: dict[str, Any] | None = None, reference: bool = False, **kw: Any
) -> Check:
    return Check(
        id=kw.pop("id", "c1"),
        type=type_,
        category=kw.pop("category", "scientific"),
        target={"file": "pw.in", "setting": setting},
        reference="x" if reference else None,
        params=params or {},
        **kw,
    )


def grade_input(
    tmp_path: Path,
    text: str,
    check: Check,
    expected: Any = None,
    ref_files: dict[str, str] | None = None,
) -> CheckResult:
    sub = tmp_path / "sub"
    sub.mkdir(exist_ok=True)
    (sub / "pw.in").write_text(text)
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir(exist_ok=True)
    for name, content in (ref_files or {}).items():
        (ref_dir / name).write_text(content)
    values = {"x": ReferenceValue(value=expected)} if expected is not None else {}
    return run_check(check, Submission(sub), Reference(task="t", values=values, files=list(ref_files or [])), ref_dir)


def param(tmp_path: Path, text: str, setting: str, expected: Any = None, **params: Any) -> CheckResult:
    if "not_" in params:
        params["not"] = params.pop("not_")
    check = qe_check("qe.param", setting, params=params, reference=expected is not None)
    return grade_input(tmp_path, text, check, expected)


def effective(text: str, key: str) -> Any:
    return Evaluator(parse_pw_input(text).values).effective(key).value


def stops(text: str) -> list[str]:
    """What pw.x would stop on, as the grader sees it (reading problems, rules, cell)."""
    pw = parse_pw_input(text)
    found = [p.text() for p in [*pw.problems, *fatal_problems(pw)]]
    if not found:
        try:
            pw_cell(pw)
        except SubmissionError as exc:
            found.append(str(exc))
    return found
