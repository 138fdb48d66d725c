"""vasp.* check types: effective INCAR values (VASP's defaults applied), KPOINTS, POSCAR with MAGMOM, POTCAR."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pymatgen.core.lattice import Lattice
from pymatgen.core.structure import Structure

from cmb.grading import GraderConfigError, run_check, validate_params
from cmb.grading._submission import Submission, SubmissionError
from cmb.grading.settings import Origin
from cmb.grading.vasp import (
    IncarResolver,
    canonical_keyword,
    kspacing_mesh,
    parse_incar,
    parse_kpoints,
    vasp_defaults,
)
from cmb.models import Check, CheckResult
from tests.conftest import make_reference, write_files
from tests.grading._vasp_helpers import (
    NIO_A,
    magmom_line,
    nio_afm2,
    poscar_text,
    si_primitive,
)

SI_POSCAR = poscar_text(si_primitive())


def incar_check(
    setting: str, reference: str | None = None, tolerance: dict[str, float] | None = None, **params: Any
) -> Check:
    return Check(
        id="i",
        type="vasp.incar",
        category="software",
        target={"file": "INCAR", "setting": setting},
        reference=reference,
        tolerance=tolerance,
        params=params,
    )


def grade(tmp_path: Path, check: Check, files: dict[str, str], ref_files: dict[str, str] | None = None, **values: Any):
    sub = write_files(tmp_path / "sub", files)
    ref_dir = write_files(tmp_path / "ref", ref_files) if ref_files is not None else None
    return run_check(check, Submission(sub), make_reference(**values), ref_dir)


def grade_incar(tmp_path: Path, incar: str, check: Check, poscar: str = SI_POSCAR, **values: Any) -> CheckResult:
    return grade(tmp_path, check, {"INCAR": incar, "POSCAR": poscar}, **values)


def resolver(incar: str, nions: int = 2) -> IncarResolver:
    return IncarResolver(parse_incar(incar), nions=lambda: nions, potcar=lambda: None)


# === INCAR syntax ================================================================================


def test_incar_syntax_semicolons_comments_case_and_fortran_numbers():
    text = (
        "# header comment\n"
        "encut = 520 eV ! unit and comment after the value\n"
        "Sigma = 0.05; ismear = 0   # two statements on one line\n"
        "EDIFF = 1.0D-6\n"
        "LASPH = .TRUE. ; LWAVE = F\n"
        "SYSTEM = NiO AFM-II GGA+U\n"
    )
    r = resolver(text)
    assert r.effective("ENCUT").value == 520.0
    assert r.effective("SIGMA").value == 0.05 and r.effective("ISMEAR").value == 0
    assert r.effective("EDIFF").value == pytest.approx(1e-6)
    assert r.effective("LASPH").value is True and r.effective("LWAVE").value is False
    assert r.effective("SYSTEM").value == "NiO AFM-II GGA+U"
    assert r.effective("ismear").origin is Origin.SET and r.effective("ismear").note == "INCAR line 3"


def test_incar_line_continuation_and_quotes():
    r = resolver('MAGMOM = 1 1 \\\n  -1 -1\nSYSTEM = "two\nlines" ; NSW = 3\n', nions=4)
    assert r.effective("MAGMOM").value == [1.0, 1.0, -1.0, -1.0]
    assert r.effective("SYSTEM").value == "two lines"
    assert r.effective("NSW").value == 3


def test_magmom_repeat_syntax_expands():
    r = resolver("ISPIN = 2\nMAGMOM = 2*5 2*-5\n", nions=4)
    assert r.effective("MAGMOM").value == [5.0, 5.0, -5.0, -5.0]


def test_statement_without_equals_sign_is_a_parse_error_not_silently_dropped():
    """VASP ignores 'ISMEAR 0' without a word and runs with ISMEAR = 1; the grader says so."""
    with pytest.raises(SubmissionError, match=r"INCAR:2: 'ISMEAR 0' is not a TAG = value statement"):
        parse_incar("SIGMA = 0.05\nISMEAR 0\n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no TAG = value statements"),
        ("ENCUT =\n", "ENCUT has no value"),
        ("NSW = ten\n", "NSW = 'ten': 'ten' is not an integer"),
        ("ISMEAR = 0.5\n", "is not an integer"),
        ("LWAVE = maybe\n", "not a logical"),
        ("EDIFF = 1e999\n", "out of range"),
        ("SIGMA = nan\n", "not a number"),
        ("MAGMOM = 999999999*1\n", "more than"),
        ('SYSTEM = "unclosed\n', "never closed"),
        ("1ABC = 3\n", "not a valid INCAR tag name"),
    ],
)
def test_garbage_incar_is_a_failed_check_with_a_message(tmp_path, text, message):
    res = grade_incar(tmp_path, text, incar_check("ISMEAR", any_of=[0]))
    assert not res.passed and message in res.message


def test_binary_incar_is_a_failed_check(tmp_path):
    sub = write_files(tmp_path / "sub", {"INCAR": b"\x00\x01ISMEAR = 0", "POSCAR": SI_POSCAR})
    res = run_check(incar_check("ISMEAR", any_of=[0]), Submission(sub), make_reference())
    assert not res.passed and "binary" in res.message


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=300))
def test_incar_parser_only_raises_submission_error(text):
    try:
        incar = parse_incar(text)
    except SubmissionError:
        return
    r = resolver(text)
    for tag in incar.entries:
        try:
            r.effective(tag)
        except SubmissionError:
            pass


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["ISMEAR", "SIGMA", "MAGMOM", "ALGO", "LREAL", "NSW", "FOO", "prec"]),
            st.text(alphabet="0123456789.-+*eEdDTF ", min_size=1, max_size=12),
        ),
        max_size=6,
    )
)
def test_incar_parser_on_plausible_statements_only_raises_submission_error(pairs):
    text = "\n".join(f"{tag} = {value}" for tag, value in pairs)
    try:
        r = resolver(text)
        for tag in ("ISMEAR", "SIGMA", "MAGMOM", "ALGO", "IBRION", "PREC"):
            r.effective(tag)
    except SubmissionError:
        pass


def test_tag_set_twice_with_different_values_is_ambiguous(tmp_path):
    res = grade_incar(tmp_path, "ISMEAR = 0\nSIGMA = 0.05\nISMEAR = -5\n", incar_check("ISMEAR", any_of=[0, -5]))
    assert not res.passed and "set twice" in res.message and "ambiguous" in res.message
    # ...but only that tag is in doubt; and a repeated identical value is fine
    assert grade_incar(tmp_path, "ISMEAR = 0\nSIGMA = 0.05\nISMEAR = -5\n", incar_check("SIGMA", max=0.05)).passed
    assert grade_incar(tmp_path, "ISMEAR = 0\nismear = 0\n", incar_check("ISMEAR", any_of=[0])).passed


# === effective values: VASP's defaults ==========================================================


def test_incar_without_ismear_is_graded_as_ismear_1(tmp_path):
    """The insulator trap: no ISMEAR means Methfessel-Paxton (1), wrong for a band gap."""
    res = grade_incar(tmp_path, "ENCUT = 520\nSIGMA = 0.05\n", incar_check("ISMEAR", any_of=[0, -5]))
    assert not res.passed
    assert "ISMEAR = 1" in res.message and "VASP default" in res.message and "wiki" in res.message
    assert res.actual == 1


def test_nsw_without_ibrion_is_molecular_dynamics(tmp_path):
    """NSW = 10 and no IBRION: VASP's default is IBRION = 0 (MD), not a relaxation."""
    res = grade_incar(tmp_path, "NSW = 10\nISIF = 3\n", incar_check("IBRION", any_of=[1, 2, 3]))
    assert not res.passed and "IBRION = 0" in res.message and "molecular dynamics" in res.message
    r = resolver("NSW = 10\n")
    assert r.effective("ISIF").value == 0 and r.effective("POTIM").value is None
    assert resolver("NSW = 0\n").effective("IBRION").value == -1
    assert resolver("NSW = 10\nIBRION = 2\n").effective("ISIF").value == 2


