"""Study hbn-sliding-ferroelectricity (bilayer h-BN along its sliding path, pw.x with DFT-D3 and the dipole
correction): the study graph, the tasks' files, the oracles and the physics the references must obey.

Tasks: hbn-sliding-relax-inputs (input preparation: the constrained relaxation at 1.25 a/sqrt(3)),
hbn-sliding-potential-step, hbn-sliding-barrier and hbn-sliding-ionization-energy (output analysis of the
precomputed path). The generic gates
(fairness cases, recall, tolerance edges) are in test_gates.py.
"""

from __future__ import annotations

import filecmp
import json
import re
import shutil

import pytest

from cmb.catalog import validate
from tests.tasks._helpers import (
    CATALOG,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    entry,
    failed,
    grade_answer,
    grade_dir,
    read_answer,
    set_field,
)

STUDY = "hbn-sliding-ferroelectricity"
INPUTS = "hbn-sliding-relax-inputs"
STEP = "hbn-sliding-potential-step"
BARRIER = "hbn-sliding-barrier"
IONIZATION = "hbn-sliding-ionization-energy"
TASKS = [INPUTS, STEP, BARRIER, IONIZATION]
EPS0 = 8.8541878128e-12
DEBYE = 3.33564e-30
AREA = 3**0.5 / 2 * 2.504**2 * 1e-20  # m^2


def ref(key: str, task: str = STEP):
    return entry(task).reference().values[key].value


def test_study_validates_without_problems():
    problems = validate(CATALOG, TASKS)
    assert problems == [], "\n".join(map(str, problems))


def test_study_graph_puts_every_task_on_the_costly_path():
    study = CATALOG.studies[STUDY].spec
    steps = {s.id: s for s in study.steps}
    assert set(steps["sliding-path"].tasks) == set(TASKS)
    assert study.upstream("undulated-bilayer") == {"sliding-path"}


@pytest.mark.parametrize("task", TASKS)
def test_files_are_consistent_and_reduced_prompt_drops_only_the_method(task):
    assert entry(task).has_reduced
    assert_entry_is_consistent(task, STUDY)


def test_the_analysis_tasks_share_one_path_reader():
    """Each solution folder is self-contained, so each holds the reader; the copies must not drift apart."""
    a, b = (entry(t).reference_dir / "solution" / "hbn_path.py" for t in (STEP, BARRIER))
    assert filecmp.cmp(a, b, shallow=False)


@pytest.mark.parametrize("task", [BARRIER, IONIZATION])
def test_the_analysis_tasks_stage_the_same_path(task):
    a, b = (entry(t).workspace_dir / "path" for t in (STEP, task))
    for f in sorted(b.iterdir()):
        assert filecmp.cmp(f, a / f.name, shallow=False), f.name


@pytest.mark.parametrize("task", TASKS)
def test_empty_submission_fails(task, tmp_path):
    assert_empty_submission_fails(task, tmp_path)


@pytest.mark.parametrize("task", TASKS)
def test_oracle_passes(task, oracle_dirs):
    report = grade_dir(task, oracle_dirs[task])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


# ------------------------------------------------------------------------------------------------ inputs


def test_reference_deck_passes(tmp_path):
    shutil.copyfile(entry(INPUTS).reference_dir / "pw.in", tmp_path / "pw.in")
    report = grade_dir(INPUTS, tmp_path)
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


def test_reference_deck_is_the_path_point_at_one_and_a_quarter_bonds():
    """Top layer = bottom layer moved by 1.25 a/sqrt(3) along +y: fractional (1.25/3, 2.5/3) in a1, a2."""
    text = (entry(INPUTS).reference_dir / "pw.in").read_text()
    rows = re.findall(r"^([BN]) (\S+) (\S+) (\S+) 0 0 1$", text, re.M)
    frac = [(el, float(x), float(y), float(z)) for el, x, y, z in rows]
    (b1, n1, b2, n2) = frac
    assert (b2[1] - b1[1], b2[2] - b1[2]) == pytest.approx((1.25 / 3, 2.5 / 3))
    assert ((n2[1] - n1[1]) % 1, (n2[2] - n1[2]) % 1) == pytest.approx((1.25 / 3, 2.5 / 3))
    assert (b2[3] - b1[3]) * 25.0 == pytest.approx(3.30)


