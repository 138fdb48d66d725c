"""The grader against pw.x 6.7 itself: recorded runs of ~150 inputs, re-run where pw.x is installed."""

from __future__ import annotations

import pytest

from cmb.grading.qe import Evaluator, parse_pw_input, pw_structure
from tests.grading.qe._cases import (
    CASES,
    OBSERVED,
    OBSERVED_FIELDS,
    case_text,
    install_pseudos,
    observe,
    pw_available,
    run_pw,
)
from tests.grading.qe._helpers import stops


@pytest.mark.parametrize("name", sorted(CASES))
def test_grader_stops_exactly_where_pw_x_stopped(name):
    seen = OBSERVED[name]
    problems = stops(case_text(name))
    if seen[0] == "stop":
        assert problems, f"pw.x stopped ({seen[1]!r}) but the grader sees no problem"
    else:
        assert not problems, f"pw.x ran but the grader reports {problems}"


@pytest.mark.parametrize("name", sorted(n for n in CASES if OBSERVED[n][0] == "done"))
def test_effective_values_are_the_values_pw_x_printed(name):
    seen = dict(zip(OBSERVED_FIELDS, OBSERVED[name][1:], strict=True))
    text = case_text(name)
    pw = parse_pw_input(text)
    ev = Evaluator(pw.values)
    for key, field in {
        "system.ecutwfc": "ecutwfc",
        "system.ecutrho": "ecutrho",
        "electrons.conv_thr": "conv_thr",
        "electrons.mixing_beta": "mixing_beta",
    }.items():
        assert ev.effective(key).value == pytest.approx(seen[field], rel=1e-6), key
    assert ev.effective("system.smearing").value == seen["smearing"]
    assert ev.effective("system.vdw_corr").value == seen["vdw"]
    assert ev.effective("control.tstress").value == seen["stress"]
    if seen["converged"]:  # pw.x prints forces only after a converged SCF
        assert ev.effective("control.tprnfor").value == seen["forces"]
    structure = pw_structure(pw)
    assert len(structure) == seen["nat"]
    assert structure.volume == pytest.approx(seen["volume"], rel=1e-4)
    if pw.kpoints is not None and pw.kpoints.kind == "gamma":
        assert seen["nks"] == 1


# fmt: off
LIVE = [
    "plain", "celldm_in_angstrom", "nspin2_fixed", "nspin2_smear", "kp_glued_braces", "vdw_d3", "vdw_dftd3",
    "smear_COLD", "relax_tprnfor_false", "two_same_line", "slash_after_value", "log_T", "unknown_variable",
]
# fmt: on


@pytest.mark.slow
@pytest.mark.skipif(not pw_available(), reason="pw.x 6.7 and its example pseudopotentials are not installed")
@pytest.mark.parametrize("name", LIVE)
def test_recorded_observations_still_match_a_live_pw_x(tmp_path, name):
    pseudo = install_pseudos(tmp_path / "pseudo")
    seen = observe(run_pw(case_text(name, str(pseudo)), tmp_path / "run"))
    recorded = OBSERVED[name]
    if recorded[0] == "stop":
        assert seen.get("stop", "").startswith(recorded[1])
    else:
        assert "stop" not in seen
        assert tuple(seen[f] for f in OBSERVED_FIELDS) == recorded[1:]
