"""qe.* on hostile input: garbage, huge and deeply nested text fails a check, quickly."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cmb.grading import REGISTRY, Outcome, validate_params
from cmb.grading._registry import CheckContext
from cmb.grading._submission import Submission, SubmissionError
from cmb.grading.qe import MAX_LINES
from cmb.models import Reference
from tests.grading.qe._helpers import QE_TYPES, SI, effective, grade_input, qe_check, with_system


@pytest.mark.parametrize("type_", QE_TYPES)
def test_garbage_text_is_a_failed_check_with_a_clear_message(tmp_path, type_):
    params = {"qe.kpoints": {"kind": "gamma"}, "qe.structure": {"reference_file": "ref.in"}}.get(type_, {})
    setting = "system.ecutwfc" if type_ == "qe.param" else None
    if type_ == "qe.param":
        params = {"min": 1}
    check = qe_check(type_, setting, params=params)
    res = grade_input(tmp_path, "Hello, I could not do this task.\n\x7f(?)", check, ref_files={"ref.in": SI})
    assert not res.passed and "not a pw.x input" in res.message


def test_binary_and_oversized_inputs_fail_cleanly(tmp_path):
    res = grade_input(tmp_path, "&control\n\x00/", qe_check("qe.valid"))
    assert not res.passed and "binary" in res.message
    res = grade_input(tmp_path, "&control\n/\n" + "\n" * MAX_LINES, qe_check("qe.valid"))
    assert not res.passed and "lines" in res.message
    huge_value = "&system\n ecutwfc = " + "9" * 2_000_000 + "\n/\n"
    res = grade_input(tmp_path, huge_value, qe_check("qe.param", "system.ecutwfc", params={"min": 1}))
    assert not res.passed and "not a finite real number" in res.message


def test_a_line_of_a_hundred_thousand_bare_items_stops_the_reader(tmp_path):
    """Found by the fuzzer: a 1.1 MB pw.x input whose namelist line was commas and values with no names took 1.5 s,
    since only assignments counted against the reader's budget; now every item does."""
    from cmb.grading.qe import parse_pw_input

    text = "&control\n calculation = 'scf'\n/\n&system\n ibrav = 2, " + "1, ," * 100_000 + "\n/\n"
    parsed = parse_pw_input(text)
    assert any("the rest of the file is not read" in p.message for p in parsed.problems)
    res = grade_input(tmp_path, text, qe_check("qe.valid"))
    assert not res.passed


def test_huge_repeat_counts_and_atom_counts_stay_bounded(tmp_path):
    text = with_system("starting_magnetization = 999999*0.5, hubbard_v = 999999*1.0")
    res = grade_input(tmp_path, text, qe_check("qe.valid"))
    assert not res.passed
    many = SI.replace("nat = 2", "nat = 5000").replace("Si 0.25 0.25 0.25\n", "Si 0.25 0.25 0.25\n" * 4999)
    res = grade_input(
        tmp_path, many, qe_check("qe.structure", params={"reference_file": "ref.in"}), ref_files={"ref.in": SI}
    )
    assert not res.passed and "site limit" in res.message


def _direct(type_: str, text: str, tmp_path: Path) -> Outcome:
    """Call a check function directly (no engine safety net): only SubmissionError may escape."""
    params = {
        "qe.param": {"min": 1},
        "qe.kpoints": {"min_mesh": [1, 1, 1], "max_spacing": 1.0},
        "qe.species": {"functional": "pbe", "elements": ["Si"]},
        "qe.structure": {"reference_file": "ref.in"},
    }.get(type_, {"strict": True})
    setting = {"qe.param": "system.ecutrho"}.get(type_)
    check = qe_check(type_, setting, params=params)
    (tmp_path / "pw.in").write_text(text)
    ctx = CheckContext(
        check, validate_params(check), Submission(tmp_path), Reference(task="t", files=["ref.in"]), tmp_path
    )
    return REGISTRY.get(type_).fn(ctx)