# ------------------------------------------------------------------------------------------------ potential step


def test_potential_step_physics_of_the_reference():
    """BA mirrors AB, SP is not polar, and the dipole per area is -eps0 dV / e of the AB step."""
    ab, ba, sp = ref("delta_V_AB_meV"), ref("delta_V_BA_meV"), ref("delta_V_SP_meV")
    assert ab > 10 and ba == pytest.approx(-ab, abs=0.2) and abs(sp) < 0.2
    assert 0 < ref("delta_V_125_meV") < ab
    assert ref("dipole_AB_pC_per_m") == pytest.approx(-EPS0 * ab * 1e-3 * 1e12, rel=1e-4)


def test_printed_dipole_is_an_alternative_route_and_the_sawtooth_amplitude_is_not():
    """The last dipole pw.x prints (Debye, 4 decimals) over the area agrees within the tolerance; the sawtooth
    amplitude is (1 - eopreg) of the step and fails."""
    out = (entry(STEP).workspace_dir / "path" / "s1.00.relax.out").read_text()
    debye = float(re.findall(r"Dipole\s+\S+ Ry au,\s+(\S+) Debye", out)[-1])
    amp_ry = float(re.findall(r"Potential amp\.\s+(\S+) Ry", out)[-1])
    p = debye * DEBYE / AREA * 1e12
    assert p == pytest.approx(ref("dipole_AB_pC_per_m"), rel=0.01)
    assert amp_ry * 13605.693123 == pytest.approx(0.95 * ref("delta_V_AB_meV"), rel=0.02)
    assert abs(amp_ry * 13605.693123 / ref("delta_V_AB_meV") - 1) > 0.015


@pytest.mark.parametrize(
    ("name", "field", "value", "expected"),
    [
        ("sign-of-the-electron-energy", "dipole_AB_pC_per_m", lambda r: -r("dipole_AB_pC_per_m"), {"dipole-ab"}),
        ("ab-kept-for-ba", "delta_V_meV.BA", lambda r: r("delta_V_AB_meV"), {"step-ba"}),
        ("linear-interpolation", "delta_V_meV.quarter", lambda r: r("delta_V_AB_meV") / 2, {"step-125"}),
        ("step-in-mry", "delta_V_meV.AB", lambda r: r("delta_V_AB_meV") / 13.605693, {"step-ab"}),
    ],
)
def test_potential_step_errors_fail_their_checks(name, field, value, expected, oracle_dirs, tmp_path):
    answer = read_answer(oracle_dirs[STEP])
    set_field(answer, field, value(ref))
    assert failed(grade_answer(STEP, answer, tmp_path)) == expected, name


# ------------------------------------------------------------------------------------------------ barrier


def rb(key: str):
    return ref(key, BARRIER)


def bang_energies(tag: str) -> list[float]:
    """Every '!' total energy (Ry) of the staged relaxation at shift `tag`, first SCF to relaxed."""
    out = (entry(BARRIER).workspace_dir / "path" / f"s{tag}.relax.out").read_text()
    return [float(e) for e in re.findall(r"^!\s+total energy\s+=\s+(\S+) Ry", out, re.M)]


def test_barrier_physics_of_the_reference():
    """AA is the high point, SP a low barrier; the AA layers sit farthest apart; the barrier per area follows."""
    assert 0 < rb("E_SP_meV") < rb("E_AA_meV")
    assert rb("d_AA_angstrom") > rb("d_SP_angstrom") >= rb("d_AB_angstrom") - 0.005
    assert rb("barrier_mJ_per_m2") == pytest.approx(rb("E_SP_meV") * 1.602176634e-22 / AREA * 1e3, rel=1e-4)


def test_mirror_images_have_the_same_energy_and_opposite_steps():
    """AB/BA and 1.25/1.75 are mirror pairs of the path: energies within 0.02 meV, steps opposite."""
    for a, b in (("1.00", "2.00"), ("1.25", "1.75")):
        assert (bang_energies(a)[-1] - bang_energies(b)[-1]) * 13605.693 == pytest.approx(0.0, abs=0.02)


