"""Study model-hamiltonians: Landau fits (the altermagnet tasks moved to test_ruo2_snte_altermagnet.py).

The oracles are plain Python (numpy, h5py, scipy) and run once per module; every numeric check is probed just
inside and just outside its tolerance around the reference, with the other fields from the oracle's answer, and
each trap of the catalog (k units, spin channels swapped, a Zeeman-like splitting, the sign of the quartic
Landau coefficient) fails its check.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.tasks import _helpers
from tests.tasks._helpers import (
    assert_empty_submission_fails,
    assert_files_are_consistent,
    assert_reduced_prompt_drops_only_the_method,
    assert_tolerance_edges,
    failed,
    grade_dir,
    grader_of,
    read_answer,
    reference_of,
    stage_workspace,
    task_dir,
    write_answer,
)
from tests.tasks._helpers import run_oracle as _run_oracle

STUDY = "model-hamiltonians"
TASKS = ["landau-transition-fit"]


def study_of(task: str) -> str:
    return _helpers.entry(task).spec.study


def run_oracle(task: str, dest: Path) -> dict:
    """The oracle's answer, run in the bare workspace (no prompt staged) within 5 minutes."""
    return read_answer(_run_oracle(task, dest, timeout_s=300, with_prompt=False))


def set_field(answer: dict, path: str, value: object) -> dict:
    """A deep copy of the answer with the dotted field replaced."""
    out = json.loads(json.dumps(answer))
    *parents, last = path.split(".")
    node = out
    for key in parents:
        node = node[key]
    node[last] = value
    return out


@pytest.fixture(scope="module")
def oracle(tmp_path_factory) -> dict[str, dict]:
    return {task: run_oracle(task, tmp_path_factory.mktemp(task)) for task in TASKS}


# --- the study as a whole ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("task", TASKS)
def test_files_are_consistent(task):
    assert_files_are_consistent(study_of(task), task, reference_files=False)


@pytest.mark.parametrize("task", TASKS)
def test_reduced_prompt_is_the_full_prompt_without_its_method_section(task):
    assert_reduced_prompt_drops_only_the_method(task)


@pytest.mark.parametrize("task", TASKS)
def test_oracle_passes(oracle, task, tmp_path):
    report = grade_dir(task, write_answer(tmp_path, oracle[task]))
    assert report.passed, [c.message for c in report.checks if not c.passed]


@pytest.mark.parametrize("task", TASKS)
def test_empty_submission_fails(task, tmp_path):
    assert_empty_submission_fails(task, tmp_path)


@pytest.mark.parametrize("task", TASKS)
def test_staged_workspace_alone_fails(task, tmp_path):
    assert not grade_dir(task, stage_workspace(task, tmp_path)).passed


@pytest.mark.parametrize("task", TASKS)
def test_every_numeric_check_has_a_sharp_tolerance(oracle, task, tmp_path):
    checks = [c for c in grader_of(task).checks if c.type == "numeric.scalar"]
    assert checks
    assert_tolerance_edges(task, oracle[task], tmp_path, checks=checks, reference=reference_of(task))


@pytest.mark.parametrize("task", TASKS)
def test_every_boolean_and_choice_check_fails_when_flipped(oracle, task, tmp_path):
    for check in grader_of(task).checks:
        if check.type == "numeric.boolean":
            value = not reference_of(task).values[check.reference].value
        elif check.type == "numeric.choice":
            value = next(c for c in check.params["choices"] if c != reference_of(task).values[check.reference].value)
        else:
            continue
        answer = set_field(oracle[task], check.target.field, value)
        assert failed(grade_dir(task, write_answer(tmp_path, answer))) == {check.id}


# --- landau-transition-fit ------------------------------------------------------------------------------------

LANDAU = "landau-transition-fit"


def test_landau_second_order_law_forced_on_the_first_order_sample_fails(oracle, tmp_path):
    # Fitting P^2 = a0 (Tc - T) / (2b) to sample A forces b > 0: wrong sign, wrong order, Tc at the jump.
    answer = json.loads(json.dumps(oracle[LANDAU]))
    answer["A"].update({"b": 2.9e9, "c": 0.0, "order": "second", "T0_K": 389.0, "Tc_K": 389.0})
    assert failed(grade_dir(LANDAU, write_answer(tmp_path, answer))) == {"a-b", "a-c", "a-order", "a-t0"}


def test_landau_t0_reported_as_the_first_order_transition_temperature_fails(oracle, tmp_path):
    answer = set_field(oracle[LANDAU], "A.Tc_K", oracle[LANDAU]["A"]["T0_K"])
    assert failed(grade_dir(LANDAU, write_answer(tmp_path, answer))) == {"a-tc"}


def test_landau_superheating_limit_is_not_the_transition(oracle, tmp_path):
    a0, t0, b, c = 5.2e5, 382.3, -4.0e8, 1.2e10
    answer = set_field(oracle[LANDAU], "A.Tc_K", t0 + b * b / (3 * a0 * c))
    assert failed(grade_dir(LANDAU, write_answer(tmp_path, answer))) == {"a-tc"}


def test_landau_sign_of_b_is_graded(oracle, tmp_path):
    answer = set_field(oracle[LANDAU], "A.b", -oracle[LANDAU]["A"]["b"])
    assert failed(grade_dir(LANDAU, write_answer(tmp_path, answer))) == {"a-b"}


def test_landau_linear_fit_of_the_staged_data_passes(tmp_path):
    # An independent route (linear least squares only, no nonlinear refinement) must pass as well.
    answer = {}
    for name, a0 in (("A", 5.2e5), ("B", 3.4e5)):
        data = np.loadtxt(
            task_dir(study_of(LANDAU), LANDAU) / "workspace" / f"sample_{name}.csv", delimiter=",", skiprows=1
        )
        t, p = data[data[:, 1] > 0].T
        (t0, s1, s2), *_ = np.linalg.lstsq(np.stack([np.ones_like(p), p**2, p**4], 1), t, rcond=None)
        b, c = -a0 * s1 / 2, -a0 * s2 / 3
        tc = t0 + b * b / (4 * a0 * c) if b < 0 else t0
        answer[name] = {"T0_K": t0, "Tc_K": tc, "b": b, "c": c, "order": "first" if b < 0 else "second"}
    assert grade_dir(LANDAU, write_answer(tmp_path, answer)).passed
