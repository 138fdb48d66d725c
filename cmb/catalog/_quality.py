"""The recall baseline's coverage and the fairness record.

Rules checked by `cmb tasks validate`, and the edits that turn an oracle submission into a fairness case (which
the task tests grade).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from cmb.catalog._errors import CatalogError, Problem
from cmb.catalog._load import FAIRNESS_FILE, QC_FILE, RECALL_FILE, TaskEntry
from cmb.models import Category, Expect, FairnessCase, GraderSpec, Kind

RECALLED_FAMILY = "numeric"  # quantities a reader could quote: every such JSON answer field needs a recalled value


class CaseError(ValueError):
    """A fairness case does not apply to the oracle's submission (an edit's text is absent, a field is not there)."""


def recall_problems(entry: TaskEntry, grader: GraderSpec) -> list[Problem]:
    """recall.yaml exists, names this task, and recalls every quoted quantity the grader checks."""
    path = entry.reference_dir / RECALL_FILE
    if not path.is_file():
        return [Problem(path, "no recall baseline: write what a well-read researcher would submit without computing")]
    try:
        recall = entry.recall()
    except CatalogError as exc:
        return exc.problems
    problems: list[Problem] = []
    if recall.task != entry.id:
        problems.append(Problem(path, f"names task {recall.task!r}, expected {entry.id!r}"))
    given = {(v.file, v.field) for v in recall.values}
    whole = {f.path for f in recall.files}
    for check in grader.checks:
        target = check.target
        if check.type.split(".")[0] != RECALLED_FAMILY or target.field is None or not target.file.endswith(".json"):
            continue
        if (target.file, target.field) not in given and target.file not in whole:
            problems.append(Problem(path, f"recalls no value for {target.file}:{target.field} (check {check.id!r})"))
    if entry.spec.kind is Kind.INPUT_PREPARATION and not recall.files:
        problems.append(Problem(path, "an input-preparation task's recall baseline writes the input files from habit"))
    return problems


def fairness_problems(entry: TaskEntry, grader: GraderSpec) -> list[Problem]:
    """Every non-format check is covered by an alternative that must pass and an error that must fail.

    QC.md records every case by its id.
    """
    path = entry.reference_dir / FAIRNESS_FILE
    if not path.is_file():
        return [Problem(path, "no fairness record: alternatives that must pass and common errors that must fail")]
    try:
        fairness = entry.fairness()
    except CatalogError as exc:
        return exc.problems
    problems: list[Problem] = []
    if fairness.task != entry.id:
        problems.append(Problem(path, f"names task {fairness.task!r}, expected {entry.id!r}"))
    ids = {c.id for c in grader.checks}
    for case in fairness.cases:
        unknown = sorted(set(case.covers) - ids)
        if unknown:
            problems.append(Problem(path, f"case {case.id!r} covers unknown checks {unknown}"))
    for check in grader.checks:
        if check.category is Category.FORMAT:
            continue
        for expect, what in ((Expect.PASS, "an alternative valid route"), (Expect.FAIL, "a common error")):
            if not fairness.covering(check.id, expect):
                problems.append(Problem(path, f"check {check.id!r} has no case with {what} (expect: {expect})"))
    qc = entry.reference_dir / QC_FILE
    text = qc.read_text(encoding="utf-8") if qc.is_file() else ""
    if not text:
        problems.append(Problem(qc, "QC record missing"))
    for case in fairness.cases:
        if text and not re.search(rf"(?<![\w-]){re.escape(case.id)}(?![\w-])", text):
            problems.append(Problem(qc, f"the fairness record does not mention case {case.id!r}"))
    return problems


def _set_field(doc: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for key in parents:
        child = doc.setdefault(key, {})
        if not isinstance(child, dict):
            raise CaseError(f"field {dotted!r}: {key!r} is not an object")
        doc = child
    doc[last] = value


def apply_case(case: FairnessCase, base: Path, dest: Path) -> Path:
    """Copy the oracle's submission `base` to `dest` and apply the case's edits; return dest."""
    shutil.copytree(base, dest, symlinks=True, dirs_exist_ok=True)
    if case.answer:
        answer_path = dest / case.answer_file
        if not answer_path.is_file():
            raise CaseError(f"case {case.id!r}: the oracle wrote no {case.answer_file}")
        doc = json.loads(answer_path.read_text(encoding="utf-8"))
        for dotted, value in case.answer.items():
            _set_field(doc, dotted, value)
        answer_path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    for edit in case.edits:
        path = dest / edit.file
        if not path.is_file():
            raise CaseError(f"case {case.id!r}: the oracle wrote no {edit.file}")
        text = path.read_text(encoding="utf-8")
        found = text.count(edit.old)
        if found == 0 or (edit.count and found < edit.count):
            raise CaseError(f"case {case.id!r}: {edit.old!r} occurs {found} times in {edit.file}")
        path.write_text(text.replace(edit.old, edit.new, edit.count or -1), encoding="utf-8")
    for name, text in case.files.items():
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        (dest / name).write_text(text, encoding="utf-8")
    for name in case.remove:
        target = dest / name
        if not target.exists():
            raise CaseError(f"case {case.id!r}: nothing to remove at {name}")
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink()
    return dest
