"""Study cu-eam (Cu thermomechanics with the Foiles EAM potential): traps, tolerance edges, oracles.

Tasks: cu-lammps-npt-inputs (input preparation), cu-eam-elastic, cu-vacancy, cu-phonons, cu-qha (run and analyze),
cu-npt-expansion-analysis (output analysis) and the workflow cu-thermomechanics-workflow. cu-eam-elastic's oracle
and zero-strain traps are also covered by tests/test_example_tasks.py; its finite-strain traps are here. Oracles
that run LAMMPS or phonopy are `slow`; each runs once per module.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from typing import Any

import pytest

from cmb.catalog import stage_bundle
from cmb.models import GradeReport
from tests.tasks._helpers import (
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    assert_tolerance_edges,
    entry,
    failed,
    grade_answer,
    grade_dir,
    read_answer,
    reference_answer,
    run_oracle,
)

HAS_LMP = shutil.which("lmp") is not None
HAS_PHONOPY = importlib.util.find_spec("phonopy") is not None
needs_lmp = pytest.mark.skipif(not HAS_LMP, reason="LAMMPS (lmp) not installed")
needs_phonopy = pytest.mark.skipif(not (HAS_LMP and HAS_PHONOPY), reason="LAMMPS or phonopy not installed")

JSON_TASKS = ["cu-eam-elastic", "cu-vacancy", "cu-phonons", "cu-qha", "cu-npt-expansion-analysis",
              "cu-npt-heat-capacity", "cu-thermomechanics-workflow"]  # fmt: skip
ALL = ["cu-lammps-npt-inputs", *JSON_TASKS]
NEEDS = {  # what each oracle runs
    "cu-lammps-npt-inputs": [needs_lmp],
    "cu-eam-elastic": [needs_lmp],
    "cu-vacancy": [needs_lmp],
    "cu-phonons": [needs_phonopy],
    "cu-qha": [needs_phonopy],
    "cu-npt-expansion-analysis": [],
    "cu-npt-heat-capacity": [],
    "cu-thermomechanics-workflow": [needs_phonopy],
}


def _edges(task: str, base: dict[str, Any], tmp_path: Path) -> None:
    """Tolerance edges of every numeric check; an array check moves one element (the n-th check's n % len)."""
    assert_tolerance_edges(task, base, tmp_path, every_element=False)


# ------------------------------------------------------------------------------------------------ every task


@pytest.mark.parametrize("task", ALL)
def test_files_are_consistent_and_reduced_prompt_drops_only_the_method(task):
    assert_entry_is_consistent(task, "cu-eam")


@pytest.mark.parametrize("task", ALL)
def test_empty_submission_fails(task, tmp_path):
    assert_empty_submission_fails(task, tmp_path)


@pytest.mark.parametrize("task", ALL)
def test_staged_workspace_alone_fails(task, tmp_path):
    e = entry(task)
    stage_bundle(e, e.conditions()[0], tmp_path)
    assert not grade_dir(task, tmp_path).passed


@pytest.mark.parametrize("task", JSON_TASKS)
def test_reference_values_pass(task, tmp_path):
    assert grade_answer(task, reference_answer(task), tmp_path).passed


@pytest.mark.parametrize("task", JSON_TASKS)
def test_tolerance_edges_from_the_reference_answer(task, tmp_path):
    _edges(task, reference_answer(task), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("task", [pytest.param(t, marks=NEEDS[t]) for t in JSON_TASKS])
def test_oracle_passes_and_its_answer_has_sharp_tolerance_edges(task, oracle_dirs, tmp_path):
    answer = read_answer(oracle_dirs[task])
    report = grade_answer(task, answer, tmp_path / "oracle")
    assert report.passed, [c.message for c in report.checks if not c.passed]
    _edges(task, answer, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("task", [pytest.param(t, marks=NEEDS[t]) for t in ALL])
def test_oracle_passes_under_the_reduced_prompt_too(task, tmp_path):
    e = entry(task)
    report = grade_dir(task, run_oracle(task, tmp_path, e.conditions()[1]))
    assert report.passed, [c.message for c in report.checks if not c.passed]


# ------------------------------------------------------------------------------------------------ cu-vacancy


@pytest.mark.parametrize(
    ("change", "failing"),
    [
        # E(N-1) - E(N): the removed atom's cohesive energy is added (no (N-1)/N reference)
        ({"Ef_vac_eV": 1.28335 + 3.54, "Ef_vac_unrelaxed_eV": 1.31654 + 3.54}, {"ef-relaxed", "ef-unrelaxed"}),
        ({"Ef_vac_eV": 1.31654}, {"ef-relaxed"}),  # unrelaxed energy reported as the relaxed one
        ({"Ef_vac_eV": 1.31654, "Ef_vac_unrelaxed_eV": 1.28335}, {"ef-relaxed", "ef-unrelaxed"}),  # swapped
        ({"Omega_f_per_atomic_volume": 1.0}, {"omega-f"}),  # defect cell relaxed at fixed volume
        ({"Omega_f_per_atomic_volume": 0.7355 - 1.0}, {"omega-f"}),  # relaxation volume
        ({"Omega_f_per_atomic_volume": 0.7355 * 11.8104}, {"omega-f"}),  # cubic angstrom
    ],
    ids=["no-(N-1)/N", "unrelaxed", "swapped", "fixed-volume", "relaxation-volume", "angstrom3"],
)
def test_cu_vacancy_trap_fails_its_check(change, failing, tmp_path):
    report = grade_answer("cu-vacancy", reference_answer("cu-vacancy") | change, tmp_path)
    assert failed(report) == failing


def test_cu_vacancy_fixed_cell_relaxation_energy_is_accepted(tmp_path):
    # Relaxing the atoms at fixed cell (1.28474 eV) instead of zero pressure is a valid route for E_f.
    assert grade_answer("cu-vacancy", reference_answer("cu-vacancy") | {"Ef_vac_eV": 1.28474}, tmp_path).passed


@pytest.mark.parametrize(
    ("change", "failing"),
    [
        ({"Hf_vac_10GPa_eV": 1.32739}, {"hf-10gpa"}),  # energy difference at 10 GPa without the P dV term
        # first-order estimate from the zero-pressure values: E_f + P Omega_f Omega0, Omega_f unchanged
        ({"Hf_vac_10GPa_eV": 1.82551, "Omega_f_10GPa_per_atomic_volume": 0.7355}, {"hf-10gpa", "omega-f-10gpa"}),
        ({"Hf_vac_10GPa_eV": 1.28340}, {"hf-10gpa"}),  # box/relax iso 10: 10 bar, not 10 GPa
        ({"Omega_f_10GPa_per_atomic_volume": 0.6054}, {"omega-f-10gpa"}),  # zero-pressure atomic volume as unit
    ],
    ids=["no-PdV", "first-order", "bar-for-GPa", "zero-pressure-omega0"],
)
def test_cu_vacancy_pressure_trap_fails_its_check(change, failing, tmp_path):
    report = grade_answer("cu-vacancy", reference_answer("cu-vacancy") | change, tmp_path)
    assert failed(report) == failing


def test_cu_vacancy_other_supercells_at_pressure_agree():
    # 3x3x3 and 5x5x5 cells at 10 GPa (reproduce record) lie well inside the tolerances of the 4x4x4 reference
    ref = entry("cu-vacancy").reference().values
    for h, omega in ((1.77314, 0.6446), (1.77391, 0.6450)):
        assert abs(h / ref["Hf_vac_10GPa_eV"].value - 1) < 0.1 * 0.01
        assert abs(omega / ref["Omega_f_10GPa_per_atomic_volume"].value - 1) < 0.1 * 0.03


# ------------------------------------------------------------------------------------------------ cu-eam-elastic

FINITE = ("sigma_xx_at_plus4_GPa", "sigma_yy_at_plus4_GPa", "sigma_xx_at_minus4_GPa", "sigma_yy_at_minus4_GPa")
FINITE_CHECKS = {"sigma-xx-plus4", "sigma-yy-plus4", "sigma-xx-minus4", "sigma-yy-minus4"}


def test_cu_elastic_linear_extrapolation_of_finite_strain_fails(tmp_path):
    # sigma = C eps with the task's own elastic constants: the response at +-4% is not linear
    ref = reference_answer("cu-eam-elastic")
    linear = dict(zip(FINITE, (ref["C11_GPa"] * 0.04, ref["C12_GPa"] * 0.04, -ref["C11_GPa"] * 0.04,
                               -ref["C12_GPa"] * 0.04), strict=True))  # fmt: skip
    assert failed(grade_answer("cu-eam-elastic", ref | linear, tmp_path)) == FINITE_CHECKS


def test_cu_elastic_nominal_transverse_stress_fails(tmp_path):
    # force per undeformed area of the y face: (1 + eps) sigma_yy
    ref = reference_answer("cu-eam-elastic")
    nominal = {"sigma_yy_at_plus4_GPa": 1.04 * ref["sigma_yy_at_plus4_GPa"],
               "sigma_yy_at_minus4_GPa": 0.96 * ref["sigma_yy_at_minus4_GPa"]}  # fmt: skip
    assert failed(grade_answer("cu-eam-elastic", ref | nominal, tmp_path)) == {"sigma-yy-plus4", "sigma-yy-minus4"}


def test_cu_elastic_finite_strain_is_stiffer_in_compression():
    ref = reference_answer("cu-eam-elastic")
    assert -ref["sigma_xx_at_minus4_GPa"] > ref["C11_GPa"] * 0.04 > ref["sigma_xx_at_plus4_GPa"] > 0


# ------------------------------------------------------------------------------------------------ cu-phonons

TWO_PI = 6.283185307179586


@pytest.mark.parametrize(
    ("change", "failing"),
    [
        ({"nu_X_TA_THz": 5.0748 * TWO_PI, "nu_X_LA_THz": 7.6207 * TWO_PI}, {"nu-x-ta", "nu-x-la"}),  # omega
        ({"nu_X_TA_THz": 5.0748 * 33.35641, "nu_X_LA_THz": 7.6207 * 33.35641}, {"nu-x-ta", "nu-x-la"}),  # cm-1
        ({"nu_X_TA_THz": 7.6207, "nu_X_LA_THz": 5.0748}, {"nu-x-ta", "nu-x-la"}),  # modes swapped
        ({"Cv_20K_J_per_K_mol": 4 * 0.5241, "Cv_300K_J_per_K_mol": 4 * 23.5718}, {"cv-20k", "cv-300k"}),
        ({"Cv_300K_J_per_K_mol": 3 * 8.314462618}, {"cv-300k"}),  # classical Dulong-Petit
        ({"Cv_20K_J_per_K_mol": 0.76979}, {"cv-20k"}),  # 4x4x4 mesh with the 3x3x3 supercell
        ({"Cv_300K_J_per_K_mol": 23.5718 / 8.314462618}, {"cv-300k"}),  # in units of k_B per atom
    ],
    ids=["omega", "cm-1", "swapped", "per-conventional-cell", "dulong-petit", "coarse-mesh-20K", "k_B"],
)
def test_cu_phonons_trap_fails_its_check(change, failing, tmp_path):
    report = grade_answer("cu-phonons", reference_answer("cu-phonons") | change, tmp_path)
    assert failed(report) == failing


@pytest.mark.parametrize(
    "change",
    [
        {"Cv_20K_J_per_K_mol": 0.5171, "Cv_300K_J_per_K_mol": 23.5721},  # 2x2x2 supercell, dense mesh
        {"Cv_20K_J_per_K_mol": 0.5203, "Cv_300K_J_per_K_mol": 23.5680},  # 16^3 mesh
    ],
    ids=["2x2x2", "mesh-16"],
)
def test_cu_phonons_converged_alternatives_pass(change, tmp_path):
    assert grade_answer("cu-phonons", reference_answer("cu-phonons") | change, tmp_path).passed


# ------------------------------------------------------------------------------------------------ cu-qha


@pytest.mark.parametrize(
    ("change", "failing"),
    [
        ({"alpha_V_300K_per_K": 4.9519e-05 / 3}, {"alpha-v"}),  # linear instead of volumetric
        ({"B_T_300K_GPa": 138.52}, {"b-t"}),  # static bulk modulus
        ({"B_T_300K_GPa": 128.57 * 1.03}, {"b-t"}),  # adiabatic modulus, about 3% higher
        ({"a_300K_angstrom": 3.615}, {"a-300k"}),  # static lattice constant
        ({"alpha_V_300K_per_K": 4.2347e-05, "B_T_300K_GPa": 147.56}, {"alpha-v", "b-t"}),  # +-0.5% grid
    ],
    ids=["linear", "static-B", "adiabatic-B", "static-a", "narrow-grid"],
)
def test_cu_qha_trap_fails_its_check(change, failing, tmp_path):
    report = grade_answer("cu-qha", reference_answer("cu-qha") | change, tmp_path)
    assert failed(report) == failing


@pytest.mark.parametrize(
    "change",
    [
        {"alpha_V_300K_per_K": 4.897e-05, "B_T_300K_GPa": 128.63, "a_300K_angstrom": 3.63406},  # 2x2x2
        {"alpha_V_300K_per_K": 4.967e-05, "B_T_300K_GPa": 128.17, "a_300K_angstrom": 3.63426},  # Murnaghan
        {"alpha_V_300K_per_K": 4.891e-05, "B_T_300K_GPa": 128.43, "a_300K_angstrom": 3.63402},  # -1%..+2% grid
    ],
    ids=["2x2x2", "murnaghan", "narrower-valid-grid"],
)
def test_cu_qha_valid_alternatives_pass(change, tmp_path):
    assert grade_answer("cu-qha", reference_answer("cu-qha") | change, tmp_path).passed


# ------------------------------------------------------------------------------------------ cu-npt-expansion

LOGS = [entry("cu-npt-expansion-analysis").workspace_dir / f"npt_{t}K.log" for t in (100, 200, 300, 400, 500)]


def _blocks(path: Path) -> list[list[float]]:
    """Box volumes of each thermo block of a log."""
    out: list[list[float]] = []
    col = None
    for line in path.read_text().splitlines():
        words = line.split()
        if words[:1] == ["Step"]:
            col, rows = words.index("Volume"), []
        elif col is not None and line.startswith("Loop time"):
            out.append(rows)
            col = None
        elif col is not None:
            rows.append(float(words[col]))
    return out


def _a(volumes: list[float]) -> float:
    return sum((4 * v / 864) ** (1 / 3) for v in volumes) / len(volumes)


def _alpha(a: list[float]) -> float:
    """(1/a) da/dT at 300 K from a quadratic through the five points (T = 100..500 K)."""
    import numpy as np

    t = [100.0, 200.0, 300.0, 400.0, 500.0]
    c = np.polyfit(t, a, 2)
    return float(np.polyval(np.polyder(c), 300.0) / np.polyval(c, 300.0))


def test_cu_npt_logs_hold_three_stages_of_864_atoms():
    for log in LOGS:
        text = log.read_text()
        assert "Created 864 atoms" in text
        assert [len(b) for b in _blocks(log)] == [41, 41, 121]


def test_cu_npt_averaging_every_row_fails(tmp_path):
    # Including the constant-volume heating at the 0 K lattice constant biases a(T) low and alpha by -22%.
    a = [_a([v for block in _blocks(log) for v in block]) for log in LOGS]
    report = grade_answer("cu-npt-expansion-analysis", {"a_angstrom": a, "alpha_L_300K_per_K": _alpha(a)}, tmp_path)
    assert failed(report) == {"lattice-constants", "alpha-l"}


def test_cu_npt_equilibration_plus_production_is_accepted(tmp_path):
    a = [_a(_blocks(log)[1] + _blocks(log)[2]) for log in LOGS]
    report = grade_answer("cu-npt-expansion-analysis", {"a_angstrom": a, "alpha_L_300K_per_K": _alpha(a)}, tmp_path)
    assert report.passed, [c.message for c in report.checks if not c.passed]


@pytest.mark.parametrize(
    ("transform", "failing"),
    [
        (lambda ans: ans | {"alpha_L_300K_per_K": 3 * ans["alpha_L_300K_per_K"]}, {"alpha-l"}),  # volumetric
        (lambda ans: ans | {"a_angstrom": [6 * a for a in ans["a_angstrom"]]}, {"lattice-constants"}),  # V^(1/3)
        (lambda ans: ans | {"a_angstrom": [a / 4 ** (1 / 3) for a in ans["a_angstrom"]]}, {"lattice-constants"}),
        (lambda ans: ans | {"a_angstrom": ans["a_angstrom"][::-1]}, {"lattice-constants"}),  # decreasing T
        (lambda ans: ans | {"alpha_L_300K_per_K": 3.63 * ans["alpha_L_300K_per_K"]}, {"alpha-l"}),  # da/dT
    ],
    ids=["volumetric", "box-length", "per-atom-cube", "reversed", "not-divided-by-a"],
)
def test_cu_npt_trap_fails_its_check(transform, failing, oracle_dirs, tmp_path):
    answer = transform(read_answer(oracle_dirs["cu-npt-expansion-analysis"]))
    report = grade_answer("cu-npt-expansion-analysis", answer, tmp_path)
    assert failed(report) == failing


def test_cu_npt_oracle_passes_with_sharp_edges(oracle_dirs, tmp_path):
    # The oracle only parses the committed logs (no simulation code), so this runs in every test session.
    answer = read_answer(oracle_dirs["cu-npt-expansion-analysis"])
    assert grade_answer("cu-npt-expansion-analysis", answer, tmp_path / "oracle").passed
    _edges("cu-npt-expansion-analysis", answer, tmp_path)


# ------------------------------------------------------------------------------------------ workflow


@pytest.mark.parametrize(
    ("change", "failing"),
    [
        ({"C44_GPa": 76.46 / 2}, {"c44"}),  # tensor instead of engineering shear strain
        ({"Cv_300K_J_per_K_mol": 4 * 23.5718}, {"cv-300k"}),  # per conventional cell
        ({"alpha_V_300K_per_K": 4.9519e-05 / 3}, {"alpha-v"}),  # linear coefficient
        ({"B_T_300K_GPa": (167.29 + 2 * 124.21) / 3}, {"b-t"}),  # static bulk modulus from the Cij
        ({"a_300K_angstrom": 3.615}, {"a-300k"}),  # static lattice constant
    ],
    ids=["c44-factor-2", "cv-per-cell", "linear-alpha", "static-B", "static-a"],
)
def test_cu_workflow_trap_fails_its_check(change, failing, tmp_path):
    report = grade_answer("cu-thermomechanics-workflow", reference_answer("cu-thermomechanics-workflow") | change,
                          tmp_path)  # fmt: skip
    assert failed(report) == failing


def test_cu_workflow_reference_is_the_steps_references():
    wf = entry("cu-thermomechanics-workflow").reference().values
    for step in ("cu-eam-elastic", "cu-phonons", "cu-qha"):
        for key, value in entry(step).reference().values.items():
            if key in wf:
                assert wf[key].value == value.value, (step, key)


# ------------------------------------------------------------------------------------------ cu-lammps-npt-inputs

NPT_REF = entry("cu-lammps-npt-inputs").reference_dir
REFERENCE_IN = (NPT_REF / "in.lmp").read_text()
REFERENCE_DATA = (NPT_REF / "cu.data").read_text()
A_1100 = entry("cu-lammps-npt-inputs").reference().values["box_1100K_angstrom"].value[1] / 6


def fcc_data(cells: int = 6, a: float = A_1100) -> str:
    basis = [(0, 0, 0), (0, 0.5, 0.5), (0.5, 0, 0.5), (0.5, 0.5, 0)]
    sites = [((i + u) * a, (j + v) * a, (k + w) * a) for i in range(cells) for j in range(cells)
             for k in range(cells) for (u, v, w) in basis]  # fmt: skip
    head = f"fcc cell\n\n{len(sites)} atoms\n1 atom types\n\n" + "".join(
        f"0.0 {cells * a} {d}lo {d}hi\n" for d in "xyz"
    )
    return (
        head
        + "\nMasses\n\n1 63.546\n\nAtoms # atomic\n\n"
        + "".join(f"{n} 1 {x} {y} {z}\n" for n, (x, y, z) in enumerate(sites, 1))
    )


def grade_inputs(tmp_path: Path, script: str, data: str | None = REFERENCE_DATA) -> GradeReport:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "in.lmp").write_text(script)
    if data is not None:
        (tmp_path / "cu.data").write_text(data)
    return grade_dir("cu-lammps-npt-inputs", tmp_path)


def test_cu_npt_inputs_reference_set_passes(tmp_path):
    report = grade_inputs(tmp_path, REFERENCE_IN)
    assert report.passed, [c.message for c in report.checks if not c.passed]


@needs_lmp
def test_cu_npt_inputs_oracle_passes(tmp_path):
    # The oracle finds the lattice constant at 1100 K with a short NPT run (about 20 s of CPU), then smoke-runs.
    report = grade_dir("cu-lammps-npt-inputs", run_oracle("cu-lammps-npt-inputs", tmp_path))
    assert report.passed, [c.message for c in report.checks if not c.passed]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("timestep        0.002\n", ""),  # the metal default, 1 fs, counts
        ("iso 0.0 0.0 2.0", "iso 1.01325 1.01325 2.0"),  # 1 atm
        ("iso 0.0 0.0 2.0", "aniso 0.0 0.0 2.0"),
        ("velocity        all create 1100.0", "velocity        all create 2200.0"),  # 2T for equipartition
        ("pair_coeff      1 1 Cu_u3.eam", "pair_coeff      * * Cu_u3.eam"),
        ("run             25000", "run             5000\nrun             20000"),
    ],
    ids=["default-timestep", "one-atm", "aniso", "velocity-2T", "pair-coeff-star", "two-runs"],
)
def test_cu_npt_inputs_equivalent_variants_pass(old, new, tmp_path):
    assert old in REFERENCE_IN
    report = grade_inputs(tmp_path, REFERENCE_IN.replace(old, new))
    assert report.passed, [c.message for c in report.checks if not c.passed]