def test_defaults_are_vasp_not_input_set_policy():
    r = resolver("ENCUT = 520\n")
    assert r.effective("LASPH").value is False  # pymatgen input sets say True; VASP says .FALSE.
    assert r.effective("LMAXMIX").value == 2
    assert r.effective("ALGO").value == "Normal" and r.effective("PREC").value == "Normal"
    assert r.effective("LREAL").value == ".FALSE."
    assert r.effective("EDIFFG").value == pytest.approx(1e-3)  # EDIFF * 10
    assert r.effective("EDIFFG").value == pytest.approx(10 * r.effective("EDIFF").value)
    assert r.effective("MAGMOM").value == [1.0, 1.0]  # NIONS * 1.0
    assert r.effective("ISYM").value == 2 and r.effective("KSPACING").value == 0.5
    assert r.effective("KGAMMA").value is True and r.effective("NELM").value == 60
    assert r.effective("IDIPOL").value is None and r.effective("LORBIT").value is None


def test_hybrid_defaults_follow_lhfcalc():
    r = resolver("LHFCALC = .TRUE.\n")
    assert r.effective("AEXX").value == 0.25
    assert r.effective("HFSCREEN").value == 0.0  # PBE0, not HSE06
    assert r.effective("ISYM").value == 3 and r.effective("ISIF").value == 0
    assert resolver("ENCUT = 400\n").effective("AEXX").value == 0.0


