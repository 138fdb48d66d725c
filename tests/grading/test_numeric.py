"""numeric.* check types: tolerances at their edges, types, units, partial credit."""

from __future__ import annotations

import json

import h5py
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cmb.grading import run_check
from cmb.grading._submission import Submission
from tests.conftest import make_check, make_reference, write_files


def test_scalar_default_tolerance_is_ten_percent_relative(check_answer):
    check = make_check("numeric.scalar")
    assert check_answer(check, {"x": 109.9}, x=100.0).passed
    assert not check_answer(check, {"x": 110.1}, x=100.0).passed
    assert check_answer(check, {"x": 90.1}, x=100.0).tolerance == "10% rel"


def test_scalar_absolute_tolerance(check_answer):
    check = make_check("numeric.scalar", tolerance={"abs": 0.05}, unit="eV")
    res = check_answer(check, {"x": 1.27 + 0.049}, x=1.27)
    assert res.passed and "eV" in res.message
    assert not check_answer(check, {"x": 1.27 - 0.051}, x=1.27).passed


@settings(max_examples=200, deadline=None)
@given(
    expected=st.floats(min_value=1e-6, max_value=1e6) | st.floats(min_value=-1e6, max_value=-1e-6),
    rel=st.floats(min_value=1e-4, max_value=0.5),
    sign=st.sampled_from([-1, 1]),
)
def test_tolerance_edges_property(tmp_path_factory, expected, rel, sign):
    """Just inside the relative tolerance passes, just outside fails, whatever the value and tolerance."""
    check = make_check("numeric.scalar", tolerance={"rel": rel})
    inside = expected + sign * 0.999 * rel * abs(expected)
    outside = expected + sign * 1.001 * rel * abs(expected)
    ref = make_reference(x=expected)
    root = tmp_path_factory.mktemp("edge")
    write_files(root / "in", {"answer.json": {"x": inside}})
    write_files(root / "out", {"answer.json": {"x": outside}})
    assert run_check(check, Submission(root / "in"), ref).passed
    assert not run_check(check, Submission(root / "out"), ref).passed


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_answers_fail(tmp_path, bad):
    root = write_files(tmp_path, {"answer.json": '{"x": ' + bad + "}"})
    res = run_check(make_check("numeric.scalar"), Submission(root), make_reference(x=1.0))
    assert not res.passed and "not a finite number" in res.message
    assert res.actual in ("nan", "inf", "-inf")


@pytest.mark.parametrize("bad", ["5.43", True, None, [5.43], {"value": 5.43}])
def test_wrong_types_fail_scalar(check_answer, bad):
    res = check_answer(make_check("numeric.scalar"), {"x": bad}, x=5.43)
    assert not res.passed and "not a number" in res.message


def test_huge_integer_answer_fails_cleanly(tmp_path):
    root = write_files(tmp_path, {"answer.json": '{"x": 1' + "0" * 4000 + "}"})
    res = run_check(make_check("numeric.scalar"), Submission(root), make_reference(x=1.0))
    assert not res.passed


def test_huge_float_overflows_to_a_failed_check(tmp_path):
    root = write_files(tmp_path, {"answer.json": '{"x": 1e400}'})
    res = run_check(make_check("numeric.scalar"), Submission(root), make_reference(x=1.0))
    assert not res.passed and "not a finite number" in res.message


def test_absolute_value_param_accepts_sign_convention(check_answer):
    check = make_check("numeric.scalar", params={"absolute_value": True})
    assert check_answer(check, {"x": -0.5}, x=0.5).passed
    assert not check_answer(make_check("numeric.scalar"), {"x": -0.5}, x=0.5).passed


def test_partial_credit_full_within_fraction_then_linear_decay(check_answer):
    check = make_check("numeric.scalar", tolerance={"rel": 0.1}, partial={"full_within": 0.5})
    assert check_answer(check, {"x": 104.0}, x=100.0).credit == 1.0
    assert check_answer(check, {"x": 107.5}, x=100.0).credit == pytest.approx(0.5)
    assert check_answer(check, {"x": 111.0}, x=100.0).credit == 0.0


def test_array_elementwise_with_worst_element_reported(check_answer):
    check = make_check("numeric.array", tolerance={"rel": 0.05}, unit="THz")
    assert check_answer(check, {"x": [15.1, 4.4, 4.5]}, x=[15.0, 4.4, 4.5]).passed
    res = check_answer(check, {"x": [15.0, 4.7, 4.5]}, x=[15.0, 4.4, 4.5])
    assert not res.passed and "element 1" in res.message


