"""fe-bcc-fcc-transition-pressure (study fe-bcc-magnetism): the PBE pressure at which non-magnetic fcc iron takes
over from the bcc ferromagnet, from 44 staged outputs of the precomputed equations-of-state step.

The fairness cases and the recall baseline run in tests/tasks/test_gates.py; this module checks that the staged
outputs are fe-eos-analysis's own, the tolerance edges, the reduced-prompt rule, the physics of the reference, and
the traps built here from the staged runs (energies crossing at equal volume, the crude slope between the minima,
fits over windows around each minimum). The oracle runs at most once.
"""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest
import yaml
from scipy.optimize import brentq

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
    read_answer,
    reference_answer,
)

TASK = "fe-bcc-fcc-transition-pressure"
SIBLING = "fe-eos-analysis"
STUDY = "fe-bcc-magnetism"
RY_EV = 13.605693123
BOHR_A = 0.529177210903
EV_A3_GPA = 160.21766208
PBE_CHECKS = {"pbe-pressure", "pbe-v-bcc", "pbe-v-fcc", "pbe-dv", "pbe-moment"}


def _ref() -> dict[str, float]:
    return {k: v.value for k, v in entry(TASK).reference().values.items()}


def _curve(xc: str, state: str) -> np.ndarray:
    """Rows (V per atom in A^3, E per atom in eV, total magnetization per atom) of one staged curve."""
    rows = []
    for path in sorted(entry(TASK).workspace_dir.glob(f"fe_{xc}_{state}_*.out")):
        text = path.read_text()
        v = float(re.search(r"unit-cell volume\s+=\s+(\S+)", text).group(1)) * BOHR_A**3
        e = float(re.findall(r"^!\s+total energy\s+=\s+(\S+)", text, re.M)[-1]) * RY_EV
        m = re.findall(r"total magnetization\s+=\s+(\S+)", text)
        rows.append((v, e, float(m[-1]) if m else 0.0))
    return np.array(sorted(rows))


def _bm3(c: np.ndarray):
    """E(V) and P(V) (eV/A^3) of a third-order Birch-Murnaghan fit: a cubic in V^(-2/3)."""
    coef = np.polyfit(c[:, 0] ** (-2 / 3), c[:, 1], 3)
    der = np.polyder(coef)
    return (lambda v: np.polyval(coef, v ** (-2 / 3))), (
        lambda v: np.polyval(der, v ** (-2 / 3)) * 2 / 3 * v ** (-5 / 3)
    )


def _transition(bcc, fcc) -> tuple[float, float, float]:
    """(P in GPa, V_bcc, V_fcc) of equal enthalpy of two fitted curves."""

    def vol(curve, p):
        return brentq(lambda v: curve[1](v) - p, 7.0, 14.0)

    def dh(p):
        vb, vf = vol(bcc, p), vol(fcc, p)
        return fcc[0](vf) + p * vf - bcc[0](vb) - p * vb

    p = brentq(dh, 0.0, 0.6)
    return p * EV_A3_GPA, vol(bcc, p), vol(fcc, p)


def _pbe_answer(p: float, vb: float, vf: float, moment: float) -> dict:
    answer = copy.deepcopy(reference_answer(TASK))
    answer["pbe"] = {
        "P_transition_GPa": p,
        "V_bcc_fm_A3": vb,
        "V_fcc_nm_A3": vf,
        "dV_fcc_minus_bcc_A3": vf - vb,
        "moment_bcc_fm_muB": moment,
    }
    return answer


# ------------------------------------------------------------------------------------------------ files


def test_files_are_consistent_and_reduced_prompt_drops_only_the_method():
    assert_entry_is_consistent(TASK, STUDY, extra_reference_files=("reproduce/values.py", "reproduce/alternatives.py"))


def test_staged_outputs_are_the_siblings_byte_for_byte():
    """The 44 staged outputs are copies of fe-eos-analysis's (the precomputed step's files), bcc FM and fcc NM only."""
    mine, sibling = entry(TASK), entry(SIBLING)
    assert len(mine.spec.workspace) == 44
    assert set(mine.spec.workspace) <= set(sibling.spec.workspace)
    assert all("_bcc_fm_" in n or "_fcc_nm_" in n for n in mine.spec.workspace)
    for name in mine.spec.workspace:
        assert (mine.workspace_dir / name).read_bytes() == (sibling.workspace_dir / name).read_bytes(), name
    assert sorted(p.name for p in mine.workspace_dir.iterdir()) == sorted(mine.spec.workspace)


