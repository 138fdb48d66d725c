"""structure.* check types and compare_structures: same crystal in any setting, tight tolerances, magnetic order."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from ase.io import write as ase_write
from hypothesis import given, settings
from hypothesis import strategies as st
from pymatgen.analysis.structure_matcher import StructureMatcher
from pymatgen.core.structure import Structure
from pymatgen.io.ase import AseAtomsAdaptor
from pymatgen.io.cif import CifWriter

from cmb.grading import GraderConfigError, run_check, validate_params
from cmb.grading._structure import (
    StructureParams,
    collinear_moments,
    compare_structures,
    parse_structure,
)
from cmb.grading._submission import Submission, SubmissionError
from cmb.models import Check
from tests.conftest import make_reference, write_files
from tests.grading._crystals import (
    bare,
    nio_afm1_conventional,
    nio_afm2,
    poscar_text,
    rocksalt_nio,
    si_conventional,
    si_primitive,
)

P = StructureParams()


def match_check(file: str = "POSCAR", **params: object) -> Check:
    params.setdefault("reference_file", "ref.cif")
    return Check(id="s", type="structure.match", category="scientific", target={"file": file}, params=params)


def run_match(tmp_path: Path, reference: Structure, files: dict[str, str], **params: object):
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir(exist_ok=True)
    (ref_dir / "ref.cif").write_text(str(CifWriter(reference, write_magmoms="magmom" in reference.site_properties)))
    sub = write_files(tmp_path / "sub", files)
    file = next(iter(files))
    return run_check(match_check(file, **params), Submission(sub), make_reference(), ref_dir)


# --- same crystal, other settings ----------------------------------------------------------------


def test_primitive_cell_matches_conventional_reference():
    assert compare_structures(si_primitive(), si_conventional(), P).passed


def test_supercell_with_shifted_origin_and_permuted_atoms_matches():
    s = si_primitive() * (2, 1, 1)
    s.translate_sites(list(range(len(s))), [0.13, 0.21, 0.37])
    order = np.random.default_rng(0).permutation(len(s))
    permuted = Structure(s.lattice, [s[i].specie for i in order], s.frac_coords[order])
    out = compare_structures(permuted, si_conventional(), P)
    assert out.passed, out.message


def test_rotated_cell_matches():
    s = si_primitive()
    rot = np.array([[0, 1, 0], [-1, 0, 0], [0, 0, 1]])
    rotated = Structure(s.lattice.matrix @ rot.T, s.species, s.frac_coords)
    assert compare_structures(rotated, si_conventional(), P).passed


# --- wrong crystals --------------------------------------------------------------------------------


def test_three_percent_isotropic_strain_fails_on_volume():
    s = si_conventional()
    s.scale_lattice(s.volume * 1.03**3)
    out = compare_structures(s, si_conventional(), P)
    assert not out.passed and "volume per atom" in out.message


def test_three_percent_volume_conserving_strain_fails_on_lattice():
    s = si_conventional()
    s.apply_strain([0.03, 0.0, -0.029])
    out = compare_structures(s, si_conventional(), P)
    assert not out.passed and "lattice" in out.message


def test_small_noise_within_tolerance_passes():
    s = si_conventional()
    s.apply_strain([0.003, 0.0, -0.003])
    s.perturb(0.01)
    assert compare_structures(s, si_conventional(), P).passed


def test_wrong_species_fails():
    ge = si_conventional()
    ge.replace_species({"Si": "Ge"})
    out = compare_structures(ge, si_conventional(), P)
    assert not out.passed and "composition" in out.message


def test_wrong_arrangement_same_composition_fails():
    """Zinc-blende-like positions vs rocksalt NiO: same formula, same density, different crystal."""
    nio = rocksalt_nio()
    zb = Structure.from_spacegroup("F-43m", nio.lattice, ["Ni", "O"], [[0, 0, 0], [0.25, 0.25, 0.25]])
    out = compare_structures(zb, nio, StructureParams(magnetic=False))
    assert not out.passed and "arrangement" in out.message


def test_pymatgen_default_matcher_trap_three_percent_expansion():
    """StructureMatcher's defaults (scale=True, ltol=0.2) accept a 3% expanded cell; these tolerances do not."""
    s = si_conventional()
    s.scale_lattice(s.volume * 1.03**3)
    assert StructureMatcher().fit(si_conventional(), s)
    assert not compare_structures(s, si_conventional(), P).passed


