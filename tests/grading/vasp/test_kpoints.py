"""vasp.kpoints: the k-point sampling VASP would use (KPOINTS, or KSPACING without one)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pymatgen.core.lattice import Lattice
from pymatgen.core.structure import Structure

from cmb.grading import GraderConfigError, validate_params
from cmb.grading._submission import SubmissionError
from cmb.grading.vasp import kspacing_mesh, parse_kpoints
from tests.grading._crystals import poscar_text, si_primitive
from tests.grading.vasp._helpers import SI_POSCAR, grade, kpoints_check

GRAPHITE = Structure(
    Lattice.hexagonal(2.464, 6.711),
    ["C"] * 4,
    [[0, 0, 0.25], [0, 0, 0.75], [1 / 3, 2 / 3, 0.25], [2 / 3, 1 / 3, 0.75]],
)


def test_hexagonal_monkhorst_pack_even_mesh_fails_gamma_centring(tmp_path):
    poscar = poscar_text(GRAPHITE)
    mp = "graphite\n0\nMonkhorst-Pack\n12 12 4\n0 0 0\n"
    res = grade(tmp_path, kpoints_check(gamma_centered=True), {"KPOINTS": mp, "POSCAR": poscar})
    assert not res.passed and "does not contain Γ" in res.message
    gamma = "graphite\n0\nGamma\n12 12 4\n"
    assert grade(tmp_path, kpoints_check(gamma_centered=True), {"KPOINTS": gamma, "POSCAR": poscar}).passed
    odd_mp = "graphite\n0\nm\n13 13 5\n"  # only the first letter counts; odd MP meshes contain Γ
    assert grade(tmp_path, kpoints_check(gamma_centered=True), {"KPOINTS": odd_mp, "POSCAR": poscar}).passed
    shifted = "graphite\n0\nGamma\n12 12 4\n0.5 0.5 0\n"
    assert not grade(tmp_path, kpoints_check(gamma_centered=True), {"KPOINTS": shifted, "POSCAR": poscar}).passed


def test_kpoints_missing_uses_kspacing_default(tmp_path):
    """No KPOINTS and no KSPACING: VASP uses KSPACING = 0.5 1/Å, Γ-centred (Si: ceil(4.009) = 5)."""
    res = grade(
        tmp_path, kpoints_check(mesh=[5, 5, 5], gamma_centered=True), {"INCAR": "ISMEAR = 0\n", "POSCAR": SI_POSCAR}
    )
    assert res.passed, res.message
    assert "no KPOINTS file" in res.message and "KSPACING = 0.5" in res.message
    b = math.sqrt(3) / 5.431  # |b_i| of the fcc primitive cell, without 2π
    assert kspacing_mesh(si_primitive().lattice, 0.5) == (math.ceil(b * 2 * math.pi / 0.5),) * 3 == (5, 5, 5)


def test_kpoints_missing_with_explicit_kspacing_and_kgamma_false(tmp_path):
    files = {"INCAR": "KSPACING = 0.25\nKGAMMA = .FALSE.\n", "POSCAR": SI_POSCAR}
    res = grade(tmp_path, kpoints_check(mesh=[9, 9, 9]), files)
    assert res.passed, res.message
    files["INCAR"] = "KSPACING = 0.3\nKGAMMA = .FALSE.\n"  # 7x7x7: odd, so Γ is still in the mesh
    assert grade(tmp_path, kpoints_check(gamma_centered=True), files).passed


def test_kpoints_density_criteria(tmp_path):
    files = {"KPOINTS": "si\n0\nGamma\n8 8 8\n", "POSCAR": SI_POSCAR}
    assert grade(tmp_path, kpoints_check(min_kppra=1000), files).passed  # 512 * 2 atoms
    res = grade(tmp_path, kpoints_check(min_kppra=2000), files)
    assert not res.passed and "1024 k points per reciprocal atom" in res.message
    assert grade(tmp_path, kpoints_check(max_spacing=0.26), files).passed  # 2.004/8 = 0.2505
    assert not grade(tmp_path, kpoints_check(max_spacing=0.2), files).passed


def test_fully_automatic_kpoints_length(tmp_path):
    files = {"KPOINTS": "auto\n0\nAuto\n20\n", "POSCAR": SI_POSCAR}
    res = grade(tmp_path, kpoints_check(mesh=[6, 6, 6], gamma_centered=True), files)  # int(20*0.3189+0.5)
    assert res.passed, res.message


def test_explicit_kpoint_list_has_no_mesh(tmp_path):
    files = {"KPOINTS": "explicit\n2\nReciprocal\n0 0 0 1\n0.5 0 0 1\n", "POSCAR": SI_POSCAR}
    assert grade(tmp_path, kpoints_check(gamma_centered=True), files).passed
    res = grade(tmp_path, kpoints_check(min_kppra=100), files)
    assert not res.passed and "no regular mesh" in res.message


def test_line_mode_kpoints_is_not_a_scf_mesh(tmp_path):
    files = {"KPOINTS": "path\n40\nLine-mode\nreciprocal\n0 0 0 G\n0.5 0 0.5 X\n", "POSCAR": SI_POSCAR}
    res = grade(tmp_path, kpoints_check(mesh=[8, 8, 8]), files)
    assert not res.passed and "line mode" in res.message


@pytest.mark.parametrize(
    "text",
    ["x\n", "x\nzero\nGamma\n", "x\n0\nGamma\n0 4 4\n", "x\n0\nGamma\n4 4\n", "x\n0\nQ\n4 4 4\n", "x\n3\nR\n0 0 0\n"],
)
def test_garbage_kpoints_is_a_failed_check(tmp_path, text):
    res = grade(tmp_path, kpoints_check(gamma_centered=True), {"KPOINTS": text, "POSCAR": SI_POSCAR})
    assert not res.passed and "KPOINTS" in res.message


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=120))
def test_kpoints_parser_only_raises_submission_error(text):
    try:
        parse_kpoints(text, "KPOINTS", lambda: si_primitive().lattice)
    except SubmissionError:
        pass


def test_kpoints_check_needs_a_criterion():
    with pytest.raises(GraderConfigError):
        validate_params(kpoints_check(mesh=[1, 2]))
