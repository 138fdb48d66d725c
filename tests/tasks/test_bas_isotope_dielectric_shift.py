"""Task bas-isotope-dielectric-shift (study bas-isotope-dielectric): the infrared-weighted mean and spread of the TO
frequencies of BAs with 5 %, 50 % and 95 % 10B from random boron masses in a 4x4x4 supercell of the staged force
constants. Files, the oracle, its traps (natural or pure-isotope masses, the virtual crystal, a cell too small to
hold the minority isotope) and the physics of the reference (mass-independent static response, the shift of the
enriched samples smaller than that of the pure isotopes)."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

from cmb.catalog import stage_bundle
from cmb.models import Condition
from tests.tasks._helpers import (
    ROOT,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    entry,
    failed,
    grade_answer,
    grade_dir,
    reference_answer,
)

STUDY = "bas-isotope-dielectric"
TASK = "bas-isotope-dielectric-shift"
SIBLING = "bas-natural-dielectric"
HAS_PHONOPY = importlib.util.find_spec("phonopy") is not None
needs_phonopy = pytest.mark.skipif(not HAS_PHONOPY, reason="phonopy not installed")
WS = ROOT / "tasks" / STUDY / TASK / "workspace"
SIGMAS = ["sigma-b11-enriched", "sigma-equal-mix", "sigma-b10-enriched"]


def test_files_are_consistent_and_reduced_prompt_drops_only_the_method():
    assert_entry_is_consistent(TASK, STUDY)


def test_staged_files_are_the_siblings_bytes():
    """(The shared solution tools are kept identical by test_suite.py.)"""
    sib = ROOT / "tasks" / STUDY / SIBLING / "workspace"
    for name in entry(TASK).spec.workspace:
        assert (WS / name).read_bytes() == (sib / name).read_bytes(), name


def test_empty_submission_fails(tmp_path):
    assert_empty_submission_fails(TASK, tmp_path)


def test_staged_workspace_alone_fails(tmp_path):
    stage_bundle(entry(TASK), Condition.SF, tmp_path)
    assert not grade_dir(TASK, tmp_path).passed


def _with(answer, sample, **values):
    return {**answer, sample: {**answer[sample], **values}}


@pytest.mark.parametrize(
    ("edit", "checks"),
    [
        # phonopy's natural boron mass kept for the 95 % 11B sample
        (
            lambda a: _with(a, "B11_enriched", omega_TO_mean_cm1=704.655, sigma_TO_cm1=0.0),
            {"mean-b11-enriched", "sigma-b11-enriched"},
        ),
        # the 95 % 10B sample treated as pure 10B (ordered, no residual 11B)
        (
            lambda a: _with(a, "B10_enriched", omega_TO_mean_cm1=728.784, sigma_TO_cm1=0.0),
            {"mean-b10-enriched", "sigma-b10-enriched"},
        ),
        # the equal mix as the mean-mass crystal: its mean passes, its zero spread fails
        (lambda a: _with(a, "equal_mix", omega_TO_mean_cm1=713.386, sigma_TO_cm1=0.0), {"sigma-equal-mix"}),
        # the shift of the pure isotopes instead of the enriched samples
        (lambda a: {**a, "enrichment_shift_cm1": 29.697}, {"enrichment-shift"}),
    ],
)
def test_traps_fail_their_checks(edit, checks, tmp_path):
    assert failed(grade_answer(TASK, edit(reference_answer(TASK)), tmp_path)) == checks


def test_reference_is_consistent():
    """The shift is the difference of the two means; the spreads are nearly symmetric in the host isotope and
    largest for the equal mix; each enriched mean lies inside the pure-isotope interval."""
    ref = entry(TASK).reference().values
    v = {k: ref[k].value for k in ref}
    assert v["enrichment_shift_cm1"] == pytest.approx(
        v["omega_TO_mean_B10_enriched_cm1"] - v["omega_TO_mean_B11_enriched_cm1"], abs=1e-3
    )
    assert abs(v["sigma_TO_B11_enriched_cm1"] - v["sigma_TO_B10_enriched_cm1"]) < 0.1
    assert v["sigma_TO_equal_mix_cm1"] > 2 * v["sigma_TO_B11_enriched_cm1"]
    assert 699.087 < v["omega_TO_mean_B11_enriched_cm1"] < v["omega_TO_mean_B10_enriched_cm1"] < 728.784


@needs_phonopy
def test_oracle_passes(oracle_dirs):
    report = grade_dir(TASK, oracle_dirs[TASK])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


@needs_phonopy
def test_pure_isotope_limits_and_mass_independent_eps0():
    """The tool's ordered crystals give the phonopy TO of 11BAs and 10BAs, and the static constant does not
    depend on the composition (Z Phi^-1 Z)."""
    sys.path.insert(0, str(entry(TASK).reference_dir / "solution"))
    try:
        import bas_disorder as bd
        import bas_isotope as bi

        cr = bi.Crystal(WS, 2)
        w11, s11 = cr.pure(bd.M11)
        w10, s10 = cr.pure(bd.M10)
        assert w11 == pytest.approx(699.087, abs=0.01)
        assert w10 == pytest.approx(728.784, abs=0.01)
        assert s11 == pytest.approx(s10, rel=1e-6)
        eps0 = [bi.response(cr, x, (0,))["eps0"] for x in (0.05, 0.5, 0.95)]
        assert np.ptp(eps0) < 1e-6 and eps0[0] == pytest.approx(cr.eps_inf + s11, abs=1e-6)
    finally:
        sys.path.pop(0)
