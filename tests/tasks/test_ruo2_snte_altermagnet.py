"""Study ruo2-snte-altermagnet: two altermagnet models (d_x2-y2 and rutile-type d_xy) and the interface inputs.

The oracles are plain Python (numpy, h5py, scipy) and run once per module; every numeric check is probed just
inside and just outside its tolerance around the reference, with the other fields from the oracle's answer, and
each trap (k units, spin channels swapped, a Zeeman-like splitting, the form-factor estimate, the maximum taken
where |L| is largest, the other d-wave pattern, the mixed Ru sublattices) fails its check.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

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
    study_of,
    task_dir,
    with_field,
    write_answer,
)
from tests.tasks._helpers import run_oracle as _run_oracle

STUDY = "ruo2-snte-altermagnet"
TASKS = ["altermagnet-tb-splitting", "altermagnet-nodal-analysis", "snte-surface-dirac-cones"]


def run_oracle(task: str, dest: Path) -> dict:
    """The oracle's answer, run in the bare workspace (no prompt staged) within 5 minutes."""
    return read_answer(_run_oracle(task, dest, timeout_s=300, with_prompt=False))


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
    assert not grade_dir(task, stage_workspace(task, tmp_path)).passed  # nothing is staged for these two


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
        answer = with_field(oracle[task], check.target.field, value)
        assert failed(grade_dir(task, write_answer(tmp_path, answer))) == {check.id}


# --- altermagnet-tb-splitting ---------------------------------------------------------------------------------

TB = "altermagnet-tb-splitting"


def test_tb_oracle_matches_the_closed_form(oracle):
    ref = reference_of(TB).values
    assert oracle[TB]["bz_average_abs_dE_meV"] == pytest.approx(ref["bz_average_abs_dE_meV"].value, rel=1e-4)
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
        # the zone average of |dE| from the bare d-wave form factor, or the RMS splitting
        ({"bz_average_abs_dE_meV": 0.3 * 8 / np.pi**2 * 1000}, {"bz-average-abs"}),
        ({"bz_average_abs_dE_meV": 277.72}, {"bz-average-abs"}),
        # eV instead of meV
        ({"dE_X_meV": 0.6, "dE_quarter_GX_meV": 0.2262, "max_abs_dE_meV": 0.6}, {"de-x", "de-quarter", "max-abs-de"}),
    ],
)
def test_tb_trap_fails_its_check(oracle, changes, failing, tmp_path):
    assert failed(grade_dir(TB, write_answer(tmp_path, {**oracle[TB], **changes}))) == failing


# --- altermagnet-nodal-analysis -------------------------------------------------------------------------------

NODAL = "altermagnet-nodal-analysis"


def test_nodal_oracle_matches_the_closed_form(oracle, tmp_path):
    script = ROOT / "references" / NODAL / "reproduce" / "make_bands.py"
    subprocess.run(["python3", str(script), str(tmp_path)], check=True, capture_output=True)
    values = json.loads((tmp_path / "values.json").read_text())
    ref = reference_of(NODAL).values
    for key in ("max_abs_splitting_meV", "k_max_distance_2pi_over_a", "splitting_quarter_110_meV"):
        assert values[key] == pytest.approx(ref[key].value, abs=1e-3)
        assert oracle[NODAL][key] == pytest.approx(ref[key].value, abs=1e-3)


def test_nodal_maximum_is_off_the_point_where_l_is_largest(oracle):
    # The recall's shortcut: |L| = 4 t_d is largest at (1/4, 1/4), but the splitting is larger nearer the corner.
    assert oracle[NODAL]["max_abs_splitting_meV"] > 1.05 * abs(oracle[NODAL]["splitting_quarter_110_meV"])
    assert oracle[NODAL]["k_max_distance_2pi_over_a"] > np.hypot(0.25, 0.25) + 0.05


def test_nodal_denser_grid_passes(tmp_path):
    solution = ROOT / "references" / NODAL / "solution" / "nodal.py"
    subprocess.run(
        ["python3", str(solution), str(tmp_path / "answer.json"), "--n", "96"], check=True, capture_output=True
    )
    assert grade_dir(NODAL, tmp_path).passed


def test_nodal_spin_channels_swapped_fails(oracle, tmp_path):
    answer = {
        **oracle[NODAL],
        "splitting_quarter_110_meV": -oracle[NODAL]["splitting_quarter_110_meV"],
        "sign_along_110": "positive",
    }
    assert failed(grade_dir(NODAL, write_answer(tmp_path, answer))) == {"splitting-quarter", "sign-110"}


