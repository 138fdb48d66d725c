"""vasp.incar: the INCAR as VASP reads it, on effective values (VASP's defaults applied)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cmb.grading import GraderConfigError, run_check, validate_params
from cmb.grading._submission import Submission, SubmissionError
from cmb.grading.settings import Origin
from cmb.grading.vasp import IncarResolver, canonical_keyword, parse_incar, vasp_defaults
from tests.conftest import make_reference, write_files
from tests.grading.vasp._helpers import SI_POSCAR, grade, grade_incar, incar_check, resolver

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