def test_task_sits_on_the_precomputed_equations_of_state_step():
    study = yaml.safe_load((ROOT / "tasks" / STUDY / "study.yaml").read_text())
    steps = {s["id"]: s for s in study["steps"]}
    step = steps["equations-of-state"]
    assert TASK in step["tasks"] and SIBLING in step["tasks"]
    assert step["precomputed"]["reproduce"] == SIBLING
    assert entry(TASK).spec.kind.value == "output-analysis"


def test_prompts_state_the_criterion_the_fit_range_and_the_signs():
    for condition in (Condition.SF, Condition.SR):
        text = re.sub(r"\s+", " ", entry(TASK).prompt(condition))
        assert "over all eleven runs of the curve" in text
        assert "H = E + PV" in text and "each phase at its own volume" in text
        assert "V(fcc NM) − V(bcc FM)" in text and "A positive value means that ferromagnetic bcc" in text
        assert "meV per atom" in text and "interpolated linearly in volume" in text


# ------------------------------------------------------------------------------------------------ grading


def test_empty_submission_fails(tmp_path):
    assert_empty_submission_fails(TASK, tmp_path)


def test_staged_workspace_alone_fails(tmp_path):
    stage_bundle(entry(TASK), Condition.SF, tmp_path)
    assert not grade_dir(TASK, tmp_path).passed


def test_oracle_passes_and_matches_the_reference_closely(oracle_dirs):
    report = grade_dir(TASK, oracle_dirs[TASK])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]
    got, ref = read_answer(oracle_dirs[TASK]), reference_answer(TASK)
    assert abs(got["pbe"]["P_transition_GPa"] - ref["pbe"]["P_transition_GPa"]) < 0.1
    assert abs(got["pbe"]["V_bcc_fm_A3"] - ref["pbe"]["V_bcc_fm_A3"]) < 0.005
    assert abs(got["lda"]["dH0_fcc_minus_bcc_meV"] - ref["lda"]["dH0_fcc_minus_bcc_meV"]) < 0.05


def test_reference_values_pass_and_hold_at_their_tolerance_edges(tmp_path):
    assert grade_answer(TASK, reference_answer(TASK), tmp_path / "ref").passed
    assert_tolerance_edges(TASK, reference_answer(TASK), tmp_path)


# ------------------------------------------------------------------------------------------------ physics


def test_reference_follows_from_the_staged_runs():
    """An independent third-order fit and enthalpy crossing here give the reference values."""
    ref = _ref()
    fm, fcc = _curve("pbe", "bcc_fm"), _curve("pbe", "fcc_nm")
    p, vb, vf = _transition(_bm3(fm), _bm3(fcc))
    assert p == pytest.approx(ref["pbe_P_transition_GPa"], abs=0.01)
    assert vb == pytest.approx(ref["pbe_V_bcc_fm_A3"], abs=1e-4)
    assert vf == pytest.approx(ref["pbe_V_fcc_nm_A3"], abs=1e-4)
    assert np.interp(vb, fm[:, 0], fm[:, 2]) == pytest.approx(ref["pbe_moment_bcc_fm_muB"], abs=1e-4)


def test_reference_physics():
    """fcc is denser at the transition; the bcc volume lies at the compressed end of its runs, the fcc one below
    its runs; the bcc moment shrinks smoothly with compression and does not collapse; the LDA zero-pressure
    enthalpy difference is the sibling's minimum-energy difference (negative: fcc NM below the ferromagnet)."""
    ref, sib = _ref(), {k: v.value for k, v in entry(SIBLING).reference().values.items()}
    fm, fcc = _curve("pbe", "bcc_fm"), _curve("pbe", "fcc_nm")
    assert ref["pbe_dV_fcc_minus_bcc_A3"] < 0
    assert ref["pbe_dV_fcc_minus_bcc_A3"] == pytest.approx(ref["pbe_V_fcc_nm_A3"] - ref["pbe_V_bcc_fm_A3"], abs=2e-4)
    assert fm[0, 0] < ref["pbe_V_bcc_fm_A3"] < fm[1, 0]
    assert ref["pbe_V_fcc_nm_A3"] < fcc[0, 0]
    assert np.all(np.diff(fm[:, 2]) > 0) and fm[:, 2].min() > 1.9
    assert 1.9 < ref["pbe_moment_bcc_fm_muB"] < 2.1
    assert ref["lda_dH0_fcc_minus_bcc_meV"] == pytest.approx(sib["lda_dE_fcc_nm_meV"], abs=0.02)
    assert ref["pbe_dH0_fcc_minus_bcc_meV"] == pytest.approx(sib["pbe_dE_fcc_nm_meV"], abs=0.02)
    assert ref["lda_dH0_fcc_minus_bcc_meV"] < 0 < ref["pbe_dH0_fcc_minus_bcc_meV"]
    assert ref["lda_P_transition_GPa"] < 0 < ref["pbe_P_transition_GPa"]