def test_hse_without_hfscreen_fails(tmp_path):
    res = grade_incar(
        tmp_path, "LHFCALC = .TRUE.\nALGO = All\n", incar_check("HFSCREEN", "mu", tolerance={"abs": 0.01}), mu=0.2
    )
    assert not res.passed and "HFSCREEN = 0" in res.message


def test_lnoncollinear_follows_lsorbit_and_magmom_needs_three_values_per_ion(tmp_path):
    r = resolver("LSORBIT = .TRUE.\n")
    assert r.effective("LNONCOLLINEAR").value is True
    assert r.effective("MAGMOM").value == [1.0] * 6
    res = grade_incar(tmp_path, "LSORBIT = T\nMAGMOM = 2*1\n", incar_check("MAGMOM", any_of=[None]))
    assert not res.passed and "noncollinear run with 2 ions needs 6" in res.message


def test_magmom_of_wrong_length_fails(tmp_path):
    res = grade_incar(tmp_path, "ISPIN = 2\nMAGMOM = 5 -5 0\n", incar_check("MAGMOM", "m"), m=[5, -5])
    assert not res.passed and "3 values" in res.message and "needs 2" in res.message


def test_encut_default_from_potcar_header(tmp_path):
    potcar = (
        "  PAW_PBE Si 05Jan2001\n 4.00000000000000\n parameters from PSCTR are:\n"
        "   VRHFIN =Si: s2p2\n   LEXCH  = PE\n   TITEL  = PAW_PBE Si 05Jan2001\n"
        "   POMASS =   28.085; ZVAL   =    4.000    mass and valenz\n"
        "   ENMAX  =  245.345; ENMIN  =  184.009 eV\n End of Dataset\n"
    )
    files = {"INCAR": "ISMEAR = 0\n", "POSCAR": SI_POSCAR, "POTCAR": potcar}
    res = grade(tmp_path, incar_check("ENCUT", min=240), files)
    assert res.passed and "245.345" in res.message and "POTCAR" in res.message
    res = grade(tmp_path, incar_check("ENCUT", min=300), files)
    assert not res.passed
    assert grade(tmp_path, incar_check("GGA", any_of=["pe"]), files).passed
    files["INCAR"] = "PREC = High\n"
    assert resolver_from(tmp_path, files).effective("ENCUT").value == pytest.approx(245.345 * 1.25)


def resolver_from(tmp_path: Path, files: dict[str, str]) -> IncarResolver:
    from cmb.grading.vasp import InputFiles

    sub = Submission(write_files(tmp_path / "sub2", files))
    return InputFiles.of_submission(sub, "INCAR").resolver()


def test_encut_without_potcar_cannot_be_verified(tmp_path):
    res = grade_incar(tmp_path, "ISMEAR = 0\n", incar_check("ENCUT", min=520))
    assert not res.passed and "cannot be verified" in res.message and "set ENCUT explicitly" in res.message


def test_nbands_default_is_reported_honestly(tmp_path):
    res = grade_incar(tmp_path, "LOPTICS = .TRUE.\n", incar_check("NBANDS", min=64))
    assert not res.passed and "cannot be verified" in res.message
    assert grade_incar(tmp_path, "LOPTICS = .TRUE.\nNBANDS = 96\n", incar_check("NBANDS", min=64)).passed


# === keyword values =============================================================================


def test_algo_fast_lowercase_matches_fast(tmp_path):
    assert grade_incar(tmp_path, "ALGO = fast\n", incar_check("ALGO", "a"), a="Fast").passed
    assert grade_incar(tmp_path, "ALGO = FAST\n", incar_check("ALGO", any_of=["Fast"])).passed


