"""schema.* check types."""

from __future__ import annotations

from cmb.grading import run_check
from cmb.grading._submission import Submission
from tests.conftest import make_check, make_reference, write_files

FIELDS = make_check(
    "schema.fields",
    category="format",
    reference=None,
    field=None,
    params={"fields": {"a0_angstrom": "number", "mesh": "number-array", "phase": "string", "n": "integer"}},
)


def test_fields_present_with_types(tmp_path):
    root = write_files(tmp_path, {"answer.json": {"a0_angstrom": 5.47, "mesh": [6, 6, 6], "phase": "AFM", "n": 2}})
    assert run_check(FIELDS, Submission(root), make_reference()).passed


def test_fields_missing_and_mistyped_are_all_listed(tmp_path):
    root = write_files(tmp_path, {"answer.json": {"a0_angstrom": "5.47", "mesh": [6, "6"], "n": 2.5}})
    res = run_check(FIELDS, Submission(root), make_reference())
    assert not res.passed
    for fragment in ("a0_angstrom should be number", "mesh should be number-array", "missing phase", "n should be"):
        assert fragment in res.message


def test_fields_reject_extra_when_asked(tmp_path):
    check = make_check(
        "schema.fields", reference=None, field=None, params={"fields": {"a": "number"}, "allow_extra": False}
    )
    root = write_files(tmp_path, {"answer.json": {"a": 1, "passed": True}})
    res = run_check(check, Submission(root), make_reference())
    assert not res.passed and "unexpected field 'passed'" in res.message


def test_file_check_parses_by_suffix(tmp_path):
    check = make_check("schema.file", reference=None, field=None)
    assert not run_check(
        check, Submission(write_files(tmp_path / "a", {"answer.json": "nope"})), make_reference()
    ).passed
    assert run_check(check, Submission(write_files(tmp_path / "b", {"answer.json": {}})), make_reference()).passed


def test_csv_layout(tmp_path):
    check = make_check(
        "schema.csv", file="eos.csv", field=None, reference=None, params={"columns": ["V", "E"], "min_rows": 3}
    )
    good = write_files(tmp_path / "g", {"eos.csv": "V,E\n1,2\n3,4\n5,6\n"})
    short = write_files(tmp_path / "s", {"eos.csv": "V,E\n1,2\n"})
    assert run_check(check, Submission(good), make_reference()).passed
    res = run_check(check, Submission(short), make_reference())
    assert not res.passed and "at least 3" in res.message
