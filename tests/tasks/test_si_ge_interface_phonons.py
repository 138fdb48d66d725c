"""Study si-ge-interface-phonons: files, tolerance edges, traps and physics checks of its eleven tasks and workflow.

Oracles run once per session through the `suite_oracles` fixture; those that run LAMMPS or take more than a few
seconds are `slow` (and skipped where LAMMPS is missing). The fairness cases and the recall baseline of every task
are graded by tests/tasks/test_gates.py; this module adds what is particular to the study: the normal-incidence
chain against the strained-Ge phonons, flux conservation and the Caroli identity of the staged blocks, the
specularity of a translation-invariant interface, the Landauer integral and its normalisation traps, the NEMD
bath analysis against the conductance task, the staged files against their generators, and the workflow against
its single tasks.
"""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import h5py
import numpy as np
import pytest
import yaml

from cmb.models import GradeReport
from tests.tasks import _helpers
from tests.tasks._helpers import (
    ROOT,
    assert_empty_submission_fails,
    assert_files_are_consistent,
    assert_reduced_prompt_drops_only_the_method,
    assert_tolerance_edges,
    failed,
    grade_dir,
    reference_of,
    stage_workspace,
    write_answer,
)

STUDY = "si-ge-interface-phonons"
TASKS = [
    "sige-relax-inputs",
    "sige-interface-relax",
    "sige-tersoff-phonons",
    "sige-vasp-phonon-inputs",
    "mass-interface-transmission",
    "sige-agf-transmission",
    "sige-reflection-specularity",
    "sige-nemd-conductance",
    "sige-landauer-conductance",
    "sige-nemd-superlattice-conductivity",
    "sige-monte-carlo-tables",
]
WORKFLOW = "sige-interface-workflow"
NEEDS_LMP = {"sige-relax-inputs", "sige-interface-relax", "sige-tersoff-phonons", WORKFLOW}
SLOW = NEEDS_LMP | {
    "mass-interface-transmission",
    "sige-agf-transmission",
    "sige-reflection-specularity",
    "sige-landauer-conductance",
    "sige-monte-carlo-tables",
}
WORKSPACE = ROOT / "tasks" / STUDY
REFERENCES = ROOT / "references"


def module(path: Path, name: str) -> ModuleType:
    """Import a solution or reproduce script by path (their folders are not packages)."""
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(path.parent))


def oracle(task: str, suite_oracles: dict[str, Path]) -> Path:
    if task in NEEDS_LMP and shutil.which("lmp") is None:
        pytest.skip("LAMMPS (lmp) not installed")
    return suite_oracles[task]


def param(task: str) -> Any:
    return pytest.param(task, marks=pytest.mark.slow, id=task) if task in SLOW else pytest.param(task, id=task)


def ref(task: str, key: str) -> Any:
    return reference_of(task).values[key].value


# --- files, prompts, empty submissions ------------------------------------------------------------------------------


@pytest.mark.parametrize("task", [*TASKS, WORKFLOW])
def test_task_files_are_consistent(task):
    assert_files_are_consistent(STUDY, task)


@pytest.mark.parametrize("task", [*TASKS, WORKFLOW])
def test_reduced_prompt_is_the_full_prompt_without_its_method_section(task):
    assert_reduced_prompt_drops_only_the_method(task)


@pytest.mark.parametrize("task", [*TASKS, WORKFLOW])
def test_empty_submission_fails(task, tmp_path):
    assert_empty_submission_fails(task, tmp_path)


@pytest.mark.parametrize("task", TASKS)
def test_staged_workspace_alone_fails(task, tmp_path):
    assert not grade_dir(task, stage_workspace(task, tmp_path)).passed


def test_study_graph_holds_every_task():
    spec = yaml.safe_load((WORKSPACE / "study.yaml").read_text())
    listed = [t for s in spec["steps"] for t in s.get("tasks", [])]
    assert sorted(listed) == sorted(TASKS)
    selected = [s for s in spec["steps"] if s.get("selected", True)]
    assert 3 <= len(selected) <= 9