def test_keyword_matching_follows_vasp_first_letter_rules():
    algo, prec, lreal = (vasp_defaults()[t] for t in ("ALGO", "PREC", "LREAL"))
    assert canonical_keyword(algo, "F") == "Fast"
    assert canonical_keyword(algo, "Very_Fast") == "VeryFast" == canonical_keyword(algo, "v")
    assert canonical_keyword(algo, "Conjugate") == "All"  # synonyms in VASP
    assert canonical_keyword(algo, "Nothing") == "None"  # spelled out: not 'Normal'
    assert canonical_keyword(algo, "Exact") == "Exact"  # not 'Eigenval'
    assert canonical_keyword(algo, "Old Fast") == "Old Fast"
    assert canonical_keyword(algo, "CHI") == "CHI"
    assert canonical_keyword(prec, "acc") == "Accurate"
    assert canonical_keyword(prec, "SingleN") == "SingleN" and canonical_keyword(prec, "single") == "Single"
    assert canonical_keyword(lreal, "Auto") == "Auto" == canonical_keyword(lreal, "A")
    assert canonical_keyword(lreal, False) == ".FALSE." == canonical_keyword(lreal, ".false.")


def test_lreal_accepts_logical_or_auto(tmp_path):
    check = incar_check("LREAL", any_of=[False, "Auto"])
    assert grade_incar(tmp_path, "LREAL = Auto\n", check).passed
    assert grade_incar(tmp_path, "ENCUT = 400\n", check).passed  # default .FALSE.
    assert not grade_incar(tmp_path, "LREAL = .TRUE.\n", check).passed


# === rules an expert writes =====================================================================


def test_not_rule_and_bounds(tmp_path):
    check = incar_check("ISMEAR", **{"not": [1, 2, -5]})
    assert not grade_incar(tmp_path, "SIGMA = 0.1\n", check).passed  # default 1
    assert grade_incar(tmp_path, "ISMEAR = 0\n", check).passed
    assert validate_params(incar_check("ISMEAR", **{"not": 1})).not_ == [1]
    assert grade_incar(tmp_path, "SIGMA = 0.05\n", incar_check("SIGMA", max=0.05)).passed
    res = grade_incar(tmp_path, "ISMEAR = 0\n", incar_check("SIGMA", max=0.05))
    assert not res.passed and "SIGMA = 0.2" in res.message


def test_conditional_rule_ibrion_with_lepsilon(tmp_path):
    check = incar_check("IBRION", any_of=[7, 8], when={"lepsilon": {"eq": True}})
    assert grade_incar(tmp_path, "ISMEAR = 0\n", check).passed  # not applicable
    assert not grade_incar(tmp_path, "LEPSILON = .TRUE.\nIBRION = 6\n", check).passed
    assert grade_incar(tmp_path, "LEPSILON = .TRUE.\nIBRION = 8\n", check).passed


def test_float_reference_uses_check_tolerance(tmp_path):
    check = incar_check("ENCUT", "e", tolerance={"rel": 0.01})
    res = grade_incar(tmp_path, "ENCUT = 524\n", check, e=520)
    assert res.passed and res.tolerance == "1% rel"
    assert not grade_incar(tmp_path, "ENCUT = 530\n", check, e=520).passed


def test_integer_tags_compare_exactly(tmp_path):
    assert not grade_incar(tmp_path, "LMAXMIX = 2\n", incar_check("LMAXMIX", "l"), l=4).passed
    assert grade_incar(tmp_path, "LMAXMIX = 4\n", incar_check("LMAXMIX", "l"), l=4).passed


def test_reference_incar_gives_expected_effective_value(tmp_path):
    check = incar_check("IBRION", reference_incar="INCAR")
    ref = {"INCAR": "NSW = 50\nIBRION = 2\n", "POSCAR": SI_POSCAR}
    res = grade(tmp_path, check, {"INCAR": "NSW = 50\n", "POSCAR": SI_POSCAR}, ref)
    assert not res.passed and "IBRION = 0" in res.message