@pytest.mark.parametrize(
    ("changes", "failing"),
    [
        ({"max_abs_splitting_meV": 0.4126}, {"max-splitting"}),  # eV
        ({"max_abs_splitting_meV": 1746.42}, {"max-splitting"}),  # the gap between the two bands of one spin
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


# --- ruo2-snte-interface-vasp-inputs --------------------------------------------------------------------------

IFACE = "ruo2-snte-interface-vasp-inputs"


@pytest.fixture(scope="module")
def iface_oracle(tmp_path_factory) -> Path:
    return _run_oracle(IFACE, tmp_path_factory.mktemp(IFACE), timeout_s=120, with_prompt=False)


def _iface_edited(src: Path, dest: Path, file: str, old: str, new: str) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.is_file():
            (dest / f.name).write_text(f.read_text())
    text = (dest / file).read_text()
    assert old in text
    (dest / file).write_text(text.replace(old, new))
    return dest


def test_iface_files_are_consistent():
    assert_files_are_consistent(STUDY, IFACE)


def test_iface_oracle_passes_and_workspace_alone_fails(iface_oracle, tmp_path):
    report = grade_dir(IFACE, iface_oracle)
    assert report.passed, [c.message for c in report.checks if not c.passed]
    assert not grade_dir(IFACE, stage_workspace(IFACE, tmp_path)).passed


def test_iface_staged_slabs_are_regenerated(tmp_path):
    script = ROOT / "references" / IFACE / "reproduce" / "make_slabs.py"
    subprocess.run(["python3", str(script), str(tmp_path)], check=True, capture_output=True)
    for name in ("SnTe_110_slab.vasp", "RuO2_100_slab.vasp"):
        staged = task_dir(STUDY, IFACE) / "workspace" / name
        assert (tmp_path / name).read_text() == staged.read_text()


def test_iface_oracle_poscar_is_the_stated_interface(iface_oracle):
    lines = (iface_oracle / "POSCAR").read_text().splitlines()
    assert lines[5].split() == ["Sn", "Te", "Ru", "O"] and lines[6].split() == ["7", "7", "8", "16"]
    pos = np.array([[float(x) for x in line.split()[:3]] for line in lines[8:46]])
    c = float(lines[4].split()[2])
    snte_top, ruo2 = pos[:14, 2].max(), pos[14:, 2]
    assert ruo2.min() - snte_top == pytest.approx(2.60, abs=1e-4)
    assert c - (pos[:, 2].max() - pos[:, 2].min()) == pytest.approx(15.0, abs=1e-4)


@pytest.mark.parametrize(
    ("file", "old", "new", "failing"),
    [
        # both signs within each Ru layer: the sublattices are mixed, not the altermagnetic order
        ("INCAR", "2*1.5 2*-1.5 2*1.5 2*-1.5", "1.5 -1.5 1.5 -1.5 1.5 -1.5 1.5 -1.5", {"structure-and-order"}),
        # the cell relaxed with the slab: the vacuum collapses
        ("INCAR", "ISIF = 2", "ISIF = 3", {"isif"}),
        # U in the column of O (the staged RuO2 file lists O first)
        ("INCAR", "LDAUU = 0 0 2.0 0", "LDAUU = 0 0 0 2.0", {"ldauu"}),
        # the dipole correction of the energy only
        ("INCAR", "LDIPOL = .TRUE.\n", "", {"ldipol"}),
    ],
)
def test_iface_trap_fails_its_check(iface_oracle, tmp_path, file, old, new, failing):
    submission = _iface_edited(iface_oracle, tmp_path / "sub", file, old, new)
    assert failed(grade_dir(IFACE, submission)) == failing


# --- ruo2-snte-soc-vasp-inputs --------------------------------------------------------------------------------

SOC = "ruo2-snte-soc-vasp-inputs"


@pytest.fixture(scope="module")
def soc_oracle(tmp_path_factory) -> Path:
    return _run_oracle(SOC, tmp_path_factory.mktemp(SOC), timeout_s=120, with_prompt=False)


def test_soc_files_are_consistent():
    assert_files_are_consistent(STUDY, SOC)


def test_soc_oracle_passes(soc_oracle):
    report = grade_dir(SOC, soc_oracle)
    assert report.passed, [c.message for c in report.checks if not c.passed]


def test_soc_workspace_is_the_previous_steps_output(tmp_path):
    script = ROOT / "references" / SOC / "reproduce" / "reproduce.sh"
    subprocess.run(["bash", str(script), str(tmp_path)], check=True, capture_output=True)
    for name in ("POSCAR", "INCAR.collinear"):
        assert (tmp_path / "workspace" / name).read_text() == (task_dir(STUDY, SOC) / "workspace" / name).read_text()


@pytest.mark.parametrize(
    ("old", "new", "failing"),
    [
        # the collinear MAGMOM kept: 38 numbers where a non-collinear run reads 114
        (None, "MAGMOM = 14*0 2*1.5 2*-1.5 2*1.5 2*-1.5 16*0", {"structure-and-order"}),
        # ISYM = 0 still uses k -> -k, which spin-orbit coupling with magnetic order breaks
        ("ISYM = -1", "ISYM = 0", {"isym"}),
        # the collinear band count
        ("NBANDS = 480", "NBANDS = 240", {"nbands"}),
    ],
)
def test_soc_trap_fails_its_check(soc_oracle, tmp_path, old, new, failing):
    incar = (soc_oracle / "INCAR").read_text()
    if old is None:
        old = next(line for line in incar.splitlines() if line.startswith("MAGMOM"))
    submission = _iface_edited(soc_oracle, tmp_path / "sub", "INCAR", old, new)
    assert failed(grade_dir(SOC, submission)) == failing


# --- snte-surface-dirac-cones -----------------------------------------------------------------------------------

CONES = "snte-surface-dirac-cones"


def _cones_module():
    import importlib.util

    path = ROOT / "references" / CONES / "solution" / "cones.py"
    spec = importlib.util.spec_from_file_location("snte_cones", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cones_model_is_inverted_at_l():
    # The top valence state at L (6 of 12 bands filled per formula unit) has Sn character: the band inversion.
    c = _cones_module()
    slab = c.Slab(2)  # two planes: one Sn-Te pair per plane, enough to reuse the on-site and hopping blocks
    assert slab.n == 4
    a = c.A
    k = np.array([1.0, 1.0, 1.0]) * np.pi / a
    h = np.zeros((12, 12), complex)
    h[:6, :6], h[6:, 6:] = c.onsite("Sn"), c.onsite("Te")
    for v in ([1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]):
        d = np.array(v) * a / 2
        h[:6, 6:] += c.hop(d, c.T12) * np.exp(1j * k @ d)
    for v in np.array([[1, 1, 0], [1, -1, 0], [1, 0, 1], [1, 0, -1], [0, 1, 1], [0, 1, -1]]):
        for s in (1, -1):
            d = s * v * a / 2
            h[:6, :6] += c.hop(d, c.T11) * np.exp(1j * k @ d)
            h[6:, 6:] += c.hop(d, c.T22) * np.exp(1j * k @ d)
    h[6:, :6] = h[:6, 6:].conj().T
    e, vec = np.linalg.eigh(h)
    assert np.sum(np.abs(vec[:6, 5]) ** 2) > 0.99  # highest filled state at L lives on Sn


def test_cones_residual_gap_is_tiny(oracle):
    c = _cones_module()
    slab = c.Slab(30)
    kd = oracle[CONES]["dirac_kv_2pi_over_a"] * 2 * np.pi / c.A
    assert slab.gap(0.0, kd)[0] < 1e-4  # eV: the two surfaces barely couple through 30 planes


@pytest.mark.parametrize(
    ("changes", "failing"),
    [
        ({"dirac_kv_2pi_over_a": 0.5 - 0.40779}, {"dirac-kv"}),  # measured from Y
        ({"velocity_perp_eV_A": 2.09}, {"velocity-perp"}),  # the velocity along the mirror line
        ({"gap_with_field_normal_meV": 200.0}, {"gap-normal"}),  # 2|M|
        ({"gapless_with_field_1-10": False, "dirac_shift_field_1-10_2pi_over_a": 0.0}, {"gapless-1-10", "shift-1-10"}),
    ],
)
def test_cones_trap_fails_its_check(oracle, changes, failing, tmp_path):
    assert failed(grade_dir(CONES, write_answer(tmp_path, {**oracle[CONES], **changes}))) == failing
