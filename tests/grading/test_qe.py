"""qe.* check types: pw.x 6.7 inputs graded by the values pw.x really uses.

Expectations come from pw.x 6.7 itself: tests/grading/_qe_helpers.py holds what it did with ~150 variants of
one input (recorded runs), and the `slow` tests re-run pw.x where it is installed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pymatgen.core.lattice import Lattice
from pymatgen.core.structure import Structure

from cmb.grading import REGISTRY, GraderConfigError, Outcome, run_check, validate_params
from cmb.grading._registry import CheckContext
from cmb.grading._submission import Submission, SubmissionError
from cmb.grading.qe import (
    MAX_LINES,
    Evaluator,
    eval_infix,
    fatal_problems,
    label_element,
    parse_pw_input,
    pseudo_element,
    pseudo_functional,
    pw_cell,
    pw_structure,
    qe_table,
    resolve_setting,
)
from cmb.models import Check, CheckResult, Reference, ReferenceValue
from tests.grading._qe_helpers import (
    BOHR,
    CASES,
    OBSERVED,
    OBSERVED_FIELDS,
    case_text,
    install_pseudos,
    observe,
    pw_available,
    run_pw,
)

SI = case_text("plain")
QE_TYPES = ("qe.valid", "qe.param", "qe.kpoints", "qe.species", "qe.structure")


def with_system(extra: str, text: str = SI) -> str:
    return text.replace("  ecutwfc = 12.0\n", f"  ecutwfc = 12.0\n  {extra}\n", 1)


def qe_check(
    type_: str, setting: str | None = None, *, params: dict[str, Any] | None = None, reference: bool = False, **kw: Any
) -> Check:
    return Check(
        id=kw.pop("id", "c1"),
        type=type_,
        category=kw.pop("category", "scientific"),
        target={"file": "pw.in", "setting": setting},
        reference="x" if reference else None,
        params=params or {},
        **kw,
    )


def grade_input(
    tmp_path: Path,
    text: str,
    check: Check,
    expected: Any = None,
    ref_files: dict[str, str] | None = None,
) -> CheckResult:
    sub = tmp_path / "sub"
    sub.mkdir(exist_ok=True)
    (sub / "pw.in").write_text(text)
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir(exist_ok=True)
    for name, content in (ref_files or {}).items():
        (ref_dir / name).write_text(content)
    values = {"x": ReferenceValue(value=expected)} if expected is not None else {}
    return run_check(check, Submission(sub), Reference(task="t", values=values, files=list(ref_files or [])), ref_dir)


def param(tmp_path: Path, text: str, setting: str, expected: Any = None, **params: Any) -> CheckResult:
    if "not_" in params:
        params["not"] = params.pop("not_")
    check = qe_check("qe.param", setting, params=params, reference=expected is not None)
    return grade_input(tmp_path, text, check, expected)


def effective(text: str, key: str) -> Any:
    return Evaluator(parse_pw_input(text).values).effective(key).value


def stops(text: str) -> list[str]:
    """What pw.x would stop on, as the grader sees it (reading problems, rules, cell)."""
    pw = parse_pw_input(text)
    found = [p.text() for p in [*pw.problems, *fatal_problems(pw)]]
    if not found:
        try:
            pw_cell(pw)
        except SubmissionError as exc:
            found.append(str(exc))
    return found


# --------------------------------------------------------------------------------------------------
# The data table


def test_table_loads_and_every_curated_setting_evaluates_on_an_empty_input():
    table = qe_table()
    ev = Evaluator({})
    for key, spec in table.variables.items():
        assert spec.source, key
        ev.effective(f"{key}(1)" if spec.per_species or key == "system.celldm" else key)
    assert {"system.ecutrho", "system.vdw_corr", "electrons.conv_thr", "cell.press"} <= set(table.variables)


def test_table_defaults_match_the_qe67_documentation():
    ev = Evaluator({})
    expected = {
        "control.calculation": "scf",
        "control.tprnfor": False,
        "control.tstress": False,
        "control.etot_conv_thr": 1e-4,
        "control.forc_conv_thr": 1e-3,
        "system.occupations": "fixed",
        "system.nspin": 1,
        "system.vdw_corr": "none",
        "system.lda_plus_u": False,
        "system.nosym": False,
        "electrons.conv_thr": 1e-6,
        "electrons.mixing_beta": 0.7,
        "electrons.electron_maxstep": 100,
        "electrons.diagonalization": "david",
        "cell.press": 0.0,
        "system.starting_magnetization(1)": 0.0,
    }
    assert {k: ev.effective(k).value for k in expected} == expected
    assert qe_table().cards.K_POINTS.bare == "tpiba"
    assert qe_table().variables["system.smearing"].default == "gaussian"
    assert qe_table().variables["system.degauss"].default == 0.0


def test_conditional_defaults_follow_the_calculation():
    relax = SI.replace("'scf'", "'relax'")
    vc = SI.replace("'scf'", "'vc-relax'")
    md = SI.replace("'scf'", "'md'")
    assert effective(relax, "ions.ion_dynamics") == "bfgs"
    assert effective(vc, "ions.ion_dynamics") == "bfgs"
    assert effective(vc, "cell.cell_dynamics") == "bfgs"
    assert effective(md, "ions.ion_dynamics") == "verlet"
    assert effective(SI, "ions.ion_dynamics") == "none"
    assert effective(SI.replace("'scf'", "'vc-md'"), "ions.ion_dynamics") == "beeman"
    assert effective(relax, "control.nstep") == 50 and effective(SI, "control.nstep") == 1


# --------------------------------------------------------------------------------------------------
# Agreement with the real pw.x 6.7 (recorded runs)


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


# --------------------------------------------------------------------------------------------------
# Traps from real QE behaviour


def test_input_without_ecutrho_is_graded_as_4x_ecutwfc(tmp_path):
    assert OBSERVED["plain"][OBSERVED_FIELDS.index("ecutrho") + 1] == 48.0  # pw.x printed it
    res = param(tmp_path, SI, "system.ecutrho", 48.0)
    assert res.passed and "4 × system.ecutwfc" in res.message and res.actual == 48.0
    res = param(tmp_path, SI, "system.ecutrho", 96.0)
    assert not res.passed and "not in the input" in res.message


def test_input_without_ecutrho_fails_a_paw_check_of_ecutrho_at_least_8x_ecutwfc(tmp_path):
    res = param(tmp_path, SI, "system.ecutrho", ratio_to={"setting": "system.ecutwfc", "min": 8})
    assert not res.passed and "4 × system.ecutwfc" in res.message
    paw = {"setting": "SYSTEM.ecutwfc", "min": 8}
    assert param(tmp_path, with_system("ecutrho = 96"), "system.ecutrho", ratio_to=paw).passed
    assert not param(tmp_path, with_system("ecutrho = 95"), "system.ecutrho", ratio_to=paw).passed


def test_celldm_given_in_angstrom_fails_the_structure_check(tmp_path):
    check = qe_check("qe.structure", params={"reference_file": "ref.in"})
    ref = {"ref.in": SI}
    assert grade_input(tmp_path, SI, check, ref_files=ref).passed
    wrong = case_text("celldm_in_angstrom")  # celldm(1) = 5.43: the Å value in a bohr field; pw.x ran it
    assert OBSERVED["celldm_in_angstrom"][0] == "done"
    res = grade_input(tmp_path, wrong, check, ref_files=ref)
    assert not res.passed and "volume per atom" in res.message
    # A is in Å: the same number is right there
    assert grade_input(tmp_path, case_text("a_instead"), check, ref_files=ref).passed


def test_nspin2_without_starting_magnetization_is_caught(tmp_path):
    # pw.x 6.7 stops on both (recorded): with fixed occupations first on tot_magnetization.
    assert OBSERVED["nspin2_fixed"][1].startswith("fixed occupations and lsda need tot_magnetization")
    assert OBSERVED["nspin2_smear"][1].startswith("some starting_magnetization MUST be set")
    for name, message in (("nspin2_fixed", "need tot_magnetization"), ("nspin2_smear", "MUST be set")):
        res = grade_input(tmp_path, case_text(name), qe_check("qe.valid"))
        assert not res.passed and message in res.message
        res = param(tmp_path, case_text(name), "system.nspin", 2)
        assert not res.passed and "pw.x 6.7 stops" in res.message
    assert grade_input(tmp_path, case_text("nspin2_smear_mag"), qe_check("qe.valid")).passed
    assert param(tmp_path, case_text("nspin2_smear_mag"), "system.nspin", 2).passed


def test_kpoints_gamma_is_not_an_automatic_mesh(tmp_path):
    gamma = case_text("kp_gamma")
    res = grade_input(tmp_path, gamma, qe_check("qe.kpoints", params={"kind": "automatic"}))
    assert not res.passed and "gamma" in res.message
    assert not grade_input(tmp_path, gamma, qe_check("qe.kpoints", params={"min_mesh": [2, 2, 2]})).passed
    assert grade_input(tmp_path, gamma, qe_check("qe.kpoints", params={"kind": "gamma"})).passed
    auto1 = SI.replace("2 2 2 0 0 0", "1 1 1 0 0 0")
    assert not grade_input(tmp_path, auto1, qe_check("qe.kpoints", params={"kind": "gamma"})).passed
    res = grade_input(tmp_path, gamma, qe_check("qe.kpoints", params={"mesh": [1, 1, 1], "gamma_as_mesh": False}))
    assert not res.passed and "no Monkhorst-Pack mesh" in res.message


def test_missing_kpoints_card_means_gamma_only(tmp_path):
    assert OBSERVED["kp_absent"][OBSERVED_FIELDS.index("nks") + 1] == 1
    res = grade_input(tmp_path, case_text("kp_absent"), qe_check("qe.kpoints", params={"min_mesh": [2, 2, 2]}))
    assert not res.passed and "no K_POINTS card" in res.message


def test_kpoints_brace_glued_to_the_card_name_is_ignored_by_pw_and_graded_as_gamma(tmp_path):
    text = case_text("kp_glued_braces")  # 'K_POINTS{automatic}': pw.x warns 'card ignored' and uses Γ only
    assert OBSERVED["kp_glued_braces"][OBSERVED_FIELDS.index("nks") + 1] == 1
    res = grade_input(tmp_path, text, qe_check("qe.kpoints", params={"mesh": [2, 2, 2]}))
    assert not res.passed and "no K_POINTS card" in res.message
    res = grade_input(tmp_path, text, qe_check("qe.valid", params={"strict": True}))
    assert not res.passed and "K_POINTS{automatic}" in res.message
    assert grade_input(tmp_path, case_text("kp_braces"), qe_check("qe.kpoints", reference=True), [2, 2, 2]).passed


def test_kpoint_mesh_too_coarse_fails_a_minimum_mesh(tmp_path):
    res = grade_input(tmp_path, SI, qe_check("qe.kpoints", params={"min_mesh": [6, 6, 6]}))
    assert not res.passed and "coarser" in res.message
    fine = SI.replace("2 2 2 0 0 0", "8 8 8 1 1 1")
    assert grade_input(
        tmp_path, fine, qe_check("qe.kpoints", params={"min_mesh": [6, 6, 6], "shift": [1, 1, 1]})
    ).passed
    assert not grade_input(tmp_path, fine, qe_check("qe.kpoints", params={"shift": [0, 0, 0]})).passed
    assert not grade_input(tmp_path, fine, qe_check("qe.kpoints", params={"max_mesh": [4, 4, 4]})).passed


def test_kpoint_spacing_uses_the_cell_pw_x_builds(tmp_path):
    # fcc Si, a = 10.26 bohr: |b| = 2π·√3/a = 1.004 Å⁻¹ per reciprocal vector
    b = 2 * np.pi * np.sqrt(3) / (10.26 * BOHR)
    mesh8 = SI.replace("2 2 2 0 0 0", "8 8 8 0 0 0")
    assert grade_input(tmp_path, mesh8, qe_check("qe.kpoints", params={"max_spacing": b / 8 * 1.01})).passed
    res = grade_input(tmp_path, mesh8, qe_check("qe.kpoints", params={"max_spacing": b / 8 * 0.99}))
    assert not res.passed and "exceeds" in res.message


def test_explicit_kpoint_lists_have_no_mesh(tmp_path):
    text = case_text("kp_list")
    assert grade_input(tmp_path, text, qe_check("qe.kpoints", params={"kind": "list"})).passed
    res = grade_input(tmp_path, text, qe_check("qe.kpoints", params={"min_mesh": [2, 2, 2]}))
    assert not res.passed and "2 explicit points" in res.message


@pytest.mark.parametrize("spelling", ["grimme-d3", "Grimme-D3", "DFT-D3", "dft-d3"])
def test_vdw_corr_d3_spellings_pw_x_accepts(tmp_path, spelling):
    res = param(tmp_path, with_system(f"vdw_corr = '{spelling}'"), "system.vdw_corr", "DFT-D3")
    assert res.passed and res.actual == "grimme-d3"


@pytest.mark.parametrize("spelling", ["d3", "D3", "DFT-d3", "GRIMME-D3"])
def test_vdw_corr_spellings_pw_x_ignores_mean_no_correction(tmp_path, spelling):
    assert OBSERVED["vdw_d3"][OBSERVED_FIELDS.index("vdw") + 1] == "none"
    assert OBSERVED["vdw_D3mixed"][OBSERVED_FIELDS.index("vdw") + 1] == "none"
    res = param(tmp_path, with_system(f"vdw_corr = '{spelling}'"), "system.vdw_corr", "grimme-d3")
    assert not res.passed and res.actual == "none" and "unknown vdw correction" in res.message


def test_obsolete_london_flag_means_grimme_d2(tmp_path):
    assert OBSERVED["vdw_london"][OBSERVED_FIELDS.index("vdw") + 1] == "grimme-d2"
    assert param(tmp_path, case_text("vdw_london"), "system.vdw_corr", "dft-d").passed


def test_grader_spelling_of_a_value_pw_x_does_not_know_is_a_grader_error(tmp_path):
    with pytest.raises(GraderConfigError, match="knows no such value"):
        param(tmp_path, SI, "system.vdw_corr", "d3")


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("gauss", "gaussian"),
        ("mp", "methfessel-paxton"),
        ("M-V", "marzari-vanderbilt"),
        ("cold", "marzari-vanderbilt"),
        ("F-D", "fermi-dirac"),
    ],
)
def test_smearing_aliases(tmp_path, spelling, canonical):
    text = with_system(f"occupations = 'smearing', smearing = '{spelling}', degauss = 0.02")
    res = param(tmp_path, text, "system.smearing", any_of=["cold", "gaussian", "m-p", "fd"])
    assert res.passed and res.actual == canonical


def test_smearing_spelling_pw_x_rejects_stops_it(tmp_path):
    assert OBSERVED["smear_COLD"] == ("stop", "smearing COLD unknown")
    res = param(tmp_path, case_text("smear_COLD"), "system.smearing", "cold")
    assert not res.passed and "not accepted" in res.message


def test_smearing_is_ignored_unless_occupations_is_smearing(tmp_path):
    text = case_text("smear_ignored")  # smearing='COLD', degauss=0.02 with fixed occupations: pw.x runs
    assert OBSERVED["smear_ignored"][0] == "done"
    res = param(tmp_path, text, "system.smearing", "cold")
    assert not res.passed and res.actual == "none" and "only with occupations='smearing'" in res.message
    assert effective(text, "system.degauss") == 0.0


def test_case_of_calculation_matters_to_pw_x(tmp_path):
    assert OBSERVED["calc_upper"][0] == "stop"
    res = param(tmp_path, case_text("calc_upper"), "control.calculation", "scf")
    assert not res.passed and "'SCF' is not accepted" in res.message
    assert param(tmp_path, SI, "control.calculation", "SCF").passed  # the grader's spelling is normalised


def test_input_dft_names_are_case_insensitive_and_unset_depends_on_the_pseudopotential(tmp_path):
    assert param(tmp_path, case_text("dft_pbe"), "system.input_dft", "PBE").passed
    res = param(tmp_path, SI, "system.input_dft", "pz")
    assert not res.passed and "pseudopotential files" in res.message


def test_forces_and_stress_are_forced_by_the_calculation(tmp_path):
    relax = case_text("relax_tprnfor_false")  # tprnfor=.false. in a relax: pw.x computed forces anyway
    assert OBSERVED["relax_tprnfor_false"][OBSERVED_FIELDS.index("forces") + 1] is True
    res = param(tmp_path, relax, "control.tprnfor", True)
    assert res.passed and "overridden" in res.message
    assert param(tmp_path, case_text("vcrelax"), "control.tstress", True).passed
    assert param(tmp_path, SI, "control.tstress", False).passed


def test_starting_magnetization_is_clamped_like_pw_x_does(tmp_path):
    res = param(tmp_path, case_text("smag_clamp"), "system.starting_magnetization(1)", max=1.0, min=1.0)
    assert res.passed and "brought into [-1, 1]" in res.message


FE_AFM = """&control
  calculation = 'scf'