def test_first_scf_energies_fail_the_aa_check(oracle_dirs, tmp_path):
    """The AA relaxation starts 0.2 A above the AB distance: its first energy is not the relaxed one."""
    answer = read_answer(oracle_dirs[BARRIER])
    answer["energy_meV_per_cell"]["AA"] = (bang_energies("0.00")[0] - bang_energies("1.00")[0]) * 13605.693123
    assert "energy-aa" in failed(grade_answer(BARRIER, answer, tmp_path))


def test_per_atom_energies_fail(oracle_dirs, tmp_path):
    answer = read_answer(oracle_dirs[BARRIER])
    answer["energy_meV_per_cell"] = {k: v / 4 for k, v in answer["energy_meV_per_cell"].items()}
    assert failed(grade_answer(BARRIER, answer, tmp_path)) == {"energy-sp", "energy-aa"}


def test_oracle_answers_agree_with_the_independent_references(oracle_dirs):
    """The oracles read the planar average 4 A clear of atoms and ramp; values.py the macroscopic one over the
    middle fifth of each gap: the two agree to 0.1 %, a twentieth of the tolerance."""
    step = read_answer(oracle_dirs[STEP])
    assert step["delta_V_meV"]["AB"] == pytest.approx(ref("delta_V_AB_meV"), rel=1e-3)
    assert step["dipole_AB_pC_per_m"] == pytest.approx(ref("dipole_AB_pC_per_m"), rel=1e-3)
    barrier = read_answer(oracle_dirs[BARRIER])
    assert barrier["energy_meV_per_cell"]["SP"] == pytest.approx(rb("E_SP_meV"), rel=1e-4)
    assert barrier["d_angstrom"]["AA"] == pytest.approx(rb("d_AA_angstrom"), abs=1e-4)


# ------------------------------------------------------------------------------------------------ ionization


def test_ionization_faces_differ_by_the_potential_step():
    """Top minus bottom face of AB is the vacuum-level step of the potential-step task (both references)."""
    top, bottom = ref("IE_AB_top_eV", IONIZATION), ref("IE_AB_bottom_eV", IONIZATION)
    assert 1000 * (top - bottom) == pytest.approx(ref("delta_V_AB_meV"), abs=0.5)


def test_ionization_physics_of_the_reference():
    """The non-polar stackings lie between AB's faces or below them; AA, farthest apart, has the shallowest edge."""
    top, bottom = ref("IE_AB_top_eV", IONIZATION), ref("IE_AB_bottom_eV", IONIZATION)
    sp, aa = ref("IE_SP_eV", IONIZATION), ref("IE_AA_eV", IONIZATION)
    assert bottom < sp < top
    assert aa < min(bottom, sp)
    assert 5.0 < aa and top < 6.5


def test_ionization_mirror_image_gives_the_ab_faces(oracle_dirs):
    """BA's faces are AB's swapped, to 0.2 meV, although the raw eigenvalues of the two runs differ by 4 meV."""
    run = json.loads((oracle_dirs[IONIZATION] / "ionization.json").read_text())
    ab, ba = run["1.00"], run["2.00"]
    assert ba["bottom"] == pytest.approx(ab["top"], abs=2e-4)
    assert ba["top"] == pytest.approx(ab["bottom"], abs=2e-4)
    assert abs(ab["homo"] - ba["homo"]) > 3e-3


@pytest.mark.parametrize(
    ("field", "value"),
    [("AB_top", 2.974), ("AB_bottom", 5.78524), ("AA", 5.67041)],
    ids=["eigenvalue-alone", "one-vacuum-level", "first-printed-level"],
)
def test_ionization_errors_fail_their_checks(field, value, oracle_dirs, tmp_path):
    answer = read_answer(oracle_dirs[IONIZATION])
    set_field(answer, f"ionization_energy_eV.{field}", value)
    report = grade_answer(IONIZATION, answer, tmp_path)
    assert failed(report) == {f"ie-{field.lower().replace('_', '-')}"}
