"""Task bas-reststrahlen-band (study bas-isotope-dielectric): the band of negative Re eps of ordered 11BAs with a
model width, and its depth in 95 % 11B and natural BAs from random boron isotopes in large supercells. Files, the
oracle, its traps (the undamped band, the width read as a half width, the virtual crystal, a 4x4x4 cell) and the
physics of the tool (exact roots of the single oscillator, the Lanczos resolvent against a dense diagonalisation)."""

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
TASK = "bas-reststrahlen-band"
SIBLING = "bas-natural-dielectric"
HAS_PHONOPY = importlib.util.find_spec("phonopy") is not None
needs_phonopy = pytest.mark.skipif(not HAS_PHONOPY, reason="phonopy not installed")
WS = ROOT / "tasks" / STUDY / TASK / "workspace"


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


@pytest.mark.parametrize(
    ("sample", "values", "checks"),
    [
        # omega_LO - omega_TO as the width: the damping ignored
        ("B11", {"reststrahlen_width_cm1": 4.69}, {"b11-reststrahlen-width"}),
        # the reststrahlen width reported for the surface-polariton band
        ("B11", {"spp_width_cm1": 4.243}, {"b11-spp-width"}),
        # gamma = 1 cm^-1 (a half width in place of the full one)
        ("B11", {"min_Re_eps": -34.884}, {"b11-min-re-eps"}),
        # the natural crystal as the mean-mass crystal keeps the band
        ("natural", {"min_Re_eps": -12.892}, {"natural-min-re-eps"}),
        # 95 % 11B treated as pure 11B
        ("B11_enriched", {"min_Re_eps": -12.716}, {"b11-enriched-min-re-eps"}),
        # a 4x4x4 cell: too few folded wave vectors, the natural line too peaked
        ("natural", {"min_Re_eps": 0.57}, {"natural-min-re-eps"}),
    ],
)
def test_traps_fail_their_check_alone(sample, values, checks, tmp_path):
    answer = reference_answer(TASK)
    answer[sample] = {**answer[sample], **values}
    assert failed(grade_answer(TASK, answer, tmp_path)) == checks


def test_reference_physics():
    """Damping narrows the band below the undamped omega_LO - omega_TO of the same oscillator; Re eps < -1 is
    narrower than Re eps < 0; disorder makes the band shallower with the 10B fraction and closes it at 19.9 %."""
    v = {k: e.value for k, e in entry(TASK).reference().values.items()}
    w_to, s, eps_inf = 699.087, 0.12685, 9.4212
    undamped = w_to * (np.sqrt((eps_inf + s) / eps_inf) - 1)
    assert v["B11_spp_width_cm1"] < v["B11_reststrahlen_width_cm1"] < undamped
    assert v["B11_min_Re_eps"] == pytest.approx(eps_inf - s * w_to / (2 * 2.0), abs=0.3)
    assert v["B11_min_Re_eps"] < v["B11_enriched_min_Re_eps"] < 0 < v["natural_min_Re_eps"]


@needs_phonopy
def test_oracle_passes(oracle_dirs):
    report = grade_dir(TASK, oracle_dirs[TASK])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


@needs_phonopy
def test_lanczos_resolvent_matches_dense_diagonalisation_and_exact_roots():
    """On a 2x2x2 cell the Lanczos continued fraction gives the eps(omega) of the diagonalised modes, and the
    grid edges of the ordered band agree with the roots of the single-oscillator quadratic."""
    sys.path.insert(0, str(entry(TASK).reference_dir / "solution"))
    try:
        import bas_disorder as bd
        import bas_isotope as bi
        import reststrahlen as rs

        cr = bi.Crystal(WS, 2)
        dense = bi.response(cr, 0.199, (0,), rs.OMEGA)["eps"]
        lanczos = rs.disordered_eps(WS, 0.199, 2, (0,), ph=cr.ph, steps=400)
        assert np.max(np.abs(dense - lanczos)) < 1e-3
        w, s = cr.pure(bd.M11)
        band = rs.ordered_band(WS, bd.M11, cr=cr)
        c, w2, g2, a = cr.eps_inf, w**2, 4.0, s * w**2
        x = np.sort(np.roots([c, -2 * c * w2 + c * g2 - a, c * w2**2 + a * w2]).real)
        assert band["reststrahlen_width_cm1"] == pytest.approx(np.sqrt(x[1]) - np.sqrt(x[0]), abs=2e-3)
    finally:
        sys.path.pop(0)
