"""The suite's gates, task by task: every fairness case graded as its record says, the recall baseline failing,
and every numeric check probed at its tolerance edges on the oracle's own submission."""

from __future__ import annotations

import json
import math
import shutil
from typing import Any

import pytest

from cmb.catalog import apply_case
from cmb.grading import REGISTRY, get_field
from cmb.models import Check, Expect
from tests.tasks._helpers import CATALOG, failed, grade_dir, set_field

ENTRIES = sorted(CATALOG.entries.values(), key=lambda e: e.id)
WITH_FAIRNESS = [e for e in ENTRIES if (e.reference_dir / "fairness.yaml").is_file()]
CASES = [(e.id, c) for e in WITH_FAIRNESS for c in e.fairness().cases]
WITH_RECALL = [e for e in ENTRIES if (e.reference_dir / "recall.yaml").is_file()]


@pytest.mark.slow
@pytest.mark.parametrize(("task", "case"), CASES, ids=[f"{t}-{c.id}" for t, c in CASES])
def test_fairness_case(task, case, suite_oracles, tmp_path):
    report = grade_dir(task, apply_case(case, suite_oracles[task], tmp_path / case.id))
    if case.expect is Expect.PASS:
        assert report.passed, (case.what, {c.id: c.message for c in report.checks if not c.passed})
    else:
        missed = set(case.covers) - failed(report)
        assert not missed, (case.what, f"checks that should fail but pass: {sorted(missed)}")


@pytest.mark.parametrize("entry", WITH_RECALL, ids=[e.id for e in WITH_RECALL])
def test_recall_baseline_fails(entry, tmp_path):
    """Raw, on its own answers; where the task requires a code, the code audit voids it in a real attempt too
    (the docker sweep test checks the gated score)."""
    for name, text in entry.recall().submission().items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    report = grade_dir(entry.id, tmp_path)
    assert not report.passed or entry.spec.required_codes, "recall passes and no code audit stands in its way"


def _numeric_json_checks(task: str) -> list[Check]:
    checks = CATALOG.get(task).grader().checks
    return [
        c
        for c in checks
        if REGISTRY.get(c.type).numeric
        and c.reference is not None
        and c.target.field is not None
        and c.target.file.endswith(".json")
    ]


EDGE_TASKS = [e for e in ENTRIES if _numeric_json_checks(e.id)]


def _moved(x: float, check: Check, side: int, factor: float) -> float:
    tol = check.effective_tolerance
    width = tol.width * abs(x) if tol.is_relative else tol.width
    return x + side * factor * width


@pytest.mark.slow
@pytest.mark.parametrize("entry", EDGE_TASKS, ids=[e.id for e in EDGE_TASKS])
def test_numeric_checks_hold_at_their_tolerance_edges(entry, suite_oracles, tmp_path):
    """On the oracle's submission, each numeric answer moved to just inside its tolerance passes and to just
    outside (either side) fails that check; array checks move their first and last elements."""
    base = suite_oracles[entry.id]
    reference = entry.reference()
    for check in _numeric_json_checks(entry.id):
        expected: Any = reference.values[check.reference].value
        positions = [None] if not isinstance(expected, list) else sorted({0, len(expected) - 1})
        for pos in positions:
            for side in (1, -1):
                for factor, passes in ((0.98, True), (1.02, False)):
                    doc = json.loads((base / check.target.file).read_text())
                    if pos is None:
                        value: Any = _moved(expected, check, side, factor)
                    else:
                        value = list(get_field(doc, check.target.field))
                        if len(value) != len(expected) or not all(isinstance(v, int | float) for v in value):
                            pytest.skip(f"{check.id}: the oracle's array is not the reference's shape")
                        value = list(expected)
                        value[pos] = _moved(expected[pos], check, side, factor)
                    if isinstance(value, float) and not math.isfinite(value):
                        continue
                    set_field(doc, check.target.field, value)
                    sub = shutil.copytree(base, tmp_path / f"{check.id}-{pos}-{side}-{factor}", symlinks=True)
                    (sub / check.target.file).write_text(json.dumps(doc))
                    report = grade_dir(entry.id, sub)
                    state = {c.id: c.passed for c in report.checks}
                    assert state[check.id] is passes, (check.id, pos, side, factor, report.checks)