# --- magnetic order --------------------------------------------------------------------------------


def test_ferromagnetic_nio_fails_against_afm2_reference():
    fm = nio_afm2()
    fm.add_site_property("magmom", [2.0 if s.specie.symbol == "Ni" else 0.0 for s in fm])
    out = compare_structures(fm, nio_afm2(), P)
    assert not out.passed
    assert "magnetic order differs" in out.message and "Ni: 2 up / 0 down" in out.message


def test_afm2_matches_globally_flipped_afm2():
    out = compare_structures(nio_afm2(flip=True), nio_afm2(), P)
    assert out.passed, out.message


def test_afm2_supercell_matches_afm2_reference():
    big = nio_afm2() * (2, 1, 1)
    assert compare_structures(big, nio_afm2(), P).passed


def test_afm1_in_cubic_cell_fails_against_afm2():
    out = compare_structures(nio_afm1_conventional(), nio_afm2(), P)
    assert not out.passed and "different arrangement" in out.message


def test_two_atom_primitive_cell_cannot_hold_afm2():
    prim = rocksalt_nio().get_primitive_structure()
    prim.add_site_property("magmom", [2.0 if s.specie.symbol == "Ni" else 0.0 for s in prim])
    out = compare_structures(prim, nio_afm2(), P)
    assert not out.passed and "cannot hold the reference order" in out.message


def test_missing_moments_fail_against_magnetic_reference():
    out = compare_structures(bare(nio_afm2()), nio_afm2(), P)
    assert not out.passed and "no magnetic moments" in out.message


def test_small_moments_count_as_non_magnetic():
    weak = nio_afm2()
    weak.add_site_property("magmom", [0.4, -0.4, 0.0, 0.0])
    assert not compare_structures(weak, nio_afm2(), P).passed
    assert compare_structures(weak, nio_afm2(), StructureParams(magnetic=False)).passed


def test_non_magnetic_reference_does_not_grade_order():
    ref = nio_afm2()
    ref.add_site_property("magmom", [0.0] * 4)
    out = compare_structures(nio_afm2(), ref, P)
    assert out.passed and "non-magnetic" in out.message


def test_noncollinear_vectors_that_are_collinear_project_to_signs():
    assert collinear_moments([[0, 0, 2], [0, 0, -2], [0, 0, 0]]) == [2.0, -2.0, 0.0]
    assert collinear_moments([[1, 1, 0], [-2, -2, 0]])[1] < 0
    with pytest.raises(ValueError, match="not collinear"):
        collinear_moments([[0, 0, 2], [2, 0, 0]])


# --- parsing and the registered check types --------------------------------------------------------


def test_structure_match_reads_poscar_submission(tmp_path):
    res = run_match(tmp_path, si_conventional(), {"POSCAR": poscar_text(si_primitive())})
    assert res.passed, res.message


def test_structure_match_reads_cif_and_extxyz(tmp_path):
    cif = str(CifWriter(si_primitive()))
    assert run_match(tmp_path, si_conventional(), {"answer.cif": cif}).passed
    buf = io.StringIO()
    ase_write(buf, AseAtomsAdaptor.get_atoms(si_primitive()), format="extxyz")
    assert run_match(tmp_path, si_conventional(), {"final.xyz": buf.getvalue()}).passed


def test_extxyz_magnetic_moments_are_compared(tmp_path):
    atoms = AseAtomsAdaptor.get_atoms(bare(nio_afm2()))
    atoms.set_initial_magnetic_moments([2.0, 2.0, 0.0, 0.0])
    buf = io.StringIO()
    ase_write(buf, atoms, format="extxyz")
    ref = nio_afm2()
    res = run_match(tmp_path, ref, {"nio.extxyz": buf.getvalue()}, reference_magmom=[2.0, -2.0, 0.0, 0.0])
    assert not res.passed and "magnetic order differs" in res.message
    atoms.set_initial_magnetic_moments([-2.0, 2.0, 0.0, 0.0])
    buf = io.StringIO()
    ase_write(buf, atoms, format="extxyz")
    res = run_match(tmp_path, ref, {"nio.extxyz": buf.getvalue()}, reference_magmom=[2.0, -2.0, 0.0, 0.0])
    assert res.passed, res.message