def test_unknown_tag_unset_cannot_be_verified(tmp_path):
    res = grade_incar(tmp_path, "ENCUT = 400\n", incar_check("LVDW_EWALD", any_of=[True]))
    assert not res.passed and "cannot be verified" in res.message
    assert grade_incar(tmp_path, "LVDW_EWALD = .TRUE.\n", incar_check("LVDW_EWALD", any_of=[True])).passed


def test_incar_check_without_expectation_is_a_grader_error(tmp_path):
    with pytest.raises(GraderConfigError, match="give a reference"):
        grade_incar(tmp_path, "ISMEAR = 0\n", incar_check("ISMEAR"))
    with pytest.raises(GraderConfigError):
        validate_params(incar_check("ISMEAR", anyof=[0]))


def test_defaults_table_is_complete_cited_and_evaluates():
    table = vasp_defaults()
    required = (
        "ISMEAR SIGMA ISPIN MAGMOM NSW IBRION ISIF POTIM EDIFF EDIFFG NELM ALGO PREC LREAL LASPH LMAXMIX LDAU "
        "LDAUTYPE IVDW LHFCALC HFSCREEN AEXX GGA LSORBIT LNONCOLLINEAR ISYM LEPSILON LOPTICS LCALCEPS NEDOS "
        "LDIPOL IDIPOL LORBIT LWAVE LCHARG ENCUT NBANDS KSPACING KGAMMA"
    ).split()
    assert set(required) <= set(table)
    for tag, spec in table.items():
        assert spec.source == f"https://www.vasp.at/wiki/index.php/{tag}"
    assert table["GGA"].depends_on_potcar and table["ENCUT"].depends_on_potcar and table["NBANDS"].depends_on_potcar
    for incar in ("SYSTEM = x\n", "NSW = 5\n", "LHFCALC = T\nLSORBIT = T\n", "NSW = 3\nIBRION = 6\nPREC = Low\n"):
        r = resolver(incar, nions=3)
        for tag in table:
            r.effective(tag)  # no cycles, no crash


# === KPOINTS ====================================================================================

GRAPHITE = Structure(
    Lattice.hexagonal(2.464, 6.711),
    ["C"] * 4,
    [[0, 0, 0.25], [0, 0, 0.75], [1 / 3, 2 / 3, 0.25], [2 / 3, 1 / 3, 0.75]],
)


def kpoints_check(**params: Any) -> Check:
    return Check(id="k", type="vasp.kpoints", category="scientific", target={"file": "KPOINTS"}, params=params)


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


# === POSCAR with MAGMOM ========================================================================


def nio_files(incar: str) -> dict[str, str]:
    return {"POSCAR": poscar_text(nio_afm2()), "INCAR": incar}


NIO_REF = {"POSCAR": poscar_text(nio_afm2()), "INCAR": f"ISPIN = 2\nMAGMOM = {magmom_line(nio_afm2())}\n"}


def poscar_check(**params: Any) -> Check:
    params.setdefault("reference_file", "POSCAR")
    params.setdefault("reference_incar", "INCAR")
    return Check(id="p", type="vasp.poscar", category="scientific", target={"file": "POSCAR"}, params=params)


def test_nio_afm2_cell_with_ferromagnetic_magmom_fails(tmp_path):
    res = grade(tmp_path, poscar_check(), nio_files("ISPIN = 2\nMAGMOM = 2*5 2*0.6\n"), NIO_REF)
    assert not res.passed and "magnetic order differs" in res.message
    res = grade(tmp_path, poscar_check(), nio_files("ISPIN = 2\nMAGMOM = 2*2 2*0\n"), NIO_REF)
    assert not res.passed and "Ni: 2 up / 0 down" in res.message


def test_nio_afm2_with_afm_magmom_passes_and_flipped_too(tmp_path):
    res = grade(tmp_path, poscar_check(), nio_files("ISPIN = 2\nMAGMOM = 5 -5 0 0\nLDAU = .TRUE.\n"), NIO_REF)
    assert res.passed, res.message
    assert "MAGMOM from INCAR line 2" in res.message  # where the moments come from, in words
    assert grade(tmp_path, poscar_check(), nio_files("ISPIN = 2\nMAGMOM = -5 5 2*0\n"), NIO_REF).passed


def test_afm_magmom_without_ispin_is_not_spin_polarised(tmp_path):
    """ISPIN defaults to 1: MAGMOM is then ignored and there is no magnetic order at all."""
    res = grade(tmp_path, poscar_check(), nio_files("MAGMOM = 5 -5 0 0\n"), NIO_REF)
    assert not res.passed and "ISPIN = 1" in res.message


