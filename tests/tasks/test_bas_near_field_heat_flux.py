"""Task bas-near-field-heat-flux (study bas-isotope-dielectric): the quasi-static near-field heat transfer
coefficient between two half-spaces of ordered 11BAs at 300 K across 10 nm and 100 nm, and the peak of its
spectrum. Files, the oracle, its traps (omega_TO or omega_LO as the peak, the classical Bose factor, Theta/T, the
flux in place of h, a 1/d scaling, the damping read as a half width or dropped) and the physics of the tool (the
k integral against its closed form, the 1/d^2 scaling, the peak near Re eps = -1)."""

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
TASK = "bas-near-field-heat-flux"
SIBLING = "bas-reststrahlen-band"
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
    ("values", "checks"),
    [
        ({"peak_cm1": 699.09}, {"spectral-peak"}),  # omega_TO as the peak
        ({"peak_cm1": 703.78}, {"spectral-peak"}),  # omega_LO as the peak
        ({"h_10nm_W_m2K": 776.33}, {"h-10nm"}),  # classical mean energy (omega in cm^-1 in the Bose factor)
        ({"h_10nm_W_m2K": 93.051}, {"h-10nm"}),  # Theta / T in place of dTheta/dT
        ({"h_10nm_W_m2K": 27915.0}, {"h-10nm"}),  # the flux to a body at 0 K reported as h
        ({"h_100nm_W_m2K": 32.49}, {"h-100nm"}),  # 1/d scaling from 10 nm
        ({"h_10nm_W_m2K": 372.94}, {"h-10nm"}),  # nearly undamped eps
    ],
)
def test_traps_fail_their_check_alone(values, checks, tmp_path):
    answer = {**reference_answer(TASK), **values}
    assert failed(grade_answer(TASK, answer, tmp_path)) == checks


def test_reference_physics():
    """h scales as 1/d^2; the peak lies inside the surface-polariton band, above omega_TO and below omega_LO of the
    same oscillator; h is far below a classical estimate."""
    v = {k: e.value for k, e in entry(TASK).reference().values.items()}
    assert v["h_10nm_W_m2K"] / v["h_100nm_W_m2K"] == pytest.approx(100.0, rel=1e-3)
    w_to, s, eps_inf = 699.087, 0.12685, 9.4212
    w_lo = w_to * np.sqrt((eps_inf + s) / eps_inf)
    w_sp = w_to * np.sqrt((eps_inf + s + 1) / (eps_inf + 1))  # undamped Re eps = -1
    assert w_to + 3.5 < v["peak_cm1"] < w_lo
    assert v["peak_cm1"] == pytest.approx(w_sp, abs=0.25)


@needs_phonopy
def test_oracle_passes(oracle_dirs):
    report = grade_dir(TASK, oracle_dirs[TASK])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


def test_k_integral_matches_closed_form():
    """Gauss-Laguerre of int x e^-x (Im r)^2 / |1 - r^2 e^-x|^2 dx equals (Im r)^2 / Im(r^2) Im Li2(r^2) for
    reflection coefficients of a damped oscillator near its surface resonance."""
    mpmath = pytest.importorskip("mpmath")
    sys.path.insert(0, str(entry(TASK).reference_dir / "solution"))
    try:
        import nearfield as nf

        eps = np.array([-1.0 + 0.6j, -0.8 + 2.0j, -3.0 + 0.9j, 5.0 + 0.01j])
        r = (eps - 1) / (eps + 1)
        exact = [(z.imag**2 / (z**2).imag) * float(mpmath.polylog(2, complex(z**2)).imag) for z in r]
        assert np.allclose(nf.k_integral(r), exact, rtol=1e-3)
    finally:
        sys.path.pop(0)
