"""Study bas-isotope-dielectric (zinc-blende BAs in LDA): traps of the inputs, physics of the references, oracles.

Tasks: bas-supercell-force-inputs (input preparation, pw.x on a phonopy-displaced 64-atom supercell),
bas-harmonic-force-constants (output analysis of the precomputed supercell forces with phonopy),
bas-dielectric-dfpt-inputs (input preparation, pw.x + ph.x at Gamma with the electric field) and
bas-born-charges-dielectric (output analysis of the precomputed ph.x run). The fairness cases, the recall
baseline and the tolerance edges on the oracle's answer run in the gate tests; this module adds the study's own
traps and physics. Every oracle runs at most once per module (the supercell one runs phonopy, the
born-charges one dynmat.x).
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil

import numpy as np
import pytest
import yaml

from cmb.catalog import stage_bundle
from cmb.models import Condition
from tests.tasks._helpers import (
    ROOT,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    assert_tolerance_edges,
    entry,
    failed,
    grade_answer,
    grade_dir,
    reference_answer,
)

STUDY = "bas-isotope-dielectric"
SCI = "bas-supercell-force-inputs"
DFPT = "bas-dielectric-dfpt-inputs"
BCD = "bas-born-charges-dielectric"
HFC = "bas-harmonic-force-constants"
ALL = [SCI, HFC, DFPT, BCD]
HAS_PHONOPY = importlib.util.find_spec("phonopy") is not None and shutil.which("phonopy-init") is not None
HAS_DYNMAT = shutil.which("dynmat.x") is not None
NEEDS = {
    SCI: [pytest.mark.skipif(not HAS_PHONOPY, reason="phonopy not installed")],
    DFPT: [],
    BCD: [pytest.mark.skipif(not HAS_DYNMAT, reason="Quantum ESPRESSO dynmat.x not installed")],
    HFC: [pytest.mark.skipif(not HAS_PHONOPY, reason="phonopy not installed")],
}
WITH_ORACLE = [pytest.param(t, marks=NEEDS[t]) for t in ALL]


def _edited(task, oracle_dirs, tmp_path, file, old, new):
    sub = shutil.copytree(oracle_dirs[task], tmp_path / "sub")
    text = (sub / file).read_text()
    assert old in text, old
    (sub / file).write_text(text.replace(old, new))
    return grade_dir(task, sub)


# ------------------------------------------------------------------------------------------------ every task


@pytest.mark.parametrize("task", ALL)
def test_files_are_consistent_and_reduced_prompt_drops_only_the_method(task):
    assert_entry_is_consistent(task, STUDY)


@pytest.mark.parametrize("task", ALL)
def test_empty_submission_fails(task, tmp_path):
    assert_empty_submission_fails(task, tmp_path)


@pytest.mark.parametrize("task", ALL)
def test_staged_workspace_alone_fails(task, tmp_path):
    stage_bundle(entry(task), Condition.SF, tmp_path)
    assert not grade_dir(task, tmp_path).passed


@pytest.mark.parametrize("task", WITH_ORACLE)
def test_oracle_passes(task, oracle_dirs):
    report = grade_dir(task, oracle_dirs[task])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


def test_study_graph_holds_every_task():
    study = yaml.safe_load((ROOT / "tasks" / STUDY / "study.yaml").read_text())
    listed = [t for s in study["steps"] for t in s.get("tasks", [])]
    assert sorted(listed) == sorted(
        [
            *ALL,
            "bas-natural-dielectric",
            "bas-isotope-dielectric-shift",
            "bas-reststrahlen-band",
            "bas-near-field-heat-flux",
        ]
    )
    steps = {s["id"]: s for s in study["steps"]}
    assert steps["dielectric-response"]["precomputed"]["reproduce"] == BCD
    assert steps["harmonic-force-constants"]["precomputed"]["reproduce"] == HFC
    for task in (BCD, HFC):
        cost = yaml.safe_load((ROOT / "references" / task / "reproduce" / "cost.yaml").read_text())
        assert cost["core_minutes"] >= 10


# ------------------------------------------------------------------------------------------------ supercell inputs


def test_sci_reference_input_passes(tmp_path):
    shutil.copyfile(entry(SCI).reference_dir / "pw.in", tmp_path / "pw.in")
    report = grade_dir(SCI, tmp_path)
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


def test_sci_reference_input_is_the_first_phonopy_displacement():
    """Atom 1 (boron) moved by phonopy's default 0.02 bohr along x of the 2a cube; all others on their sites."""
    text = (entry(SCI).reference_dir / "pw.in").read_text()
    rows = re.findall(r"^\s*(B|As)\s+(\S+)\s+(\S+)\s+(\S+)\s*$", text.split("ATOMIC_POSITIONS")[1], re.M)
    assert len(rows) == 64 and sum(r[0] == "B" for r in rows) == 32
    frac = np.array([[float(x) for x in r[1:]] for r in rows])
    off = (frac * 8) - np.round(frac * 8)  # ideal sites are multiples of a/4 = 1/8 of the 2a edge
    moved = np.flatnonzero(np.abs(off).max(axis=1) > 1e-9)
    assert list(moved) == [0] and rows[0][0] == "B"
    edge_bohr = 2 * 4.7225 / 0.52917720859
    assert frac[0, 0] * edge_bohr == pytest.approx(0.02, rel=1e-6)