@pytest.mark.parametrize(
    ("old", "new", "failing"),
    [
        ("timestep        0.002", "timestep        2.0", {"timestep", "npt"}),  # fs written under metal units
        ("temp 1100.0 1100.0 0.2", "temp 1100.0 1100.0 100", {"npt"}),  # Tdamp given in steps
        ("iso 0.0 0.0 2.0", "iso 0.0 0.0 1000", {"npt"}),  # Pdamp given in steps
        ("iso 0.0 0.0 2.0", "iso 0.0 0.0 0.02", {"npt"}),  # Pdamp of 10 steps
        ("temp 1100.0 1100.0 0.2", "temp 300.0 300.0 0.2", {"npt"}),  # the room-temperature run
        ("iso 0.0 0.0 2.0", "iso 10000.0 10000.0 2.0", {"npt"}),  # 1 GPa in bar
        ("fix             md all npt", "group           half id <= 432\nfix             md half npt", {"npt"}),
        # a second integrator or thermostat beside fix npt: atoms move twice per step, or two thermostats fight
        ("fix             md all npt", "fix             x all nve\nfix             md all npt", {"single-integrator"}),
        (
            "fix             md all npt",
            "fix             lv all langevin 1100.0 1100.0 0.1 48279\nfix             md all npt",
            {"single-integrator"},
        ),
        ("units           metal", "units           real", {"units"}),
        ("units           metal\n", "", {"units"}),  # LAMMPS's default, lj
        ("pair_style      eam\npair_coeff      1 1 Cu_u3.eam",
         "pair_style      eam/alloy\npair_coeff      * * Cu_u3.eam Cu", {"pair-style"}),  # setfl style
        ("pair_coeff      1 1 Cu_u3.eam", "pair_coeff      1 1 Cu_mishin1.eam.alloy", {"potential"}),
        ("run             25000", "run             50", {"run-length"}),  # 50 ps read as 50 steps
        ("thermo          250\n", "", {"thermo"}),  # default thermo 0: first and last step only
        ("thermo          250", "thermo          5000", {"thermo"}),
        ("velocity        all create 1100.0 8121 mom yes rot yes dist gaussian\n", "",
         {"velocity-temp", "velocity-seed"}),
        ("velocity        all create 1100.0", "velocity        all create 300.0", {"velocity-temp"}),
        ("boundary        p p p", "boundary        p p f", {"boundary"}),
    ],
    ids=["fs-timestep", "tdamp-steps", "pdamp-steps", "pdamp-short", "300K", "GPa-as-bar", "subgroup",
         "extra-nve", "extra-langevin", "real-units", "lj-units", "eam-alloy", "other-potential", "run-50",
         "no-thermo", "sparse-thermo", "no-velocity", "cold-velocities", "slab"],
)  # fmt: skip
def test_cu_npt_inputs_trap_fails_its_check(old, new, failing, tmp_path):
    assert old in REFERENCE_IN
    assert failed(grade_inputs(tmp_path, REFERENCE_IN.replace(old, new))) == failing


