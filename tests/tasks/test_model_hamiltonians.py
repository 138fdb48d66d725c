"""Study model-hamiltonians: altermagnet tight-binding splitting and nodal analysis of a band file.

The oracles are plain Python (numpy, h5py, scipy) and run once per module; every numeric check is probed just
inside and just outside its tolerance around the reference, with the other fields from the oracle's answer, and
each trap of the catalog (k units, spin channels swapped, a Zeeman-like splitting) fails its check.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import h5py
import numpy as np
import pytest

from tests.tasks import _helpers
from tests.tasks._helpers import (
    ROOT,
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
TASKS = ["altermagnet-tb-splitting", "altermagnet-nodal-analysis"]


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


# --- altermagnet-tb-splitting ---------------------------------------------------------------------------------

TB = "altermagnet-tb-splitting"


def test_tb_oracle_matches_the_closed_form(oracle):
    ref = reference_of(TB).values
    assert oracle[TB]["dE_X_meV"] == pytest.approx(ref["dE_X_meV"].value, abs=1e-3)
    assert oracle[TB]["dE_quarter_GX_meV"] == pytest.approx(ref["dE_quarter_GX_meV"].value, abs=1e-3)


@pytest.mark.parametrize(
    ("changes", "failing"),
    [
        # k = (1/4, 0) read in units of pi/a instead of 2 pi/a
        ({"dE_quarter_GX_meV": 58.796}, {"de-quarter"}),
        # spin channels swapped (or the upper band): the sign flips
        ({"dE_X_meV": -600.0, "dE_quarter_GX_meV": -226.2087}, {"de-x", "de-quarter"}),
        # a Zeeman-like uniform splitting 2J
        (
            {"dE_X_meV": 1000.0, "max_abs_dE_meV": 1000.0, "bz_average_dE_meV": 1000.0},
            {"de-x", "max-abs-de", "bz-average"},
        ),
        # the maximum located in units of pi/a, or in 1/angstrom
        ({"k_max_distance_2pi_over_a": 1.0}, {"k-max"}),
        ({"k_max_distance_2pi_over_a": np.pi / 4}, {"k-max"}),
        # d_xy pattern read into a d_x2-y2 model: nodes on the axes instead of the diagonal
        ({"nodal": {"G-X": True, "X-M": False, "M-G": False}}, {"nodal-gx", "nodal-mg"}),
        # eV instead of meV
        ({"dE_X_meV": 0.6, "dE_quarter_GX_meV": 0.2262, "max_abs_dE_meV": 0.6}, {"de-x", "de-quarter", "max-abs-de"}),
    ],
)
def test_tb_trap_fails_its_check(oracle, changes, failing, tmp_path):
    assert failed(grade_dir(TB, write_answer(tmp_path, {**oracle[TB], **changes}))) == failing


# --- altermagnet-nodal-analysis -------------------------------------------------------------------------------

NODAL = "altermagnet-nodal-analysis"


def test_nodal_file_documents_its_spin_order():
    with h5py.File(task_dir(study_of(NODAL), NODAL) / "workspace" / "bands.h5", "r") as f:
        ds = f["eigenvalues"]
        assert [s.decode() for s in ds.attrs["spin_labels"]] == ["down", "up"]
        assert ds.shape[0] == 2 and ds.shape[2] == 2
        assert "2*pi/a" in f["kpoints"].attrs["units"]


def test_nodal_spin_channels_swapped_fails(oracle, tmp_path):
    # Taking index 0 of the eigenvalue array as spin up flips every splitting.
    answer = {
        **oracle[NODAL],
        "splitting_quarter_110_meV": -oracle[NODAL]["splitting_quarter_110_meV"],
        "sign_along_110": "positive",
    }
    assert failed(grade_dir(NODAL, write_answer(tmp_path, answer))) == {"splitting-quarter", "sign-110"}


def test_nodal_oracle_reads_the_spin_order_from_the_file(tmp_path):
    # The same bands stored spin up first (and labelled so) must give the same answer.
    src = task_dir(study_of(NODAL), NODAL) / "workspace" / "bands.h5"
    work = tmp_path / "up-first"
    work.mkdir()
    with h5py.File(src, "r") as f, h5py.File(work / "bands.h5", "w") as g:
        g.create_dataset("kpoints", data=f["kpoints"][...])
        for k, v in f["kpoints"].attrs.items():
            g["kpoints"].attrs[k] = v
        ev = g.create_dataset("eigenvalues", data=f["eigenvalues"][...][::-1])
        for k, v in f["eigenvalues"].attrs.items():
            ev.attrs[k] = v
        ev.attrs["spin_labels"] = np.array([b"up", b"down"])
        ev.attrs["spin_sz"] = np.array([0.5, -0.5])
    solution = ROOT / "references" / NODAL / "solution"
    env = {**os.environ, "CMB_SOLUTION_DIR": str(solution)}
    subprocess.run(["bash", str(solution / "solve.sh")], cwd=work, env=env, check=True, capture_output=True)
    assert grade_dir(NODAL, work).passed


@pytest.mark.parametrize(
    ("changes", "failing"),
    [
        ({"max_abs_splitting_meV": 0.4126}, {"max-splitting"}),  # eV
        ({"k_max_distance_2pi_over_a": 0.4275 * 2}, {"k-max"}),  # units of pi/a
        ({"k_max_distance_2pi_over_a": 0.4275 * 2 * np.pi / 3.8}, {"k-max"}),  # 1/angstrom
        (
            {"nodal": {"along_100": False, "along_010": False, "along_110": True, "along_1-10": True}},
            {"nodal-100", "nodal-010", "nodal-110", "nodal-1-10"},
        ),
    ],
)
def test_nodal_trap_fails_its_check(oracle, changes, failing, tmp_path):
    assert failed(grade_dir(NODAL, write_answer(tmp_path, {**oracle[NODAL], **changes}))) == failing