def test_sci_primitive_cell_and_gamma_point_fail(oracle_dirs, tmp_path):
    report = _edited(SCI, oracle_dirs, tmp_path, "pw.in", "K_POINTS {automatic}\n  2 2 2 1 1 1", "K_POINTS gamma")
    assert failed(report) == {"kpoints"}


def test_sci_unitcell_is_not_the_answer(tmp_path):
    """The staged eight-atom cell with namelists around it is another cell than the 64-atom supercell."""
    unit = (entry(SCI).workspace_dir / "unitcell.in").read_text()
    ref = (entry(SCI).reference_dir / "pw.in").read_text()
    head = ref.split("CELL_PARAMETERS")[0].replace("nat = 64", "nat = 8")
    body = "CELL_PARAMETERS" + unit.split("CELL_PARAMETERS")[1]
    (tmp_path / "pw.in").write_text(head + body)
    assert failed(grade_dir(SCI, tmp_path)) == {"supercell-size"}


# ------------------------------------------------------------------------------------------------ DFPT inputs


def test_dfpt_reference_inputs_fail_only_on_the_mesh(tmp_path):
    """The reference inputs are the production run's, on a 12x12x12 mesh denser than the selected 6x6x6."""
    for name in ("scf.in", "ph.in"):
        shutil.copyfile(entry(DFPT).reference_dir / name, tmp_path / name)
    assert failed(grade_dir(DFPT, tmp_path)) == {"kpoints"}
    text = (tmp_path / "scf.in").read_text().replace("12 12 12 1 1 1", "6 6 6 1 1 1")
    (tmp_path / "scf.in").write_text(text)
    assert grade_dir(DFPT, tmp_path).passed


def test_dfpt_ph_outdir_default_is_not_the_ground_state(oracle_dirs, tmp_path):
    """ph.x's outdir default './' is not scf.in's './tmp/': ph.x would find no ground state."""
    report = _edited(DFPT, oracle_dirs, tmp_path, "ph.in", "  outdir = './tmp/'\n", "")
    assert failed(report) == {"same-ground-state"}


def test_dfpt_quick_k_test_settings_fail(oracle_dirs, tmp_path):
    """trans = .false. is the quick setting of the k-point series: no phonons."""
    quick = "  epsil = .true.\n  trans = .false.\n"
    report = _edited(DFPT, oracle_dirs, tmp_path, "ph.in", "  epsil = .true.\n", quick)
    assert failed(report) == {"phonons"}


def test_dfpt_mesh_bound_is_the_measured_convergence():
    """The kpoints window of the grader is the smallest shifted mesh within 0.5% of the densest one measured."""
    series = {int(k): v for k, v in reference_answer_kconv().items()}
    densest = series[max(series)]
    ok = [n for n in sorted(series) if all(abs(series[m] / densest - 1) <= 0.005 for m in series if m >= n)]
    check = next(c for c in entry(DFPT).grader().checks if c.id == "kpoints")
    assert check.params["mesh"] == [ok[0]] * 3 and check.params["shift"] == [1, 1, 1]
    assert abs(series[4] / densest - 1) > 0.005  # the next candidate down misses the target