def test_vasp4_poscar_without_species_line_is_refused_not_guessed(tmp_path):
    """pymatgen would silently call the atoms H, He...; the grader refuses to invent species."""
    lines = poscar_text(si_primitive()).splitlines()
    del lines[5]
    res = run_match(tmp_path, si_conventional(), {"POSCAR": "\n".join(lines)})
    assert not res.passed and "no species line" in res.message


def test_garbage_structure_file_is_a_failed_check(tmp_path):
    res = run_match(tmp_path, si_conventional(), {"POSCAR": "this is\nnot a\nstructure at all\n1 2 3\n"})
    assert not res.passed and "POSCAR" in res.message


def test_degenerate_cell_is_a_failed_check(tmp_path):
    text = "x\n1.0\n1 0 0\n2 0 0\n0 0 1\nSi\n1\nDirect\n0 0 0\n"
    res = run_match(tmp_path, si_conventional(), {"POSCAR": text})
    assert not res.passed


def test_missing_submission_file_is_a_failed_check(tmp_path):
    ref_dir = write_files(tmp_path / "ref", {"ref.cif": str(CifWriter(si_conventional()))})
    res = run_check(match_check("POSCAR"), Submission(write_files(tmp_path / "sub", {})), make_reference(), ref_dir)
    assert not res.passed and "not found" in res.message


def test_missing_reference_file_is_a_grader_error(tmp_path):
    sub = write_files(tmp_path / "sub", {"POSCAR": poscar_text(si_primitive())})
    with pytest.raises(GraderConfigError):
        run_check(match_check("POSCAR"), Submission(sub), make_reference(), tmp_path)


def test_reference_magmom_length_mismatch_is_a_grader_error(tmp_path):
    with pytest.raises(GraderConfigError, match="reference_magmom"):
        run_match(tmp_path, si_conventional(), {"POSCAR": poscar_text(si_primitive())}, reference_magmom=[1.0])


def test_params_are_validated():
    with pytest.raises(GraderConfigError):
        validate_params(match_check(stol="tight"))
    with pytest.raises(GraderConfigError):
        validate_params(match_check(scale=True))


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=400), name=st.sampled_from(["POSCAR", "x.cif", "x.xyz"]))
def test_parse_structure_only_raises_submission_error(text, name):
    try:
        parse_structure(text, name)
    except SubmissionError:
        pass


# --- structure.lattice ----------------------------------------------------------------------------


def lattice_check(**kw: object) -> Check:
    return Check(id="l", type="structure.lattice", category="scientific", target={"file": "POSCAR"}, **kw)


def test_lattice_of_primitive_submission_is_the_conventional_cell(tmp_path):
    sub = write_files(tmp_path / "sub", {"POSCAR": poscar_text(si_primitive())})
    check = lattice_check(reference="abc", tolerance={"rel": 0.002})
    res = run_check(check, Submission(sub), make_reference(abc=[5.431, 5.431, 5.431, 90, 90, 90]))
    assert res.passed, res.message
    assert res.tolerance == "0.2% rel" and "Fd-3m" in res.message


def test_lattice_outside_tolerance_fails_with_deviation(tmp_path):
    s = si_primitive()
    s.scale_lattice(s.volume * 1.01**3)
    sub = write_files(tmp_path / "sub", {"POSCAR": poscar_text(s)})
    check = lattice_check(reference="abc", tolerance={"rel": 0.005}, params={"parameters": ["a"]})
    res = run_check(check, Submission(sub), make_reference(abc={"a": 5.431}))
    assert not res.passed and "outside" in res.message


def test_lattice_against_reference_file(tmp_path):
    ref_dir = write_files(tmp_path / "ref", {"ref.cif": str(CifWriter(si_conventional()))})
    sub = write_files(tmp_path / "sub", {"POSCAR": poscar_text(si_primitive() * (1, 1, 2))})
    check = lattice_check(tolerance={"rel": 0.001}, params={"reference_file": "ref.cif"})
    assert run_check(check, Submission(sub), make_reference(), ref_dir).passed


def test_lattice_without_any_reference_is_a_grader_error(tmp_path):
    sub = write_files(tmp_path / "sub", {"POSCAR": poscar_text(si_primitive())})
    with pytest.raises(GraderConfigError):
        run_check(lattice_check(), Submission(sub), make_reference())