def test_default_magmom_is_ferromagnetic(tmp_path):
    res = grade(tmp_path, poscar_check(), nio_files("ISPIN = 2\n"), NIO_REF)
    assert not res.passed and "magnetic order differs" in res.message


def test_rocksalt_primitive_cell_cannot_hold_afm2(tmp_path):
    prim = Structure.from_spacegroup("Fm-3m", Lattice.cubic(NIO_A), ["Ni", "O"], [[0, 0, 0], [0.5] * 3])
    files = {"POSCAR": poscar_text(prim.get_primitive_structure()), "INCAR": "ISPIN = 2\nMAGMOM = 5 0\n"}
    res = grade(tmp_path, poscar_check(), files, NIO_REF)
    assert not res.passed and "cannot hold the reference order" in res.message


def test_poscar_wrong_structure_fails_before_magnetism(tmp_path):
    s = nio_afm2()
    s.scale_lattice(s.volume * 1.05)
    files = {"POSCAR": poscar_text(s), "INCAR": "ISPIN = 2\nMAGMOM = 5 -5 0 0\n"}
    res = grade(tmp_path, poscar_check(), files, NIO_REF)
    assert not res.passed and "volume per atom" in res.message


def test_poscar_non_magnetic_reference_needs_no_incar(tmp_path):
    check = poscar_check(reference_incar=None)
    assert grade(tmp_path, check, {"POSCAR": SI_POSCAR}, {"POSCAR": SI_POSCAR}).passed


# === POTCAR ===================================================================================


def potcar_check(file: str = "POTCAR", **params: Any) -> Check:
    return Check(id="pp", type="vasp.potcar", category="software", target={"file": file}, params=params)


NIO_POSCAR = poscar_text(nio_afm2())


def test_potcar_spec_in_poscar_order_passes(tmp_path):
    files = {"POSCAR": NIO_POSCAR, "POTCAR.spec": "Ni_pv\nO\n"}
    res = grade(tmp_path, potcar_check(allowed={"Ni": ["Ni", "Ni_pv"], "O": ["O"]}), files)
    assert res.passed, res.message
    assert grade(tmp_path, potcar_check(symbols=["Ni_pv", "O"]), files).passed


def test_potcar_in_wrong_order_fails(tmp_path):
    files = {"POSCAR": NIO_POSCAR, "POTCAR.spec": "O\nNi_pv\n"}
    res = grade(tmp_path, potcar_check(allowed={"Ni": ["Ni_pv"], "O": ["O"]}), files)
    assert not res.passed and "do not follow the POSCAR species" in res.message


def test_potcar_not_allowed_dataset_fails(tmp_path):
    files = {"POSCAR": NIO_POSCAR, "potcar.json": '["Ni_sv_GW", "O_s"]'}
    res = grade(tmp_path, potcar_check(allowed={"Ni": ["Ni_pv"], "O": ["O"]}), files)
    assert not res.passed and "Ni_sv_GW is not an accepted Ni dataset" in res.message


def test_potcar_header_symbols_are_read(tmp_path):
    header = "  PAW_PBE {s} 06Sep2000\n   VRHFIN ={e}:\n   LEXCH  = PE\n   TITEL  = PAW_PBE {s} 06Sep2000\n"
    potcar = header.format(s="Ni_pv", e="Ni") + " End of Dataset\n" + header.format(s="O", e="O") + " End of Dataset\n"
    check = Check(id="pp", type="vasp.potcar", category="software", target={"file": "POTCAR"}, reference="x")
    res = grade(tmp_path, check, {"POSCAR": NIO_POSCAR, "POTCAR": potcar}, x=["Ni_pv", "O"])
    assert res.passed and res.actual == ["Ni_pv", "O"]
    assert not grade(tmp_path, check, {"POSCAR": NIO_POSCAR, "POTCAR": potcar}, x=["Ni", "O"]).passed


def test_potcar_missing_or_garbage_fails(tmp_path):
    res = grade(tmp_path, potcar_check(symbols=["Ni", "O"]), {"POSCAR": NIO_POSCAR})
    assert not res.passed and "POTCAR" in res.message
    res = grade(tmp_path, potcar_check(symbols=["Ni", "O"]), {"POSCAR": NIO_POSCAR, "POTCAR": "garbage\n"})
    assert not res.passed and "not a POTCAR" in res.message
    res = grade(
        tmp_path, potcar_check("POTCAR.spec", symbols=["Ni", "O"]), {"POSCAR": NIO_POSCAR, "POTCAR.spec": "Ni; rm\n"}
    )
    assert not res.passed


