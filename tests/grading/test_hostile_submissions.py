"""Hostile submissions never break grading: each becomes a failed check with a clear message, in bounded time."""

from __future__ import annotations

import os
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cmb.grading import grade, run_check
from cmb.grading._submission import MAX_FILE_BYTES, Submission
from cmb.models import GraderSpec
from tests.conftest import make_check, make_reference, write_files

SCALAR = make_check("numeric.scalar")


def _grade_scalar(root: Path) -> tuple[bool, str]:
    res = run_check(SCALAR, Submission(root), make_reference(x=1.0))
    return res.passed, res.message


def test_missing_file_is_a_format_failure(tmp_path):
    spec = GraderSpec(
        task="t",
        checks=[
            make_check("schema.file", id="present", category="format", reference=None, field=None),
            make_check("numeric.scalar", id="value"),
        ],
    )
    report = grade(spec, make_reference(x=1.0), tmp_path)
    assert not report.passed and report.score == 0
    assert report.failure_category == "format"
    assert all("not found" in c.message for c in report.checks)


def test_invalid_json(tmp_path):
    ok, msg = _grade_scalar(write_files(tmp_path, {"answer.json": "{x: 1,}"}))
    assert not ok and "invalid JSON" in msg


def test_symlink_to_references_is_refused(tmp_path):
    secret = write_files(tmp_path / "references", {"reference.json": {"x": 1.0}})
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "answer.json").symlink_to(secret / "reference.json")
    ok, msg = _grade_scalar(sub)
    assert not ok and "symbolic link" in msg


def test_symlinked_parent_folder_is_refused(tmp_path):
    outside = write_files(tmp_path / "outside", {"answer.json": {"x": 1.0}})
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "out").symlink_to(outside)
    check = make_check("numeric.scalar", file="out/answer.json")
    res = run_check(check, Submission(sub), make_reference(x=1.0))
    assert not res.passed and "symbolic link" in res.message


def test_dotdot_target_cannot_escape(tmp_path):
    write_files(tmp_path, {"answer.json": {"x": 1.0}})
    (tmp_path / "sub").mkdir()
    sub = Submission(tmp_path / "sub")
    with pytest.raises(Exception, match="relative path"):
        sub.read_bytes("../answer.json")


def test_one_gigabyte_sparse_file_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "answer.json"
    with path.open("wb") as fh:
        fh.truncate(1 << 30)  # sparse: costs no disk, but stat says 1 GiB
    ok, msg = _grade_scalar(tmp_path)
    assert not ok and "limit" in msg and str(MAX_FILE_BYTES) in msg


def test_binary_junk(tmp_path):
    ok, msg = _grade_scalar(write_files(tmp_path, {"answer.json": os.urandom(4096) + b"\0"}))
    assert not ok and "binary" in msg


def test_non_utf8_text(tmp_path):
    ok, msg = _grade_scalar(write_files(tmp_path, {"answer.json": b'{"x": "\xff\xfe"}'}))
    assert not ok and "UTF-8" in msg


def test_deeply_nested_json(tmp_path):
    ok, msg = _grade_scalar(write_files(tmp_path, {"answer.json": "[" * 100_000 + "]" * 100_000}))
    assert not ok and "nested" in msg


def test_moderately_nested_json_over_depth_limit(tmp_path):
    ok, msg = _grade_scalar(write_files(tmp_path, {"answer.json": '{"x": ' + "[" * 70 + "1" + "]" * 70 + "}"}))
    assert not ok and "deeper than" in msg


def test_fifo_instead_of_file_does_not_block(tmp_path):
    os.mkfifo(tmp_path / "answer.json")
    ok, msg = _grade_scalar(tmp_path)
    assert not ok and "not a regular file" in msg


def test_directory_instead_of_file(tmp_path):
    (tmp_path / "answer.json").mkdir()
    ok, msg = _grade_scalar(tmp_path)
    assert not ok and "not a regular file" in msg


def test_spoofed_answer_field_with_string_number(tmp_path):
    ok, msg = _grade_scalar(write_files(tmp_path, {"answer.json": {"x": "1.0"}}))
    assert not ok and "not a number" in msg


def test_spoofed_answer_as_object_with_value(tmp_path):
    ok, _ = _grade_scalar(write_files(tmp_path, {"answer.json": {"x": {"value": 1.0, "passed": True}}}))
    assert not ok


def test_duplicate_keys_last_one_wins_consistently(tmp_path):
    # Python's json keeps the last duplicate; graders and agents see one value, never both.
    ok, _ = _grade_scalar(write_files(tmp_path, {"answer.json": '{"x": 1.0, "x": 99.0}'}))
    assert not ok


def test_top_level_array_instead_of_object(tmp_path):
    ok, msg = _grade_scalar(write_files(tmp_path, {"answer.json": [1.0]}))
    assert not ok and "missing key" in msg


def test_unreadable_submission_root(tmp_path):
    ok, msg = _grade_scalar(tmp_path / "does-not-exist")
    assert not ok and "cannot be opened" in msg


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=2048) | st.text(alphabet=string.printable, max_size=512).map(str.encode))
def test_arbitrary_bytes_never_raise(tmp_path, data):
    root = write_files(tmp_path / "h", {"answer.json": data})
    for type_ in ("numeric.scalar", "numeric.array", "numeric.set", "numeric.choice", "numeric.ordering"):
        res = run_check(
            make_check(type_), Submission(root), make_reference(x=[1.0] if type_ != "numeric.scalar" else 1.0)
        )
        assert isinstance(res.passed, bool) and res.message


json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.integers() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=json_values)
def test_any_json_answer_gives_a_verdict(tmp_path, value):
    import json

    root = write_files(tmp_path / "j", {"answer.json": json.dumps({"x": value})})
    for type_, ref in [
        ("numeric.scalar", 1.0),
        ("numeric.array", [1.0, 2.0]),
        ("numeric.integer", 3),
        ("numeric.boolean", True),
        ("numeric.set", ["a"]),
        ("numeric.ordering", ["a", "b"]),
        ("numeric.choice", "a"),
    ]:
        res = run_check(make_check(type_), Submission(root), make_reference(x=ref))
        assert isinstance(res.passed, bool)
        res.model_dump_json()  # always serialisable


def test_fuzz_integer_too_large_for_a_float_is_a_failed_check(tmp_path):
    """Found by bench/fuzz_graders.py: a 400-digit JSON integer raised OverflowError inside numeric and schema
    checks (masked by the engine, never a check's own verdict)."""
    from cmb.grading._submission import is_finite_number

    assert not is_finite_number(10**400) and is_finite_number(10**300)
    ok, msg = _grade_scalar(write_files(tmp_path, {"answer.json": '{"x": ' + "9" * 400 + "}"}))
    assert not ok and "OverflowError" not in msg


def test_fuzz_csv_field_over_the_csv_module_limit_is_a_failed_check(tmp_path):
    """Found by bench/fuzz_graders.py: csv.Error (a field over 128 KiB) escaped the CSV checks."""
    from cmb.grading._submission import SubmissionError

    root = write_files(tmp_path, {"t.csv": "c,e\n" + "1" * 200_000 + ",2\n"})
    with pytest.raises(SubmissionError, match="not readable as CSV"):
        Submission(root).read_csv_column("t.csv", "c")
