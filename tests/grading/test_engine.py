"""The engine: all-checks-pass rule, score, partial score, failure category, harness errors kept apart."""

from __future__ import annotations

import pytest

from cmb.grading import GraderConfigError, grade
from cmb.models import GraderSpec
from tests.conftest import make_check, make_reference, write_files


def _spec(*checks):
    return GraderSpec(task="t", checks=list(checks))


def test_task_passes_only_when_every_check_passes(tmp_path):
    spec = _spec(
        make_check("schema.file", id="file", category="format", reference=None, field=None),
        make_check("numeric.scalar", id="a", field="a", reference="a"),
        make_check("numeric.scalar", id="b", field="b", reference="b", category="software"),
    )
    ref = make_reference(a=1.0, b=2.0)
    good = grade(spec, ref, write_files(tmp_path / "g", {"answer.json": {"a": 1.0, "b": 2.0}}))
    assert good.passed and good.score == 1 and good.failure_category is None
    one_off = grade(spec, ref, write_files(tmp_path / "o", {"answer.json": {"a": 1.0, "b": 3.0}}))
    assert not one_off.passed
    assert one_off.score == pytest.approx(2 / 3)
    assert [c.id for c in one_off.checks if not c.passed] == ["b"]
    assert one_off.failure_category == "software"


def test_failure_category_priority_format_first(tmp_path):
    spec = _spec(
        make_check("numeric.scalar", id="sci", field="a", reference="a"),
        make_check(
            "schema.fields", id="fmt", category="format", reference=None, field=None, params={"fields": {"c": "number"}}
        ),
    )
    report = grade(spec, make_reference(a=1.0), write_files(tmp_path, {"answer.json": {"a": 5.0}}))
    assert report.failure_category == "format"


def test_partial_score_is_mean_credit(tmp_path):
    spec = _spec(make_check("numeric.scalar", partial={"full_within": 0.5}, tolerance={"rel": 0.1}))
    report = grade(spec, make_reference(x=100.0), write_files(tmp_path, {"answer.json": {"x": 107.5}}))
    assert report.passed and report.score == 1.0 and report.partial_score == pytest.approx(0.5)


def test_grader_reference_mismatch_is_a_harness_error(tmp_path):
    spec = _spec(make_check("numeric.scalar", reference="missing"))
    with pytest.raises(GraderConfigError, match="no value 'missing'"):
        grade(spec, make_reference(x=1.0), write_files(tmp_path, {"answer.json": {"x": 1.0}}))
    with pytest.raises(GraderConfigError, match="grader is for"):
        grade(spec, make_reference(task="other", x=1.0), tmp_path)


def test_relative_tolerance_on_zero_reference_is_a_grader_bug(tmp_path):
    with pytest.raises(GraderConfigError, match="absolute tolerance"):
        grade(
            _spec(make_check("numeric.scalar")),
            make_reference(x=0.0),
            write_files(tmp_path, {"answer.json": {"x": 0.0}}),
        )


def test_grader_hash_tracks_reference(tmp_path):
    spec = _spec(make_check("numeric.scalar"))
    a = grade(spec, make_reference(x=1.0), tmp_path).grader_hash
    b = grade(spec, make_reference(x=1.1), tmp_path).grader_hash
    assert a != b