# === hostile submissions =========================================================================


def test_symlinked_potcar_is_reported_not_taken_as_absent(tmp_path):
    library = write_files(tmp_path / "library", {"POTCAR": "TITEL = PAW_PBE Ni_pv 06Sep2000\n"})
    sub = write_files(tmp_path / "sub", {"POSCAR": NIO_POSCAR, "INCAR": "ISMEAR = 0\n"})
    (sub / "POTCAR").symlink_to(library / "POTCAR")
    res = run_check(potcar_check(symbols=["Ni_pv", "O"]), Submission(sub), make_reference())
    assert not res.passed and "symbolic link" in res.message
    res = run_check(incar_check("ENCUT", min=300), Submission(sub), make_reference())
    assert not res.passed and "symbolic link" in res.message


def test_symlinked_kpoints_is_not_replaced_by_kspacing(tmp_path):
    outside = write_files(tmp_path / "outside", {"KPOINTS": "k\n0\nGamma\n5 5 5\n"})
    sub = write_files(tmp_path / "sub", {"POSCAR": SI_POSCAR, "INCAR": "ISMEAR = 0\n"})
    (sub / "KPOINTS").symlink_to(outside / "KPOINTS")
    res = run_check(kpoints_check(mesh=[5, 5, 5]), Submission(sub), make_reference())
    assert not res.passed and "symbolic link" in res.message


def test_huge_incar_is_handled_in_bounded_time(tmp_path):
    text = "NSW = 1 ; " * 400_000 + "\nISMEAR = 0\n"
    res = grade_incar(tmp_path, text, incar_check("ISMEAR", any_of=[0]))
    assert res.passed


def test_incar_in_a_subfolder_reads_its_neighbours(tmp_path):
    check = Check(
        id="i",
        type="vasp.incar",
        category="software",
        target={"file": "relax/INCAR", "setting": "MAGMOM"},
        reference="m",
    )
    files = {"relax/INCAR": "ISPIN = 2\n", "relax/POSCAR": SI_POSCAR}
    assert grade(tmp_path, check, files, m=[1.0, 1.0]).passed


def test_same_value_written_twice_differently_is_not_ambiguous():
    r = resolver("ENCUT = 520\nENCUT = 520.0 eV\nALGO = Fast\nalgo = fast\n")
    assert r.effective("ENCUT").value == 520.0 and r.effective("ALGO").value == "Fast"


def test_wiki_style_incar_with_comments_parses():
    text = (
        "SYSTEM = Rhodium surface calculation\n\n"
        "# start parameters for this run\n"
        "  ISTART =      0    #  job   : 0-new  1- orbitals from WAVECAR\n"
        "  ENCUT  = 300.00 eV # defaults from POTCAR, but wise to include\n"
        "  SIGMA  =    0.05;  ISMEAR =  0 # broad. in eV\n"
        "  EDIFFG = -1E-02   ! stopping-criterion for ionic relaxation\n"
    )
    r = resolver(text)
    assert r.effective("ISTART").value == 0 and r.effective("ENCUT").value == 300.0
    assert r.effective("ISMEAR").value == 0 and r.effective("EDIFFG").value == -0.01


def test_hubbard_u_lists_compare_element_wise(tmp_path):
    check = incar_check("LDAUU", "u", tolerance={"abs": 0.01})
    res = grade(tmp_path, check, {"INCAR": "LDAU = .TRUE.\nLDAUU = 6.0 0.0\n", "POSCAR": SI_POSCAR}, u=[6.0, 0.0])
    assert res.passed, res.message
    res = grade(tmp_path, check, {"INCAR": "LDAU = .TRUE.\nLDAUU = 0 6\n", "POSCAR": SI_POSCAR}, u=[6.0, 0.0])
    assert not res.passed


def test_kpoints_and_incar_both_missing(tmp_path):
    res = grade(tmp_path, kpoints_check(mesh=[5, 5, 5]), {"POSCAR": SI_POSCAR})
    assert not res.passed and "no KPOINTS file" in res.message and "INCAR" in res.message