# --- oracles --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("task", [param(t) for t in [*TASKS, WORKFLOW]])
def test_oracle_passes(task, suite_oracles):
    report = grade_dir(task, oracle(task, suite_oracles))
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


# --- tolerance edges around the reference (scalar JSON answers) ----------------------------------------------------

SCALAR_TASKS = ["sige-interface-relax", "sige-tersoff-phonons", "mass-interface-transmission"]


def write_curve(folder: Path, values: list[float]) -> None:
    rows = ["nu_THz,T"] + [f"{0.1 * (i + 1):.2f},{t!r}" for i, t in enumerate(values)]
    (folder / "transmission.csv").write_text("\n".join(rows) + "\n")


def grade_scalars(task: str, answer: dict[str, Any], folder: Path) -> GradeReport:
    write_answer(folder, answer)
    if task == "mass-interface-transmission":
        write_curve(folder, ref(task, "transmission_curve"))
    return grade_dir(task, folder)


@pytest.mark.parametrize("task", SCALAR_TASKS)
def test_tolerance_edges_around_the_reference(task, tmp_path):
    checks = [c for c in _helpers.numeric_checks(task, ("numeric.scalar",))]
    base = _helpers.reference_answer(task, ("numeric.scalar",))
    assert_tolerance_edges(task, base, tmp_path, checks=checks, grade_answer=grade_scalars)


# --- sige-relax-inputs ----------------------------------------------------------------------------------------------

RELAX_IN = (REFERENCES / "sige-relax-inputs" / "in.lmp").read_text()


def grade_relax(text: str, folder: Path) -> GradeReport:
    stage_workspace("sige-relax-inputs", folder)
    (folder / "in.lmp").write_text(text)
    return grade_dir("sige-relax-inputs", folder)


def test_relax_reference_input_passes(tmp_path):
    report = grade_relax(RELAX_IN, tmp_path)
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


@pytest.mark.parametrize(
    ("old", "new", "failing"),
    [
        ("SiCGe.tersoff Ge Si(D)", "SiCGe.tersoff Si(D) Ge", {"elements"}),  # habitual order, not the type order
        ("SiCGe.tersoff Ge Si(D)", "SiCGe.tersoff Ge Si(C)", {"elements"}),  # the 1988b silicon set
        ("pair_coeff      * * SiCGe.tersoff Ge Si(D)", "pair_coeff      * * Si.tersoff Si Si", {"elements"}),
        ("mass            1 72.630", "mass            1 28.0855", {"mass-type-1"}),
        ("box/relax z 0.0 vmax 0.001", "box/relax aniso 0.0 vmax 0.001", {"box-relax-z"}),
        ("box/relax z 0.0 vmax 0.001", "box/relax z 1.0 vmax 0.001", set()),  # 1 bar: within the tolerance
        ("box/relax z 0.0 vmax 0.001", "box/relax z 1.1 vmax 0.001", {"box-relax-z"}),
        ("minimize        0.0 1.0e-10 10000 100000\nwrite", "minimize        0.0 1.0e-7 10000 100000\nwrite",
         {"force-tolerance"}),  # fmt: skip
        ("minimize        0.0 1.0e-10 10000 100000\nwrite", "minimize        0.0 1.0e-8 1000 100000\nwrite", set()),
        ("minimize        0.0 1.0e-10 10000 100000\nwrite", "minimize        0.0 1.0e-10 999 100000\nwrite",
         {"iterations"}),  # fmt: skip
    ],
)
def test_relax_input_trap_fails_its_check(old, new, failing, tmp_path):
    assert old in RELAX_IN, old
    assert failed(grade_relax(RELAX_IN.replace(old, new), tmp_path)) == failing