@pytest.mark.parametrize(
    ("a", "what"),
    [(3.615, "zero-kelvin lattice constant"), (3.6830, "measured expansion of copper from 0 to 1100 K"),
     (3.6810, "linear extrapolation with alpha(300 K)")],
)  # fmt: skip
def test_cu_npt_inputs_box_not_at_the_1100K_volume_fails(a, what, tmp_path):
    assert failed(grade_inputs(tmp_path, REFERENCE_IN, fcc_data(6, a))) == {"starting-box"}, what


def test_cu_npt_inputs_box_edges_of_the_tolerance(tmp_path):
    assert grade_inputs(tmp_path / "in", REFERENCE_IN, fcc_data(6, A_1100 * (1 + 0.98e-3))).passed
    assert failed(grade_inputs(tmp_path / "out", REFERENCE_IN, fcc_data(6, A_1100 * (1 + 1.02e-3)))) == {
        "starting-box"}  # fmt: skip


def test_cu_npt_inputs_other_cell_sizes_fail(tmp_path):
    # 5x5x5 (500 atoms) at the right lattice constant: the count and the box both differ from what is asked
    assert failed(grade_inputs(tmp_path, REFERENCE_IN, fcc_data(5))) == {"structure-size", "starting-box"}


def test_cu_npt_inputs_create_atoms_instead_of_read_data_fails_the_structure_checks(tmp_path):
    script = REFERENCE_IN.replace(
        "read_data       cu.data",
        f"lattice fcc {A_1100}\nregion box block 0 6 0 6 0 6\ncreate_box 1 box\ncreate_atoms 1 box",
    )
    assert failed(grade_inputs(tmp_path, script)) == {"structure-size", "starting-box"}


def test_cu_npt_inputs_missing_data_file_fails(tmp_path):
    report = grade_inputs(tmp_path, REFERENCE_IN, data=None)
    assert {"data-file", "structure-size", "starting-box"} <= failed(report)
    assert report.failure_category == "format"


@pytest.mark.slow
@needs_lmp
def test_cu_npt_inputs_reference_set_runs_in_lammps(tmp_path):
    import subprocess

    shutil.copy(NPT_REF / "in.lmp", tmp_path / "in.lmp")
    shutil.copy(NPT_REF / "cu.data", tmp_path / "cu.data")
    shutil.copy(entry("cu-lammps-npt-inputs").workspace_dir / "Cu_u3.eam", tmp_path / "Cu_u3.eam")
    script = (tmp_path / "in.lmp").read_text().replace("run             25000", "run             100")
    (tmp_path / "in.lmp").write_text(script)
    proc = subprocess.run(["lmp", "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Total wall time" in (tmp_path / "log.lammps").read_text()