def test_array_shape_mismatch_fails(check_answer):
    check = make_check("numeric.array")
    res = check_answer(check, {"x": [1.0, 2.0]}, x=[1.0, 2.0, 3.0])
    assert not res.passed and "shape" in res.message
    assert not check_answer(check, {"x": [[1.0, 2.0, 3.0]]}, x=[1.0, 2.0, 3.0]).passed
    assert not check_answer(check, {"x": 1.0}, x=[1.0]).passed


def test_array_with_a_nan_element_fails(tmp_path):
    root = write_files(tmp_path, {"answer.json": '{"x": [1.0, NaN]}'})
    res = run_check(make_check("numeric.array"), Submission(root), make_reference(x=[1.0, 2.0]))
    assert not res.passed and "element 1" in res.message


def test_integer_is_exact(check_answer):
    check = make_check("numeric.integer")
    assert check_answer(check, {"x": 4}, x=4).passed
    assert check_answer(check, {"x": 4.0}, x=4).passed
    assert not check_answer(check, {"x": 5}, x=4).passed
    assert not check_answer(check, {"x": 4.2}, x=4).passed
    assert not check_answer(check, {"x": True}, x=1).passed


def test_boolean_rejects_truthy_strings(check_answer):
    check = make_check("numeric.boolean")
    assert check_answer(check, {"x": False}, x=False).passed
    assert not check_answer(check, {"x": "false"}, x=False).passed
    assert not check_answer(check, {"x": 0}, x=False).passed


def test_choice_case_insensitive_and_restricted(check_answer):
    check = make_check("numeric.choice", params={"choices": ["first-order", "second-order"]})
    assert check_answer(check, {"x": "First-Order "}, x="first-order").passed
    res = check_answer(check, {"x": "weakly first order"}, x="first-order")
    assert not res.passed and "not one of" in res.message


def test_set_ignores_order_and_reports_missing(check_answer):
    check = make_check("numeric.set")
    assert check_answer(check, {"x": ["Y", "x"]}, x=["x", "y"]).passed
    res = check_answer(check, {"x": ["x"]}, x=["x", "y"])
    assert not res.passed and "missing" in res.message


def test_ordering_requires_order(check_answer):
    check = make_check("numeric.ordering")
    assert check_answer(check, {"x": ["AFM", "FM", "NM"]}, x=["AFM", "FM", "NM"]).passed
    res = check_answer(check, {"x": ["FM", "AFM", "NM"]}, x=["AFM", "FM", "NM"])
    assert not res.passed and "wrong order" in res.message


def test_nested_field_paths(check_answer):
    check = make_check("numeric.scalar", field="phonons.gamma[2]")
    assert check_answer(check, {"phonons": {"gamma": [0, 0, 15.0]}}, x=15.0).passed
    res = check_answer(check, {"phonons": {"gamma": [0, 0]}}, x=15.0)
    assert not res.passed and "no item [2]" in res.message


def test_csv_column_answers(tmp_path):
    root = write_files(tmp_path, {"bands.csv": "k, E\n0, 1.0\n1, 2.0\n"})
    check = make_check("numeric.array", file="bands.csv", field="E")
    assert run_check(check, Submission(root), make_reference(x=[1.0, 2.0])).passed
    bad = write_files(tmp_path / "bad", {"bands.csv": "k,E\n0,oops\n"})
    res = run_check(check, Submission(bad), make_reference(x=[1.0, 2.0]))
    assert not res.passed and "not a number" in res.message


def test_hdf5_dataset_answers(tmp_path):
    tmp_path.mkdir(exist_ok=True)
    with h5py.File(tmp_path / "out.h5", "w") as fh:
        fh["splitting/max_meV"] = np.float64(12.5)
        fh.create_group("grp")
    check = make_check("numeric.scalar", file="out.h5", field="splitting/max_meV")
    assert run_check(check, Submission(tmp_path), make_reference(x=12.5)).passed
    res = run_check(make_check("numeric.scalar", file="out.h5", field="grp"), Submission(tmp_path), make_reference(x=1))
    assert not res.passed and "group" in res.message


def test_corrupt_hdf5_fails_cleanly(tmp_path):
    root = write_files(tmp_path, {"out.h5": b"\x89HDF\r\n\x1a\n" + b"\x00garbage" * 100})
    res = run_check(make_check("numeric.scalar", file="out.h5", field="x"), Submission(root), make_reference(x=1.0))
    assert not res.passed and "HDF5" in res.message


def test_reported_values_are_json_safe(tmp_path):
    root = write_files(tmp_path, {"answer.json": '{"x": NaN}'})
    res = run_check(make_check("numeric.scalar"), Submission(root), make_reference(x=1.0))
    dumped = json.loads(res.model_dump_json())
    assert dumped["actual"] == "nan" and dumped["expected"] == 1.0
