"""Task bas-natural-dielectric (study bas-isotope-dielectric): random boron isotopes in a large supercell of the
staged phonopy force constants. Files, tolerance edges on the reference answer, the oracle, its traps and the
physics of the supercell tool (mass-independent eps_0, the mapping reproducing phonopy's zone-boundary modes)."""

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
    assert_tolerance_edges,
    entry,
    failed,
    grade_answer,
    grade_dir,
    reference_answer,
)

STUDY = "bas-isotope-dielectric"
TASK = "bas-natural-dielectric"
SIBLING = "bas-harmonic-force-constants"
HAS_PHONOPY = importlib.util.find_spec("phonopy") is not None
needs_phonopy = pytest.mark.skipif(not HAS_PHONOPY, reason="phonopy not installed")
WS = ROOT / "tasks" / STUDY / TASK / "workspace"


def test_files_are_consistent_and_reduced_prompt_drops_only_the_method():
    assert_entry_is_consistent(TASK, STUDY)


def test_staged_files_are_the_siblings_bytes():
    sib = ROOT / "tasks" / STUDY / SIBLING / "workspace"
    for name in entry(TASK).spec.workspace:
        assert (WS / name).read_bytes() == (sib / name).read_bytes(), name


def test_empty_submission_fails(tmp_path):
    assert_empty_submission_fails(TASK, tmp_path)


def test_staged_workspace_alone_fails(tmp_path):
    stage_bundle(entry(TASK), Condition.SF, tmp_path)
    assert not grade_dir(TASK, tmp_path).passed


def test_tolerance_edges(tmp_path):
    assert_tolerance_edges(TASK, reference_answer(TASK), tmp_path)


@pytest.mark.parametrize(
    ("field", "value", "check"),
    [
        ("sigma_TO_cm1", 0.0, "sigma"),  # the virtual crystal
        ("omega_TO_mean_cm1", 699.087, "omega-mean"),  # pure 11B
        ("omega_TO_mean_cm1", 706.505, "omega-mean"),  # one conventional cell
        ("peak_Im_eps_cm1", 700.0, "peak"),  # the measured TO from memory
        ("eps_0", 9.4212, "eps-0"),  # eps_inf alone
    ],
)
def test_traps_fail_their_check_alone(field, value, check, tmp_path):
    answer = {**reference_answer(TASK), field: value}
    assert failed(grade_answer(TASK, answer, tmp_path)) == {check}


@needs_phonopy
def test_oracle_passes(oracle_dirs):
    report = grade_dir(TASK, oracle_dirs[TASK])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


@pytest.fixture(scope="module")
def tool():
    sys.path.insert(0, str(entry(TASK).reference_dir / "solution"))
    try:
        import bas_disorder

        yield bas_disorder
    finally:
        sys.path.pop(0)


@needs_phonopy
def test_supercell_mapping_keeps_phonopys_zone_boundary_modes_and_eps0_is_mass_independent(tool):
    ph = tool.phonopy_fc(WS)
    fc, is_b = tool.big_fc(ph, 1)  # the cube folds X onto Gamma
    eps_inf, z = tool.dielectric(WS / "dfpt" / "ph.out")
    w, _ = tool.modes(fc, is_b, np.full(int(is_b.sum()), tool.M11), z)
    cm1 = np.sort(w / tool.CM1_RAD_S)
    assert cm1[-1] == pytest.approx(738.078, abs=0.01)  # LO at X of the sibling's phonopy analysis
    assert cm1[-12] == pytest.approx(637.204, abs=0.01)
    fc2 = tool.big_fc(ph, 2)
    values = [tool.ir_spectrum(WS, x, size=2, seeds=(0,), ph=ph, fc=fc2)["eps0"] for x in (0.0, 0.199, 1.0)]
    assert max(values) - min(values) < 1e-6
    assert values[0] > eps_inf