# ------------------------------------------------------------------------------------------------ traps


def test_energies_compared_at_equal_volume_fail(tmp_path):
    """The volume where the two E(V) fits cross, and the bcc pressure there, is not the transition."""
    fm, fcc = _curve("pbe", "bcc_fm"), _curve("pbe", "fcc_nm")
    (eb, pb), (ef, _) = _bm3(fm), _bm3(fcc)
    vx = brentq(lambda v: ef(v) - eb(v), 7.0, fm[0, 0])
    answer = _pbe_answer(pb(vx) * EV_A3_GPA, vx, vx, float(np.interp(vx, fm[:, 0], fm[:, 2])))
    assert failed(grade_answer(TASK, answer, tmp_path)) >= {"pbe-pressure", "pbe-v-bcc", "pbe-v-fcc", "pbe-dv"}


def test_crude_slope_between_the_minima_fails(tmp_path):
    """(E0(fcc) - E0(bcc)) / (V0(bcc) - V0(fcc)) is about 36 GPa, far from the crossing."""
    fm, fcc = _curve("pbe", "bcc_fm"), _curve("pbe", "fcc_nm")
    (eb, pb), (ef, pf) = _bm3(fm), _bm3(fcc)
    vb0, vf0 = brentq(pb, 8.0, 13.0), brentq(pf, 8.0, 13.0)
    p = (ef(vf0) - eb(vb0)) / (vb0 - vf0) * EV_A3_GPA
    answer = _pbe_answer(p, vb0, vf0, float(np.interp(vb0, fm[:, 0], fm[:, 2])))
    assert failed(grade_answer(TASK, answer, tmp_path)) == PBE_CHECKS


@pytest.mark.parametrize("width", [7, 9])
def test_fits_over_windows_around_the_minima_fail(width, tmp_path):
    """Leaving out the compressed runs carries the bcc curve's bend near V0 to the transition."""
    fm, fcc = _curve("pbe", "bcc_fm"), _curve("pbe", "fcc_nm")

    def window(c):
        i = int(np.argmin(c[:, 1]))
        lo = max(0, min(i - width // 2, len(c) - width))
        return c[lo : lo + width]

    p, vb, vf = _transition(_bm3(window(fm)), _bm3(window(fcc)))
    answer = _pbe_answer(p, vb, vf, float(np.interp(vb, fm[:, 0], fm[:, 2])))
    assert failed(grade_answer(TASK, answer, tmp_path)) == PBE_CHECKS


def test_pressure_left_in_ev_per_cubic_angstrom_fails(tmp_path):
    answer = reference_answer(TASK)
    answer["pbe"]["P_transition_GPa"] /= EV_A3_GPA
    assert failed(grade_answer(TASK, answer, tmp_path)) == {"pbe-pressure"}


def test_recalled_bcc_to_hcp_pressure_fails(tmp_path):
    answer = reference_answer(TASK)
    answer["pbe"]["P_transition_GPa"] = 13.0
    assert failed(grade_answer(TASK, answer, tmp_path)) == {"pbe-pressure"}


def test_lda_reported_as_a_stable_ferromagnet_fails(tmp_path):
    answer = reference_answer(TASK)
    answer["lda"]["dH0_fcc_minus_bcc_meV"] = abs(answer["lda"]["dH0_fcc_minus_bcc_meV"])
    assert failed(grade_answer(TASK, answer, tmp_path)) == {"lda-dh0"}