def test_relax_element_count_mismatch_stops_every_script_check(tmp_path):
    # one element name for two atom types: LAMMPS stops with "Incorrect args for pair coefficients"
    report = grade_relax(RELAX_IN.replace("SiCGe.tersoff Ge Si(D)", "SiCGe.tersoff Ge"), tmp_path)
    assert "elements" in failed(report) and "units" in failed(report)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("lmp") is None, reason="LAMMPS (lmp) not installed")
def test_relax_reference_input_relaxes_to_the_superlattice_period(tmp_path):
    """The reference input runs, and its 16 + 16 plane period matches the interface of sige-interface-relax."""
    stage_workspace("sige-relax-inputs", tmp_path)
    (tmp_path / "in.lmp").write_text(RELAX_IN)
    import subprocess

    subprocess.run(["lmp", "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=tmp_path, check=True)
    lines = (tmp_path / "relaxed.data").read_text().splitlines()
    lo, hi = next(ln for ln in lines if ln.endswith("zlo zhi")).split()[:2]
    lz = float(hi) - float(lo)
    assert lz == pytest.approx(ref("sige-relax-inputs", "reference_run_Lz_angstrom"), abs=1e-4)
    a, c = ref("sige-interface-relax", "a_Si_angstrom"), ref("sige-interface-relax", "c_Ge_strained_angstrom")
    d = ref("sige-interface-relax", "interface_spacing_angstrom")
    # 15 Si-Si and 15 Ge-Ge spacings, two interfaces, and the planes next to them relax slightly: within 0.01 A
    assert lz == pytest.approx(15 * a / 4 + 15 * c / 4 + 2 * d, abs=0.01)


# --- sige-interface-relax and sige-tersoff-phonons -----------------------------------------------------------------


def test_interface_energy_is_per_interface_and_against_strained_germanium(tmp_path):
    ans = _helpers.reference_answer("sige-interface-relax", ("numeric.scalar",))
    gamma = ans["interface_energy_meV_per_A2"]
    assert failed(grade_scalars("sige-interface-relax", ans | {"interface_energy_meV_per_A2": 2 * gamma},
                                tmp_path / "a")) == {"interface-energy"}  # fmt: skip
    # cubic Ge as the reference: the strain energy of 384 Ge atoms over twice the 2x2 area is added
    area = (2 * ans["a_Si_angstrom"]) ** 2
    wrong = gamma + 384 * ans["Ge_strain_energy_meV_per_atom"] / (2 * area)
    assert failed(grade_scalars("sige-interface-relax", ans | {"interface_energy_meV_per_A2": wrong},
                                tmp_path / "b")) == {"interface-energy"}  # fmt: skip


def test_strained_ge_optical_singlet_is_the_top_of_the_normal_incidence_chain():
    """The longitudinal chain of (001) planes folds the [001]-polarised optical mode of the strained Ge at Gamma
    onto its zone boundary: the band top of mass-interface-transmission is that phonon of sige-tersoff-phonons."""
    singlet = ref("sige-tersoff-phonons", "Ge_strained_Gamma_singlet_THz")
    assert ref("mass-interface-transmission", "nu_c_THz") == pytest.approx(singlet, rel=2e-4)


def test_cubic_ge_optical_frequency_misses_the_strained_singlet(tmp_path):
    ans = _helpers.reference_answer("sige-tersoff-phonons", ("numeric.scalar",))
    cubic = ans["Ge_Gamma_optical_THz"]
    assert failed(grade_scalars("sige-tersoff-phonons", ans | {"Ge_strained_Gamma_singlet_THz": cubic},
                                tmp_path)) == {"ge-strained-singlet"}  # fmt: skip


# --- mass-interface-transmission (the normal-incidence chain) ------------------------------------------------------

CHAIN = json.loads((WORKSPACE / "mass-interface-transmission" / "workspace" / "interplanar_fc.json").read_text())


def test_chain_long_wavelength_limit_is_the_impedance_mismatch():
    z = [math.sqrt(L["mass_amu"] * -(L["phi_1"] + 4 * L["phi_2"])) for L in (CHAIN["lead_Si"], CHAIN["lead_Ge"])]
    amm = 4 * z[0] * z[1] / (z[0] + z[1]) ** 2
    assert ref("mass-interface-transmission", "T_long_wavelength") == pytest.approx(amm, rel=1e-6)
    assert ref("mass-interface-transmission", "transmission_curve")[0] == pytest.approx(amm, abs=1e-4)


def test_chain_device_ends_are_bulk_like():
    """The couplings two planes away from each end of the device equal the lead values (the relaxation of the
    interface has decayed there), so the leads join the device without a spurious step."""
    phi = {(i, j): v for i, j, v in CHAIN["couplings"]}
    for (i, j), lead, key in (((1, 2), "lead_Si", "phi_1"), ((1, 3), "lead_Si", "phi_2"),
                              ((13, 14), "lead_Ge", "phi_1"), ((12, 14), "lead_Ge", "phi_2")):  # fmt: skip
        assert phi[(i, j)] == pytest.approx(CHAIN[lead][key], abs=2e-5)
    # the interface couplings are not the bulk ones
    assert abs(phi[(7, 8)] - CHAIN["lead_Si"]["phi_1"]) > 0.05


def test_chain_reference_matches_the_oracle_solver():
    chain = module(REFERENCES / "mass-interface-transmission" / "solution" / "chain.py", "sige_chain")
    c = chain.Chain(CHAIN)
    for key, nu in (("T_2THz", 2e12), ("T_9p5THz", 9.5e12)):
        assert c.transmission(nu) == pytest.approx(ref("mass-interface-transmission", key), abs=1e-6)


# --- the staged device blocks (sige-agf-transmission, sige-reflection-specularity) ---------------------------------

H5 = WORKSPACE / "sige-agf-transmission" / "workspace" / "sige_device.h5"


@pytest.fixture(scope="module")
def agf_modules() -> tuple[ModuleType, ModuleType]:
    sol = REFERENCES / "sige-reflection-specularity" / "solution"
    return module(sol / "transmission.py", "sige_transmission"), module(sol / "specularity.py", "sige_specularity")


def test_every_agf_task_stages_the_same_blocks():
    for task in ("sige-reflection-specularity", "sige-landauer-conductance"):
        assert H5.read_bytes() == (WORKSPACE / task / "workspace" / "sige_device.h5").read_bytes(), task


def test_lead_blocks_are_translation_invariant(agf_modules):
    _, spec = agf_modules
    with h5py.File(H5) as h5:
        cell = h5.attrs["transverse_cell_angstrom"][()]
        a = cell[0, 0] / 2
        for lead in ("lead_Si", "lead_Ge"):
            pos = h5[f"{lead}/positions"][()]
            for block in ("onsite", "coupling"):
                h = h5[f"{lead}/{block}"][()]
                for t in ([a / 2, a / 2], [a / 2, -a / 2]):
                    p = spec.translation(pos, cell, np.array(t))
                    assert np.abs(p @ h @ p.T - h).max() < 1e-6 * np.abs(h).max()


def test_flux_is_conserved_and_xi_is_the_caroli_trace(agf_modules):
    trans, _ = agf_modules
    caroli = module(REFERENCES / "sige-agf-transmission" / "reproduce" / "caroli.py", "sige_caroli")
    dev = trans.load(H5)
    s, _ = trans.solve(dev, 6.0)
    total = np.sum(np.abs(s.t) ** 2, axis=1) + np.sum(np.abs(s.r) ** 2, axis=1)
    assert np.abs(total - 1).max() < 1e-6
    (xi_caroli,) = caroli.xi_values(H5, 1e-10, [6.0])
    assert float(np.sum(np.abs(s.t) ** 2)) == pytest.approx(xi_caroli, abs=1e-5)


def test_specularity_is_one_for_a_translation_invariant_interface(agf_modules):
    """An interface between the two bulk leads, coupled by translation-invariant blocks, conserves the in-plane wave
    vector: every reflection is specular, whatever the mismatch."""
    trans, spec = agf_modules
    dev = trans.load(H5)
    l0, l1 = dev["lead_l"]
    r0, r1 = dev["lead_r"]
    ms, mg = 28.0855, 72.63
    abrupt = dict(dev, onsite=[l0, r0], coupling=[l1, l1 * np.sqrt(ms / mg), r1])  # Si-like coupling across
    a = dev["cell"][0, 0] / 2
    ops = [spec.translation(dev["positions_l"], dev["cell"], np.array(t)) for t in ([a / 2, a / 2], [a / 2, -a / 2])]
    s = trans.scatter(2 * np.pi * 6.0e12, abrupt["lead_l"], abrupt["lead_r"], abrupt["onsite"], abrupt["coupling"],
                      abrupt["period_l"], abrupt["period_r"], eta_rel=1e-10, extra_l=ops)  # fmt: skip
    flux = np.sum(np.abs(s.t) ** 2, axis=1) + np.sum(np.abs(s.r) ** 2, axis=1)
    np.testing.assert_allclose(flux, 1.0, atol=1e-5)
    k_in, k_out = spec.labels(s.inc.vec, ops), spec.labels(s.refl.vec, ops)
    r2 = np.abs(s.r) ** 2
    same = np.array([[ki == ko for ko in k_out] for ki in k_in])
    assert r2.sum() > 0.5
    assert (r2 * same).sum() / r2.sum() == pytest.approx(1.0, abs=1e-8)


def test_intermixed_interface_reflects_diffusely_above_the_si_ta_band():
    p_all = ref("sige-reflection-specularity", "p_all")
    assert max(p_all) < 0.8 and min(p_all) > 0.2


@pytest.mark.slow
@pytest.mark.reproduction
@pytest.mark.skipif(shutil.which("lmp") is None, reason="LAMMPS (lmp) not installed")
def test_staged_files_regenerate(tmp_path):
    """make_blocks.py (LAMMPS, about a minute) rebuilds the staged blocks and the chain."""
    import subprocess

    subprocess.run([sys.executable, str(REFERENCES / "sige-agf-transmission" / "reproduce" / "make_blocks.py"),
                    str(tmp_path)], check=True)  # fmt: skip
    with h5py.File(H5) as a, h5py.File(tmp_path / "sige_device.h5") as b:
        for name in ("lead_Si/onsite", "lead_Si/coupling", "lead_Ge/onsite", "lead_Ge/coupling", "device/onsite",
                     "device/coupling", "device/masses"):  # fmt: skip
            np.testing.assert_allclose(b[name][()], a[name][()], atol=1e-6 * np.abs(a[name][()]).max())
    staged = json.loads((WORKSPACE / "mass-interface-transmission" / "workspace" / "interplanar_fc.json").read_text())
    made = json.loads((tmp_path / "interplanar_fc.json").read_text())
    np.testing.assert_allclose(np.array(made["couplings"]), np.array(staged["couplings"]), atol=2e-6)


# --- sige-vasp-phonon-inputs ----------------------------------------------------------------------------------------


def test_vasp_reference_poscars_are_phonopys_displaced_supercells(tmp_path):
    mk = module(REFERENCES / "sige-vasp-phonon-inputs" / "reproduce" / "make_poscars.py", "sige_make_poscars")
    sys.argv = ["make_poscars.py", str(tmp_path)]
    mk.main()
    for el in ("Si", "Ge"):
        expected = (REFERENCES / "sige-vasp-phonon-inputs" / el / "POSCAR").read_text()
        assert (tmp_path / el / "POSCAR").read_text() == expected


# --- sige-interface-workflow ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_workflow_oracle_reproduces_its_single_tasks(suite_oracles):
    ans = json.loads((oracle(WORKFLOW, suite_oracles) / "answer.json").read_text())
    assert ans["transmission"]["Xi"] == pytest.approx(ref("sige-agf-transmission", "Xi"), abs=1e-4)
    for key in ("p_all", "R_0", "p_0"):
        assert ans["reflection"][key] == pytest.approx(ref("sige-reflection-specularity", key), abs=1e-4)
    assert ans["c_Ge_strained_angstrom"] == pytest.approx(ref("sige-interface-relax", "c_Ge_strained_angstrom"),
                                                          abs=1e-5)  # fmt: skip


# --- sige-landauer-conductance --------------------------------------------------------------------------------------

LANDAUER = "sige-landauer-conductance"
XI_TABLE = np.loadtxt(REFERENCES / LANDAUER / "xi.dat")  # the reference Xi(nu) on its 0.025 THz midpoint grid


@pytest.fixture(scope="module")
def landauer() -> ModuleType:
    return module(REFERENCES / LANDAUER / "solution" / "landauer.py", "sige_landauer")


def _landauer_answer(lan: ModuleType, xi: np.ndarray, area: float) -> dict[str, float]:
    out = lan.conductance(XI_TABLE[:, 0], xi, 0.025, area)
    return {k: v for k, v in out.items() if k.startswith("G_")}


def _area(lan: ModuleType) -> float:
    return lan.load(H5)[-1]


def test_landauer_reference_is_the_integral_of_the_committed_transmission(landauer, tmp_path):
    ans = _landauer_answer(landauer, XI_TABLE[:, 1], _area(landauer))
    for key, value in ans.items():
        assert value == pytest.approx(ref(LANDAUER, key), rel=1e-5), key
    write_answer(tmp_path, ans)
    assert grade_dir(LANDAUER, tmp_path).passed


@pytest.mark.slow
def test_landauer_transmission_is_the_upstream_caroli_trace(landauer):
    """The recursive Green's function of the oracle gives the Xi of sige-agf-transmission at its nine frequencies."""
    ll, lr, blocks, cp, _ = landauer.load(H5)
    xi = [landauer.xi(nu, ll, lr, blocks, cp) for nu in (1.0, 5.0, 10.25)]
    upstream = ref("sige-agf-transmission", "Xi")
    assert xi == pytest.approx([upstream[0], upstream[3], upstream[7]], abs=1e-5)


def test_landauer_physics_of_the_reference():
    nu, xi = XI_TABLE.T
    # long-wavelength limit: three acoustic channels, each below one by the acoustic mismatch of Si and Ge
    assert 2.7 < xi[:20].mean() < 3.0
    # nothing crosses above the top of the strained-Ge spectrum at this transverse wave vector (about 10.8 THz)
    assert np.abs(xi[nu > 10.9]).max() < 1e-6 and xi.max() < 9
    g = [ref(LANDAUER, f"G_{t}K_MW_per_m2_K") for t in (50, 100, 300)]
    g_cl = ref(LANDAUER, "G_classical_MW_per_m2_K")
    assert g[0] < g[1] < g[2] < g_cl
    assert 0.9 < g[2] / g_cl < 0.95  # at 300 K most of the spectrum is classical, not all of it


def test_landauer_high_temperature_limit_is_the_classical_value(landauer):
    area = _area(landauer)
    old = landauer.TEMPERATURES_K
    try:
        landauer.TEMPERATURES_K = [5000.0]
        hot = landauer.conductance(XI_TABLE[:, 0], XI_TABLE[:, 1], 0.025, area)
    finally:
        landauer.TEMPERATURES_K = old
    assert hot["G_5000K_MW_per_m2_K"] == pytest.approx(hot["G_classical_MW_per_m2_K"], rel=1e-3)


@pytest.mark.parametrize(
    ("trap", "factor"),
    [
        ("per-cubic-face", 4.0),
        ("averaged-over-8-folded", 1 / 8),
        ("hbar-with-nu", 1 / (2 * np.pi)),
        ("omega-with-dnu", 2 * np.pi),
    ],
)
def test_landauer_normalisation_traps_fail_every_temperature(landauer, trap, factor, tmp_path):
    ans = _landauer_answer(landauer, XI_TABLE[:, 1] * factor, _area(landauer))
    write_answer(tmp_path, ans)
    assert failed(grade_dir(LANDAUER, tmp_path)) == {"g-50k", "g-100k", "g-300k", "g-classical"}, trap


def test_landauer_classical_occupation_fails_the_finite_temperatures(landauer, tmp_path):
    g_cl = ref(LANDAUER, "G_classical_MW_per_m2_K")
    ans = {f"G_{t}K_MW_per_m2_K": g_cl for t in (50, 100, 300)} | {"G_classical_MW_per_m2_K": g_cl}
    write_answer(tmp_path, ans)
    assert failed(grade_dir(LANDAUER, tmp_path)) == {"g-50k", "g-100k", "g-300k"}


# --- sige-nemd-superlattice-conductivity ----------------------------------------------------------------------------

SUPERLATTICE = "sige-nemd-superlattice-conductivity"


def test_superlattice_task_stages_the_nemd_run():
    for name in ("in.nemd", "sige.data", "log.lammps", "temp_profile.dat"):
        a = WORKSPACE / SUPERLATTICE / "workspace" / name
        b = WORKSPACE / "sige-nemd-conductance" / "workspace" / name
        assert a.read_bytes() == b.read_bytes(), name


def test_superlattice_reference_is_consistent_with_the_conductance_task():
    """The same flux and interface drop as sige-nemd-conductance, over the bath difference and the half period."""
    dt = ref(SUPERLATTICE, "delta_T_baths_K")
    assert ref(SUPERLATTICE, "interface_fraction") * dt == pytest.approx(ref("sige-nemd-conductance", "delta_T_K"),
                                                                          rel=1e-4)  # fmt: skip
    lz = float(next(ln for ln in (WORKSPACE / SUPERLATTICE / "workspace" / "sige.data").read_text().splitlines()
                    if ln.endswith("zhi")).split()[1])  # fmt: skip
    kappa = ref("sige-nemd-conductance", "heat_flux_W_per_m2") * 0.5 * lz * 1e-10 / dt
    assert ref(SUPERLATTICE, "kappa_eff_W_per_m_K") == pytest.approx(kappa, rel=1e-3)


def test_superlattice_baths_lag_their_set_points():
    """With heat flowing, each Langevin slab sits between its set point and its surroundings: the bath difference
    is well below the 60 K of the set points, and the interface takes most but not all of it."""
    assert 50 < ref(SUPERLATTICE, "delta_T_baths_K") < 57
    assert 0.5 < ref(SUPERLATTICE, "interface_fraction") < 0.7


def test_superlattice_set_points_and_thermo_columns_fail(tmp_path):
    vals = module(REFERENCES / SUPERLATTICE / "reproduce" / "alternatives.py", "sige_superlattice_alt")
    alt = vals.alternatives(WORKSPACE / SUPERLATTICE / "workspace")
    for case in ("trap:set-points", "trap:thermo-slab-temperatures"):
        write_answer(tmp_path / case, alt[case])
        assert failed(grade_dir(SUPERLATTICE, tmp_path / case)) == {"delta-t-baths", "kappa-eff"}, case


# --- sige-monte-carlo-tables ----------------------------------------------------------------------------------------

MC = "sige-monte-carlo-tables"


@pytest.fixture(scope="module")
def mc_tables() -> ModuleType:
    return module(REFERENCES / MC / "solution" / "tables.py", "sige_mc_tables")


def _mc_answer() -> dict[str, Any]:
    answer = {k: ref(MC, k) for k in ("n_Si", "n_Ge", "T_SiGe", "T_GeSi")}
    answer |= {f"tau_{s}_{t}K": ref(MC, f"tau_{s}_{t}K") for s in ("SiGe", "GeSi") for t in (100, 300)}
    return {"frequencies_THz": [1.5, 4.0, 5.2, 6.5, 8.6, 10.5], **answer}


def test_mc_tables_stage_the_same_blocks():
    a = WORKSPACE / MC / "workspace" / "sige_device.h5"
    assert a.read_bytes() == (WORKSPACE / LANDAUER / "workspace" / "sige_device.h5").read_bytes()


def test_mc_reference_obeys_detailed_balance():
    """Reciprocity: the total transmission is the same from both sides, n_Si T_SiGe = n_Ge T_GeSi."""
    n_si, n_ge = np.array(ref(MC, "n_Si")), np.array(ref(MC, "n_Ge"))
    t_sige, t_gesi = np.array(ref(MC, "T_SiGe")), np.array(ref(MC, "T_GeSi"))
    assert n_si * t_sige == pytest.approx(n_ge * t_gesi, rel=1e-4)
    assert np.all((t_sige > 0) & (t_sige < 1) & (t_gesi > 0) & (t_gesi < 1))
    # equal channel counts (the three long-wavelength acoustic branches) give equal probabilities
    assert n_si[0] == n_ge[0] == 3 and t_sige[0] == pytest.approx(t_gesi[0], abs=1e-5)


def test_mc_spectral_average_is_the_landauer_conductance_over_the_ballistic_one(mc_tables):
    """tau_SiGe(T) from the committed Landauer Xi(nu) and the Si lead bands: G(T) / G_ballistic,Si(T)."""
    dev = mc_tables.load(H5)
    bands = mc_tables.lead_bands(dev["lead_l"], 1024)
    nu, xi = XI_TABLE.T
    for t in (100, 300):
        w = mc_tables.heat_weight(float(t))
        g = float(np.sum(w(nu) * xi) * 0.025)  # J/K per THz of the channel integral's frequency unit
        # the same numerator is the harmonic conductance of sige-landauer-conductance
        assert g * 1e12 / dev["area_m2"] / 1e6 == pytest.approx(ref(LANDAUER, f"G_{t}K_MW_per_m2_K"), rel=1e-4)
        assert g / mc_tables.channel_integral(bands, w) == pytest.approx(ref(MC, f"tau_SiGe_{t}K"), abs=2e-3), t


def _xi_as_probability(a: dict[str, Any]) -> dict[str, Any]:
    return {"T_SiGe": [n * t for n, t in zip(a["n_Si"], a["T_SiGe"], strict=True)]}


def _wrong_side_count(a: dict[str, Any]) -> dict[str, Any]:
    return {"T_SiGe": [ns * t / ng for ns, ng, t in zip(a["n_Si"], a["n_Ge"], a["T_SiGe"], strict=True)]}


def _averages_swapped(a: dict[str, Any]) -> dict[str, Any]:
    return {f"tau_{s}_{t}K": a[f"tau_{o}_{t}K"] for s, o in (("SiGe", "GeSi"), ("GeSi", "SiGe")) for t in (100, 300)}


@pytest.mark.parametrize(
    ("trap", "edit", "failing"),
    [
        ("direction-of-incidence-ignored", lambda a: {"T_GeSi": a["T_SiGe"]}, {"t-ge-si"}),
        ("xi-not-divided-by-channels", _xi_as_probability, {"t-si-ge"}),
        ("wrong-side-channel-count", _wrong_side_count, {"t-si-ge"}),
        ("averages-swapped", _averages_swapped, {f"tau-{s}-{t}k" for s in ("si-ge", "ge-si") for t in (100, 300)}),
    ],
)
def test_mc_traps_fail_their_checks(trap, edit, failing, tmp_path):
    answer = _mc_answer()
    write_answer(tmp_path / "ok", answer)
    assert grade_dir(MC, tmp_path / "ok").passed
    write_answer(tmp_path / trap, answer | edit(answer))
    assert failed(grade_dir(MC, tmp_path / trap)) == failing, trap