def reference_answer_kconv() -> dict[str, float]:
    return entry(DFPT).reference().values["eps_inf_shifted_series"].value


# ------------------------------------------------------------------------------------------------ born charges


def test_bcd_reference_values_pass_and_hold_at_their_tolerance_edges(tmp_path):
    assert grade_answer(BCD, reference_answer(BCD), tmp_path / "ref").passed
    assert_tolerance_edges(BCD, reference_answer(BCD), tmp_path)


def test_bcd_physics_of_the_reference():
    """LST and the mode sum agree; eps_0 does not depend on the isotope; TO scales as 1/sqrt(mu)."""
    ans = reference_answer(BCD)
    eps = ans["eps_inf"]
    assert ans["Z_B"] == pytest.approx(-ans["Z_As"])
    mu = {iso: m * 74.9216 / (m + 74.9216) for iso, m in (("11B", 11.0093), ("10B", 10.0129))}
    for iso in mu:
        d = ans[iso]
        assert d["eps_0"] == pytest.approx(eps * d["omega_LO_cm1"] ** 2 / d["omega_TO_cm1"] ** 2, abs=2e-3)
        assert d["omega_LO_cm1"] - d["omega_TO_cm1"] > 2.0  # the splitting is larger than the 1 cm^-1 tolerance
        assert d["eps_0"] - eps > 0.03
    assert ans["11B"]["eps_0"] == pytest.approx(ans["10B"]["eps_0"], abs=1e-3)
    ratio = ans["10B"]["omega_TO_cm1"] / ans["11B"]["omega_TO_cm1"]
    assert ratio == pytest.approx(np.sqrt(mu["11B"] / mu["10B"]), rel=1e-4)


@pytest.mark.skipif(not HAS_DYNMAT, reason="Quantum ESPRESSO dynmat.x not installed")
def test_bcd_ph_out_tto_as_lo_fails(oracle_dirs, tmp_path):
    """Reading the TO frequency of ph.out as the LO one (no non-analytic term at q = 0) fails."""
    ans = json.loads((oracle_dirs[BCD] / "answer.json").read_text())
    for iso in ("11B", "10B"):
        ans[iso]["omega_LO_cm1"] = ans[iso]["omega_TO_cm1"]
    assert failed(grade_answer(BCD, ans, tmp_path)) == {"lo-11", "lo-10"}


# ------------------------------------------------------------------------------------------------ harmonic phonons


def test_hfc_reference_values_pass_and_hold_at_their_tolerance_edges(tmp_path):
    assert grade_answer(HFC, reference_answer(HFC), tmp_path / "ref").passed
    assert_tolerance_edges(HFC, reference_answer(HFC), tmp_path)


def test_hfc_supercell_phonons_agree_with_dfpt_at_gamma():
    """Finite displacements and DFPT are two routes to the same Gamma phonons: TO within 1%, the same LO-TO."""
    fd, dfpt = reference_answer(HFC), reference_answer(BCD)["11B"]
    assert fd["gamma_TO_cm1"] == pytest.approx(dfpt["omega_TO_cm1"], rel=0.01)
    split_fd = fd["gamma_LO_cm1"] - fd["gamma_TO_cm1"]
    split_dfpt = dfpt["omega_LO_cm1"] - dfpt["omega_TO_cm1"]
    assert split_fd == pytest.approx(split_dfpt, abs=0.3)
    assert split_fd > 1.5  # larger than the gamma-lo tolerance: LO = TO fails


def test_hfc_branches_are_ordered_and_gapped():
    ans = reference_answer(HFC)
    for key in ("X_cm1", "L_cm1"):
        assert ans[key] == sorted(ans[key]) and len(ans[key]) == 6
        assert ans[key][3] - ans[key][2] >= ans["acoustic_optical_gap_cm1"] - 1e-6
    assert ans["gamma_TO_THz"] * 33.35641 == pytest.approx(ans["gamma_TO_cm1"], rel=1e-4)