# fmt: off
SYNTAX = st.sampled_from(
    ["&control", "&system", "&electrons", "&ions", "&cell", "/", "&end", "=", ",", ";", "!", "#", "'", '"', "(", ")",
     "*", "2*", ".true.", "T", "1.0d-3", "-7", "1e999", "nan", "ecutwfc", "ecutrho", "nspin", "nat", "ntyp", "ibrav",
     "celldm(1)", "starting_magnetization(1)", "occupations", "'smearing'", "vdw_corr", "'d3'", "calculation",
     "'relax'", "ATOMIC_SPECIES", "ATOMIC_POSITIONS", "crystal", "K_POINTS", "automatic", "gamma", "CELL_PARAMETERS",
     "Si", "28.0", "Si.pbe.UPF", "0.25", "1/3", "4 4 4 0 0 0", "\n", " ", "\t", "\r\n"]
)
# fmt: on


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.lists(SYNTAX, max_size=80).map(" ".join) | st.text(max_size=400))
def test_arbitrary_text_never_raises_anything_but_submission_error(tmp_path, text):
    (tmp_path / "ref.in").write_text(SI)
    for type_ in QE_TYPES:
        try:
            out = _direct(type_, text, tmp_path)
        except SubmissionError as exc:
            assert str(exc)
            continue
        assert isinstance(out, Outcome) and out.message


@settings(max_examples=150, deadline=None)
@given(
    ecutwfc=st.floats(min_value=1, max_value=500, allow_nan=False),
    dual=st.floats(min_value=1.5, max_value=16, allow_nan=False),
    give_rho=st.booleans(),
    sep=st.sampled_from([", ", "\n  ", " ", " ; "]),
)
def test_ecutrho_effective_value_property(ecutwfc, dual, give_rho, sep):
    """Whatever the layout, ecutrho is what the input says, or exactly 4 × ecutwfc when it says nothing."""
    body = f"ecutwfc = {ecutwfc!r}" + (f"{sep}ecutrho = {ecutwfc * dual!r}" if give_rho else "")
    text = SI.replace("  ecutwfc = 12.0\n", f"  {body}\n")
    got = effective(text, "system.ecutrho")
    assert got == pytest.approx(ecutwfc * dual if give_rho else 4 * ecutwfc)


# -- regressions found by bench/fuzz_graders.py -------------------------------------------------------------------


@pytest.mark.parametrize("position", ["1e999", "nan", "1e308 1e308 1e308", "1e300 -1e300 1e300"])
def test_fuzz_nonfinite_positions_fail_the_structure_check_instead_of_crashing_spglib(tmp_path, position):
    """A position whose Cartesian form overflows to inf reached spglib, which took the process down (SIGSEGV)."""
    coords = position if " " in position else f"{position} 0.25 0.25"
    text = SI.replace("Si 0.25 0.25 0.25", f"Si {coords}")
    check = qe_check("qe.structure", params={"reference_file": "ref.in"})
    res = grade_input(tmp_path, text, check, ref_files={"ref.in": SI})
    assert not res.passed and res.message


@pytest.mark.parametrize("noise", ["-1e-16", "1.0e-16", "2.5E-05", "-3.0d-12"])
def test_cell_entries_in_exponent_form_keep_their_value(noise):
    """repr() wrote rounding noise as -1e-16, which qe-tools reads as nothing (or, as 1.0e-16, as 1.0): a phonopy
    supercell was refused or given a wrong cell."""
    from cmb.grading.qe import parse_pw_input, pw_cell

    text = (
        "&control\n/\n&system\n  ibrav = 0, nat = 1, ntyp = 1, ecutwfc = 20\n/\n&electrons\n/\n"
        "ATOMIC_SPECIES\nSi 28.086 Si.pz-vbc.UPF\nATOMIC_POSITIONS crystal\nSi 0 0 0\n"
        f"CELL_PARAMETERS angstrom\n5.43 0.0 {noise}\n0.0 5.43 0.0\n0.0 0.0 5.43\nK_POINTS gamma\n"
    )
    cell = pw_cell(parse_pw_input(text, "pw.in"))
    expected = float(noise.lower().replace("d", "e"))
    assert abs(cell[0][2] - expected) < 1e-12 and abs(cell[0][0] - 5.43) < 1e-12