/
&system
  ibrav = 1, celldm(1) = 5.42, nat = 2, ntyp = 2
  ecutwfc = 30, ecutrho = 240
  occupations = 'smearing', smearing = 'mv', degauss = 0.02
  nspin = 2
  starting_magnetization(1) = 0.5
  starting_magnetization(2) = {m2}
/
&electrons
/
ATOMIC_SPECIES
Fe1 55.845 Fe.pbe-spn-kjpaw_psl.0.2.1.UPF
Fe2 55.845 Fe.pbe-spn-kjpaw_psl.0.2.1.UPF
ATOMIC_POSITIONS crystal
Fe1 0.0 0.0 0.0
Fe2 0.5 0.5 0.5
K_POINTS automatic
6 6 6 0 0 0
"""


def test_starting_magnetization_by_species_index_label_or_element(tmp_path):
    text = FE_AFM.format(m2=-0.5)
    assert param(tmp_path, text, "system.starting_magnetization(2)", -0.5).passed
    assert param(tmp_path, text, "system.starting_magnetization(Fe2)", -0.5).passed
    by_element = param(tmp_path, text, "system.starting_magnetization(Fe)", min=0.1)
    assert not by_element.passed and "Fe2" in by_element.message  # every Fe species must satisfy it
    res = param(tmp_path, text, "system.starting_magnetization(Co)", min=0.1)
    assert not res.passed and "no species" in res.message


def test_magnetic_order_from_starting_magnetization_is_compared(tmp_path):
    check = qe_check("qe.structure", params={"reference_file": "afm.in"})
    ref = {"afm.in": FE_AFM.format(m2=-0.5)}
    assert grade_input(tmp_path, FE_AFM.format(m2=-0.3), check, ref_files=ref).passed
    res = grade_input(tmp_path, FE_AFM.format(m2=0.5), check, ref_files=ref)
    assert not res.passed and "magnetic order differs" in res.message
    non_spin = FE_AFM.format(m2=-0.5).replace("  nspin = 2\n", "")
    assert not grade_input(tmp_path, non_spin, check, ref_files=ref).passed  # nspin=1: no moments at all
    bcc_fm = FE_AFM.format(m2=0.5).replace("ibrav = 1,", "ibrav = 3,").replace("nat = 2, ntyp = 2", "nat = 1, ntyp = 1")
    bcc_fm = bcc_fm.replace("Fe2 55.845 Fe.pbe-spn-kjpaw_psl.0.2.1.UPF\n", "").replace("Fe2 0.5 0.5 0.5\n", "")
    res = grade_input(tmp_path, bcc_fm, check, ref_files=ref)
    assert not res.passed and "magnetic" in res.message


def test_structure_against_a_reference_structure_file(tmp_path):
    si = Structure(Lattice.cubic(10.26 * BOHR), ["Si"] * 8, _diamond_sites())
    check = qe_check("qe.structure", params={"reference_file": "si.cif"})
    res = grade_input(tmp_path, SI, check, ref_files={"si.cif": si.to(fmt="cif")})
    assert res.passed, res.message
    res = grade_input(tmp_path, case_text("celldm_in_angstrom"), check, ref_files={"si.cif": si.to(fmt="cif")})
    assert not res.passed


def _diamond_sites() -> list[list[float]]:
    fcc = [[0, 0, 0], [0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0]]
    return fcc + [[x + 0.25, y + 0.25, z + 0.25] for x, y, z in fcc]


# pw.x 6.7 output for one atom at crystal (0.1, 0.2, 0.3): alat (bohr), a1..a3 and tau in alat units.
# fmt: off
PW_CELLS: dict[str, tuple[int, str, float, list[list[float]], list[float]]] = {
    "1": (1, "celldm(1)=10.0", 10.0, [[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0.1, 0.2, 0.3]),
    "2": (2, "celldm(1)=10.0", 10.0, [[-0.5, 0, 0.5], [0, 0.5, 0.5], [-0.5, 0.5, 0]], [-0.2, 0.25, 0.15]),
    "3": (3, "celldm(1)=10.0", 10.0, [[0.5, 0.5, 0.5], [-0.5, 0.5, 0.5], [-0.5, -0.5, 0.5]], [-0.2, 0.0, 0.3]),
    "-3": (-3, "celldm(1)=10.0", 10.0, [[-0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.5, 0.5, -0.5]], [0.2, 0.1, 0.0]),
    "4": (4, "celldm(1)=8.0, celldm(3)=1.6", 8.0, [[1, 0, 0], [-0.5, 0.866025, 0], [0, 0, 1.6]], [0, 0.1732051, 0.48]),
    "5": (
        5, "celldm(1)=10.0, celldm(4)=0.3", 10.0,
        [[0.591608, -0.341565, 0.730297], [0, 0.68313, 0.730297], [-0.591608, -0.341565, 0.730297]],
        [-0.1183216, 0.0, 0.438178],
    ),
    "-5": (
        -5, "celldm(1)=10.0, celldm(4)=0.3", 10.0,
        [[-0.136136, 0.700524, 0.700524], [0.700524, -0.136136, 0.700524], [0.700524, 0.700524, -0.136136]],
        [0.3366482, 0.2529822, 0.1693162],
    ),
    "6": (6, "celldm(1)=8.0, celldm(3)=1.3", 8.0, [[1, 0, 0], [0, 1, 0], [0, 0, 1.3]], [0.1, 0.2, 0.39]),
    "7": (7, "celldm(1)=8.0, celldm(3)=1.3", 8.0, [[0.5, -0.5, 0.65], [0.5, 0.5, 0.65], [-0.5, -0.5, 0.65]],
          [0.0, -0.1, 0.39]),
    "8": (8, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3", 8.0, [[1, 0, 0], [0, 1.1, 0], [0, 0, 1.3]],
          [0.1, 0.22, 0.39]),
    "9": (9, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3", 8.0, [[0.5, 0.55, 0], [-0.5, 0.55, 0], [0, 0, 1.3]],
          [-0.05, 0.165, 0.39]),
    "-9": (-9, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3", 8.0, [[0.5, -0.55, 0], [0.5, 0.55, 0], [0, 0, 1.3]],
           [0.15, 0.055, 0.39]),
    "91": (91, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3", 8.0, [[1, 0, 0], [0, 0.55, -0.65], [0, 0.55, 0.65]],
           [0.1, 0.275, 0.065]),
    "10": (10, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3", 8.0, [[0.5, 0, 0.65], [0.5, 0.55, 0], [0, 0.55, 0.65]],
           [0.15, 0.275, 0.26]),
    "11": (11, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3", 8.0,
           [[0.5, 0.55, 0.65], [-0.5, 0.55, 0.65], [-0.5, -0.55, 0.65]], [-0.2, 0.0, 0.39]),
    "12": (12, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3, celldm(4)=0.2", 8.0,
           [[1, 0, 0], [0.22, 1.077775, 0], [0, 0, 1.3]], [0.144, 0.2155551, 0.39]),
    "-12": (-12, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3, celldm(5)=0.2", 8.0,
            [[1, 0, 0], [0, 1.1, 0], [0.26, 0, 1.273735]], [0.178, 0.22, 0.3821204]),
    "13": (13, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3, celldm(4)=0.2", 8.0,
           [[0.5, 0, -0.65], [0.22, 1.077775, 0], [0.5, 0, 0.65]], [0.244, 0.2155551, 0.13]),
    "-13": (-13, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3, celldm(5)=0.2", 8.0,
            [[0.5, 0.55, 0], [-0.5, 0.55, 0], [0.26, 0, 1.273735]], [0.028, 0.165, 0.3821204]),
    "14": (14, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3, celldm(4)=0.2, celldm(5)=0.1, celldm(6)=0.3", 8.0,
           [[1, 0, 0], [0.33, 1.049333, 0], [0.13, 0.231671, 1.272568]], [0.205, 0.2793679, 0.3817703]),
    "A4": (4, "A=4.0, C=6.5", 7.5589, [[1, 0, 0], [-0.5, 0.866025, 0], [0, 0, 1.625]], [0.0, 0.1732051, 0.4875]),
    "A5": (5, "A=5.0, cosAB=0.3", 9.4486,
           [[0.591608, -0.341565, 0.730297], [0, 0.68313, 0.730297], [-0.591608, -0.341565, 0.730297]],
           [-0.1183216, 0.0, 0.438178]),
    "A14": (14, "A=4.0, B=4.4, C=5.2, cosBC=0.2, cosAC=0.1, cosAB=0.3", 7.5589,
            [[1, 0, 0], [0.33, 1.049333, 0], [0.13, 0.231671, 1.272568]], [0.205, 0.2793679, 0.3817703]),
    "A-12": (-12, "A=4.0,B=4.4,C=5.2,cosAC=0.2", 7.5589, [[1, 0, 0], [0, 1.1, 0], [0.26, 0, 1.273735]],
             [0.178, 0.22, 0.3821204]),
    "A-13": (-13, "A=4.0,B=4.4,C=5.2,cosAC=0.2", 7.5589, [[0.5, 0.55, 0], [-0.5, 0.55, 0], [0.26, 0, 1.273735]],
             [0.028, 0.165, 0.3821204]),
}
# fmt: on


def cell_input(ibrav: int, celldm: str) -> str:
    return (
        f"&control\n/\n&system\n ibrav={ibrav}, {celldm}, nat=1, ntyp=1, ecutwfc=8\n/\n&electrons\n/\n"
        "ATOMIC_SPECIES\nSi 28.086 Si.pz-vbc.UPF\nATOMIC_POSITIONS crystal\nSi 0.1 0.2 0.3\nK_POINTS gamma\n"
    )


@pytest.mark.parametrize("key", sorted(PW_CELLS))
def test_cells_and_positions_are_the_ones_pw_x_printed(key):
    """ibrav/celldm (bohr) or A..cosAB (Å) -> the lattice pw.x 6.7 built (ibrav=-9 included: qe-tools swaps v1/v2)."""
    ibrav, celldm, alat, axes, tau = PW_CELLS[key]
    structure = pw_structure(parse_pw_input(cell_input(ibrav, celldm)))
    scale = alat * BOHR
    assert np.allclose(structure.lattice.matrix, np.array(axes) * scale, atol=2e-5 * scale)
    assert np.allclose(structure.cart_coords[0], np.array(tau) * scale, atol=2e-5 * scale)


def test_ibrav_cell_errors_are_failed_checks(tmp_path):
    check = qe_check("qe.structure", params={"reference_file": "ref.in"})
    for name in ("ibrav4_no_c", "ibrav_bad", "ibrav0_nocell", "ibrav2_with_cell", "ibrav0_ang_celldm", "a_and_celldm"):
        res = grade_input(tmp_path, case_text(name), check, ref_files={"ref.in": SI})
        assert not res.passed and res.message, name


# --------------------------------------------------------------------------------------------------
# Reading like pw.x (where qe-tools' reader would silently lose settings)


def test_settings_without_commas_or_before_a_slash_are_read(tmp_path):
    assert effective(case_text("two_same_line"), "system.ecutrho") == 60.0  # 'ecutrho = 60 nbnd = 8'
    assert effective(case_text("slash_after_value"), "system.ecutwfc") == 14.0  # 'ecutwfc = 14.0 /'
    assert effective(case_text("semicolon"), "system.nbnd") == 8
    assert effective(case_text("name_newline_eq"), "system.ecutrho") == 60.0
    assert effective(case_text("dupkey"), "system.ecutwfc") == 14.0  # the last assignment wins


def test_fortran_value_forms(tmp_path):
    assert effective(case_text("log_T"), "control.tprnfor") is True
    assert effective(case_text("log_false_word"), "control.tprnfor") is False
    assert effective(case_text("real_q"), "system.ecutrho") == 60.0
    assert effective(case_text("conv_thr"), "electrons.conv_thr") == pytest.approx(1e-9)
    assert parse_pw_input(case_text("str_doubled_quote")).values["control.title"] == "it's"
    assert parse_pw_input(case_text("slash_in_string")).values["control.title"] == "a/b"
    values = parse_pw_input(case_text("nspin2_mag_repeat")).values
    assert values["system.starting_magnetization(1)"] == values["system.starting_magnetization(2)"] == 0.5


def test_unknown_variable_stops_pw_x_and_its_intended_setting_keeps_the_default(tmp_path):
    text = case_text("unknown_variable")  # 'ecut_rho = 60'
    res = grade_input(tmp_path, text, qe_check("qe.valid"))
    assert not res.passed and "'ecut_rho' is not a variable of namelist &system" in res.message
    assert not param(tmp_path, text, "system.ecutrho", 60.0).passed


def test_unquoted_string_and_wrong_types_are_problems(tmp_path):
    for name, words in (
        ("str_unquoted", "must be quoted"),
        ("nspin1_real", "not an integer"),
        ("log_yes", "not a logical"),
        ("real_quoted", "quoted string"),
        ("hash_comment", "'#'"),
    ):
        res = grade_input(tmp_path, case_text(name), qe_check("qe.valid"))
        assert not res.passed and words in res.message, (name, res.message)


def test_lowercase_card_name_is_not_a_card_for_pw_x(tmp_path):
    res = grade_input(tmp_path, case_text("sp_lower_card"), qe_check("qe.valid"))
    assert not res.passed and "ATOMIC_SPECIES must be present before ATOMIC_POSITIONS" in res.message
    res = grade_input(tmp_path, case_text("sp_lower_card"), qe_check("qe.species", params={"elements": ["Si"]}))
    assert not res.passed


def test_namelists_out_of_order_or_missing(tmp_path):
    res = grade_input(tmp_path, case_text("swapped_namelists"), qe_check("qe.valid"))
    assert not res.passed and "comes too early" in res.message
    res = grade_input(tmp_path, case_text("relax_without_ions"), qe_check("qe.valid"))
    assert not res.passed and "&IONS is missing" in res.message
    res = grade_input(tmp_path, case_text("cell_in_scf"), qe_check("qe.valid", params={"strict": True}))
    assert not res.passed and "&CELL is not read" in res.message
    assert effective(case_text("cell_in_scf"), "cell.cell_dynamics") == "none"


def test_positions_with_arithmetic_as_pw_x_evaluates_them():
    assert eval_infix("1/4") == 0.25 and eval_infix("2*(1/8)") == 0.25 and eval_infix("2^-2") == 0.25
    assert eval_infix("-2^2") == -4.0 and eval_infix("1-3/4") == 0.25 and eval_infix("1.0d-1") == 0.1
    for bad in ("abc", "1/0", "__import__('os')", "(1", "1)", "10^400", "(-8)^(1/3)", "(" * 60 + "1" + ")" * 60):
        assert eval_infix(bad) is None, bad
    structure = pw_structure(parse_pw_input(case_text("pos_expr")))
    assert np.allclose(structure.cart_coords[1], np.array([0.25, 0.25, 0.25]) * 10.26 * BOHR)


# --------------------------------------------------------------------------------------------------
# Species


def test_species_elements_functional_and_masses(tmp_path):
    ok = {"elements": ["Si"], "functional": "pz", "mass_rel_tol": 0.01}
    assert grade_input(tmp_path, SI, qe_check("qe.species", params=ok)).passed
    res = grade_input(tmp_path, SI, qe_check("qe.species", params={"functional": "pbe"}))
    assert not res.passed and "lda pseudopotential, not pbe" in res.message
    pbe = case_text("vdw_d2")
    assert grade_input(tmp_path, pbe, qe_check("qe.species", params={"functional": "PBE"})).passed
    res = grade_input(tmp_path, SI, qe_check("qe.species", reference=True), ["Si", "O"])
    assert not res.passed and "differ" in res.message
    heavy = SI.replace("Si 28.086", "Si 56.0")
    assert not grade_input(tmp_path, heavy, qe_check("qe.species", params={"mass_rel_tol": 0.05})).passed
    zero = case_text("sp_mass_zero")  # pw.x uses the standard weight for a mass <= 0
    assert grade_input(tmp_path, zero, qe_check("qe.species", params={"mass_rel_tol": 0.01})).passed


def test_input_dft_overrides_the_pseudopotential_functional(tmp_path):
    text = with_system("input_dft = 'PBEsol'")
    res = grade_input(tmp_path, text, qe_check("qe.species", params={"functional": "pz"}))
    assert not res.passed and "overrides" in res.message
    assert grade_input(tmp_path, text, qe_check("qe.species", params={"functional": "pbesol"})).passed


def test_pseudopotential_named_for_another_element_is_caught(tmp_path):
    text = SI.replace("Si.pz-vbc.UPF", "O.pbe-n-kjpaw_psl.0.1.UPF")
    res = grade_input(tmp_path, text, qe_check("qe.species", params={"elements": ["Si"]}))
    assert not res.passed and "of O" in res.message


def test_element_and_functional_from_names():
    labels = ("Fe1", "C_h", "Co", "CO", "O1", "Xq", "s")
    assert [label_element(x) for x in labels] == ["Fe", "C", "Co", "Co", "O", None, "S"]
    assert pseudo_element("fe_pbe_v1.5.uspp.F.UPF") == "Fe"
    assert pseudo_element("Si.pz-vbc.UPF") == "Si" and pseudo_element("pseudo_Si.UPF") is None
    assert pseudo_functional("Si.pbesol-n-rrkjus_psl.1.0.0.UPF") == "pbesol"
    assert pseudo_functional("Fe.pbe-spn-kjpaw_psl.0.2.1.UPF") == "pbe"
    assert pseudo_functional("Si.pz-vbc.UPF") == "lda" and pseudo_functional("Si.upf") is None


# --------------------------------------------------------------------------------------------------
# qe.param parameters and grader errors


def test_param_bounds_any_of_not_and_explicit(tmp_path):
    text = with_system("ecutrho = 96")
    assert param(tmp_path, text, "system.ecutrho", min=90, max=100).passed
    assert not param(tmp_path, text, "system.ecutrho", max=90).passed
    assert param(tmp_path, text, "system.ecutrho", any_of=[96.0, 120.0]).passed
    assert not param(tmp_path, SI, "system.occupations", not_=["fixed"]).passed
    assert param(tmp_path, SI, "system.ecutwfc", 12.0, explicit=True).passed
    res = param(tmp_path, SI, "system.ecutrho", 48.0, explicit=True)
    assert not res.passed and "not written in the input" in res.message
    assert param(tmp_path, SI, "control.pseudo_dir", explicit=True).passed  # not curated: only explicit


def test_settings_outside_the_table_compare_exactly_as_written(tmp_path):
    text = SI.replace("calculation = 'scf'", "calculation = 'scf', prefix = 'Si8'")
    assert param(tmp_path, text, "control.prefix", any_of=["Si8"], explicit=True).passed
    assert not param(tmp_path, text, "control.prefix", any_of=["si8"], explicit=True).passed
    res = param(tmp_path, SI, "control.prefix", any_of=["Si8"], explicit=True)
    assert not res.passed and "not in the input" in res.message


def test_kpoints_card_without_option_is_tpiba():
    kp = parse_pw_input(case_text("kp_list_bare")).kpoints
    assert kp is not None and kp.kind == "tpiba" and len(kp.points) == 2


def test_float_comparison_uses_the_tolerance_and_reports_a_deviation(tmp_path):
    check = qe_check("qe.param", "electrons.conv_thr", reference=True, tolerance={"rel": 0.5})
    res = grade_input(tmp_path, SI, check, 1.5e-6)
    assert res.passed and res.tolerance == "50% rel"
    assert not grade_input(tmp_path, SI, check, 1e-8).passed


@pytest.mark.parametrize(
    ("setting", "params", "match"),
    [
        ("system.ecut_rho", {"min": 1}, "no variable"),
        ("ecutrho", {"min": 1}, "namelist.variable"),
        ("control.pseudo_dir", {"any_of": ["."]}, "no curated"),
        ("system.starting_magnetization", {"min": 0}, "is an array"),
        ("system.ecutrho(1)", {"min": 0}, "not an array"),
        ("system.celldm(Fe)", {"min": 0}, "per-species"),
        ("system.celldm(7)", {"min": 0}, "bounds"),
        ("system.occupations", {"min": 0}, "numeric"),
        ("system.ecutrho", {}, "give a reference"),
        ("system.ecutrho", {"ratio_to": {"setting": "system.starting_magnetization(1)", "min": 1}}, "scalar"),
    ],
)
def test_grader_mistakes_are_grader_errors(tmp_path, setting, params, match):
    with pytest.raises(GraderConfigError, match=match):
        param(tmp_path, SI, setting, **params)


@pytest.mark.parametrize(
    "check",
    [
        qe_check("qe.param", "system.ecutrho", reference=True),
        qe_check("qe.param", "system.vdw_corr", params={"any_of": ["d3"]}),
        qe_check("qe.kpoints", reference=True),
        qe_check("qe.species", reference=True),
        qe_check("qe.species", params={"functional": "rpa-ish"}),
        qe_check("qe.structure", params={"reference_file": "missing.in"}),
    ],
)
def test_grader_mistakes_surface_whatever_the_submission(tmp_path, check):
    with pytest.raises(GraderConfigError):
        grade_input(tmp_path, "not an input at all", check)


def test_every_qe_type_validates_its_params():
    for name in QE_TYPES:
        assert REGISTRY.get(name).family == "qe"
    with pytest.raises(GraderConfigError):
        validate_params(qe_check("qe.kpoints", params={"min_mesh": [1, 1]}))
    with pytest.raises(GraderConfigError):
        validate_params(qe_check("qe.param", "system.ecutrho", params={"minimum": 1}))


def test_resolve_setting_accepts_qe_spellings():
    assert resolve_setting("SYSTEM.ecutRHO").base == "system.ecutrho"
    assert resolve_setting("&system.starting_magnetization(Fe1)").index == "Fe1"
    assert resolve_setting("system.celldm( 1 )").index == "1"


# --------------------------------------------------------------------------------------------------
# Hostile input


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


# --------------------------------------------------------------------------------------------------
# Confirm the recorded behaviour with the real pw.x (where installed)

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
