"""Study graphite-binding: PBE-D3 interlayer binding of graphite (pw.x inputs, c scan, analysis, VASP inputs).

Every trap of the catalog is shown to fail its check, every numeric check is probed just inside and just outside
its tolerance, and the oracles pass. Oracles that run pw.x are `slow` and skipped where pw.x is not installed;
the tolerance edges of those tasks are probed around the reference values with the other fields from the
reference, which is what the oracle reproduces (its own run is checked in the slow test).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cmb.models import GradeReport
from tests.tasks._helpers import (
    ROOT,
    assert_empty_submission_fails,
    assert_files_are_consistent,
    assert_reduced_prompt_drops_only_the_method,
    assert_tolerance_edges,
    failed,
    grade_dir,
    grader_of,
    read_answer,
    reference_of,
    spec_of,
    stage_workspace,
    write_answer,
)
from tests.tasks._helpers import run_oracle as _run_oracle

STUDY = "graphite-binding"
TASKS = ["graphite-pw-d3-inputs", "graphite-c-scan", "graphite-binding-analysis", "graphite-vasp-relax-inputs"]
WORKFLOW = "graphite-binding-workflow"
HAS_PW = shutil.which("pw.x") is not None
needs_pw = pytest.mark.skipif(not HAS_PW, reason="pw.x (Quantum ESPRESSO) not installed")


def run_oracle(task: str, dest: Path) -> Path:
    """The oracle, run in the bare workspace (no prompt staged); pw.x scans get 15 minutes."""
    return _run_oracle(task, dest, timeout_s=900, with_prompt=False)


def reference_answer(task: str) -> dict:
    """An answer.json holding the reference value of every field a check of answer.json targets."""
    ref = reference_of(task)
    answer: dict = {}
    for check in grader_of(task).checks:
        if check.reference is not None and check.target.field and check.target.file == "answer.json":
            answer[check.target.field] = ref.values[check.reference].value
    return answer


def numeric_checks(task: str) -> list:
    return [c for c in grader_of(task).checks if c.type == "numeric.scalar" and c.target.file.endswith(".json")]


def probe_tolerance_edges(task: str, base: dict, tmp: Path) -> None:
    """For every numeric check: just inside passes, just outside (both sides) fails that check alone."""
    assert_tolerance_edges(task, base, tmp, checks=numeric_checks(task), reference=reference_of(task))


# --- the study as a whole ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("task", [*TASKS, WORKFLOW])
def test_files_are_consistent(task):
    assert_files_are_consistent(STUDY, task)


@pytest.mark.parametrize("task", [*TASKS, WORKFLOW])
def test_reduced_prompt_is_the_full_prompt_without_its_method_section(task):
    assert_reduced_prompt_drops_only_the_method(task)


def test_workflow_chains_the_study_steps():
    spec = spec_of(STUDY, WORKFLOW)
    assert spec.steps == ["graphite-pw-d3-inputs", "graphite-c-scan", "graphite-binding-analysis"]
    assert all(spec_of(STUDY, step).study == STUDY for step in spec.steps)


@pytest.mark.parametrize("task", [*TASKS, WORKFLOW])
def test_empty_submission_fails(task, tmp_path):
    assert_empty_submission_fails(task, tmp_path)


@pytest.mark.parametrize("task", [*TASKS, WORKFLOW])
def test_staged_workspace_alone_fails(task, tmp_path):
    assert not grade_dir(task, stage_workspace(task, tmp_path)).passed


# --- graphite-pw-d3-inputs (input preparation, pw.x) -----------------------------------------------------------

PW_TASK = "graphite-pw-d3-inputs"
REFERENCE_PW_IN = (ROOT / "references" / PW_TASK / "pw.in").read_text()

EXPLICIT_VECTORS_PW_IN = """&CONTROL
  pseudo_dir = 'pseudo/'
/
&SYSTEM
  ibrav = 0, nat = 4, ntyp = 1, ecutwfc = 55, ecutrho = 440,
  occupations = 'smearing', smearing = 'cold', degauss = 0.02, vdw_corr = 'DFT-D3'
/
&ELECTRONS
/
ATOMIC_SPECIES
C 12.011 C.pbe-rrkjus.UPF
CELL_PARAMETERS angstrom
2.464 0.0 0.0
-1.232 2.133886595 0.0
0.0 0.0 6.711
ATOMIC_POSITIONS angstrom
C 0.0 0.0 0.0
C 1.232 0.711295532 0.0
C 0.0 0.0 3.3555
C 0.0 1.422591063 3.3555
K_POINTS automatic
14 14 3 0 0 0
"""


def grade_pw_in(text: str, tmp: Path) -> GradeReport:
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "pw.in").write_text(text)
    return grade_dir(PW_TASK, tmp)


@pytest.mark.slow
@needs_pw
def test_pw_inputs_oracle_passes_and_runs_with_d3(tmp_path):
    report = grade_dir(PW_TASK, run_oracle(PW_TASK, tmp_path))
    assert report.passed, [c.message for c in report.checks if not c.passed]


@pytest.mark.parametrize("text", [REFERENCE_PW_IN, EXPLICIT_VECTORS_PW_IN], ids=["reference", "ibrav0-angstrom"])
def test_pw_equivalent_inputs_pass(text, tmp_path):
    report = grade_pw_in(text, tmp_path)
    assert report.passed, [c.message for c in report.checks if not c.passed]


@pytest.mark.parametrize(
    ("old", "new", "failing"),
    [
        # no dispersion correction, or one pw.x 6.7 silently ignores
        ("  vdw_corr = 'dft-d3'\n", "", {"vdw-corr"}),
        ("vdw_corr = 'dft-d3'", "vdw_corr = 'd3'", {"vdw-corr"}),
        ("vdw_corr = 'dft-d3'", "vdw_corr = 'D3'", {"vdw-corr"}),
        ("vdw_corr = 'dft-d3'", "vdw_corr = 'dft-d'", {"vdw-corr"}),  # D2, not D3
        ("vdw_corr = 'dft-d3'", "london = .true.", {"vdw-corr"}),
        # ultrasoft pseudopotential: the default ecutrho = 4 ecutwfc is too low
        ("  ecutrho = 480.0\n", "", {"ecutrho"}),
        ("ecutrho = 480.0", "ecutrho = 470.0", {"ecutrho"}),
        ("ecutwfc = 60.0", "ecutwfc = 45.0", {"ecutwfc"}),  # the usual carbon cutoff, 3.1 meV/atom off
        # semimetal: fixed occupations (degauss is then ignored too)
        ("  occupations = 'smearing'\n  smearing = 'mv'\n  degauss = 0.01\n", "", {"occupations", "degauss"}),
        ("degauss = 0.01", "degauss = 0.08", {"degauss"}),
        ("degauss = 0.01", "degauss = 0.005", {"degauss"}),  # below the stated window
        # k mesh: dense in plane, a few points along c, unshifted
        ("18 18 6 0 0 0", "12 12 4 0 0 0", {"kpoints"}),  # the habitual mesh, 1.65 meV/atom off
        ("18 18 6 0 0 0", "10 10 7 0 0 0", {"kpoints"}),
        ("18 18 6 0 0 0", "4 4 4 0 0 0", {"kpoints"}),
        ("18 18 6 0 0 0", "18 18 6 1 1 1", {"kpoints"}),
        ("K_POINTS automatic\n18 18 6 0 0 0", "K_POINTS gamma", {"kpoints"}),
        # hexagonal cell: celldm(3) is c/a, not c
        ("celldm(3) = 2.723620", "celldm(3) = 12.68188", {"structure"}),
        ("celldm(3) = 2.723620", "celldm(3) = 6.711", {"structure"}),
        ("celldm(1) = 4.656285", "celldm(1) = 2.464", {"structure"}),
        # second layer stacked right above the first (AA), not the AB crystal
        ("C 0.666666666667 0.333333333333 0.75", "C 0.333333333333 0.666666666667 0.75", {"structure"}),
        ("C.pbe-rrkjus.UPF", "C.pz-rrkjus.UPF", {"species"}),
        ("  pseudo_dir = './pseudo'\n", "", {"pseudo-dir"}),
    ],
)
def test_pw_trap_fails_its_check(old, new, failing, tmp_path):
    assert old in REFERENCE_PW_IN
    assert failed(grade_pw_in(REFERENCE_PW_IN.replace(old, new), tmp_path)) == failing


def test_pw_aa_stacking_fails_the_structure(tmp_path):
    text = REFERENCE_PW_IN.replace("nat = 4", "nat = 2").replace(
        "C 0.0 0.0 0.25\nC 0.0 0.0 0.75\nC 0.333333333333 0.666666666667 0.25\nC 0.666666666667 0.333333333333 0.75",
        "C 0.0 0.0 0.0\nC 0.333333333333 0.666666666667 0.0",
    )
    assert failed(grade_pw_in(text.replace("celldm(3) = 2.723620", "celldm(3) = 1.361810"), tmp_path)) == {"structure"}


def test_pw_spin_polarised_run_fails_spin(tmp_path):
    text = REFERENCE_PW_IN.replace("  vdw_corr", "  nspin = 2, starting_magnetization(1) = 0.2\n  vdw_corr")
    assert failed(grade_pw_in(text, tmp_path)) == {"spin"}


@pytest.mark.parametrize(
    ("old", "inside", "outside", "check"),
    [
        ("ecutwfc = 60.0", "ecutwfc = 55.0, ecutrho = 440.0", "ecutwfc = 54.9, ecutrho = 439.2", "ecutwfc"),
        ("ecutrho = 480.0", "ecutrho = 480.0", "ecutrho = 479.9", "ecutrho"),
        ("degauss = 0.01", "degauss = 0.01", "degauss = 0.0099", "degauss"),
        ("degauss = 0.01", "degauss = 0.05", "degauss = 0.051", "degauss"),
        ("18 18 6 0 0 0", "14 14 3 0 0 0", "13 13 3 0 0 0", "kpoints"),
        ("18 18 6 0 0 0", "14 14 3 0 0 0", "14 14 2 0 0 0", "kpoints"),
    ],
)
def test_pw_bounds_are_sharp(old, inside, outside, check, tmp_path):
    text = REFERENCE_PW_IN.replace("  ecutrho = 480.0\n", "") if check == "ecutwfc" else REFERENCE_PW_IN
    assert old in text
    report = grade_pw_in(text.replace(old, inside), tmp_path / "in")
    assert report.passed, [c.message for c in report.checks if not c.passed]
    assert failed(grade_pw_in(text.replace(old, outside), tmp_path / "out")) == {check}


# --- graphite-c-scan (run and analyze, pw.x) --------------------------------------------------------------------

SCAN = "graphite-c-scan"


@pytest.mark.slow
@needs_pw
def test_c_scan_oracle_passes(tmp_path):
    report = grade_dir(SCAN, run_oracle(SCAN, tmp_path))
    assert report.passed, [c.message for c in report.checks if not c.passed]


def test_c_scan_tolerance_edges(tmp_path):
    probe_tolerance_edges(SCAN, reference_answer(SCAN), tmp_path)


@pytest.mark.parametrize(
    ("field", "transform", "failing"),
    [
        ("c_eq_angstrom", lambda v: v / 2, {"c-eq"}),  # interlayer distance reported as c
        ("c_eq_angstrom", lambda v: 6.711, {"c-eq"}),  # the measured value, not the model's minimum
        ("E_b_meV_per_atom", lambda v: v * 4, {"e-b"}),  # per four-atom cell
        ("E_b_meV_per_atom", lambda v: v * 2, {"e-b"}),  # per two-atom layer
        ("E_b_meV_per_atom", lambda v: v + 4.36, {"e-b"}),  # reference layer only 6 A from its images
        ("E_b_meV_per_atom", lambda v: v - 38.1, {"e-b"}),  # graphite at c = 7.8 A taken as separated
        ("E_b_meV_per_atom", lambda v: v / 13605.7, {"e-b"}),  # left in Ry
    ],
)
def test_c_scan_trap_fails_its_check(field, transform, failing, tmp_path):
    answer = reference_answer(SCAN)
    answer[field] = transform(answer[field])
    assert failed(grade_dir(SCAN, write_answer(tmp_path, answer))) == failing


def test_c_scan_reference_layer_8_angstrom_away_still_passes(tmp_path):
    # A layer 8 A from its images lowers the separated-layer energy by 1.2 meV/atom (2.6% of E_b): accepted.
    answer = reference_answer(SCAN)
    answer["E_b_meV_per_atom"] -= 1.17
    assert grade_dir(SCAN, write_answer(tmp_path, answer)).passed


def test_c_scan_negative_binding_energy_convention_is_accepted(tmp_path):
    answer = reference_answer(SCAN)
    answer["E_b_meV_per_atom"] = -answer["E_b_meV_per_atom"]
    assert grade_dir(SCAN, write_answer(tmp_path, answer)).passed


# --- graphite-binding-analysis (output analysis of staged pw.x runs) --------------------------------------------

ANALYSIS = "graphite-binding-analysis"
CURVE = "binding_curve.csv"
CURVE_HEADER = "c_angstrom,Eb_d3_meV_per_atom,Eb_pbe_meV_per_atom"


@pytest.fixture(scope="module")
def analysis_dir(tmp_path_factory) -> Path:
    return run_oracle(ANALYSIS, tmp_path_factory.mktemp("analysis-oracle"))


@pytest.fixture(scope="module")
def analysis_oracle(analysis_dir) -> dict:
    return read_answer(analysis_dir)


def curve_rows(folder: Path) -> list[list[float]]:
    lines = (folder / CURVE).read_text().splitlines()
    assert lines[0] == CURVE_HEADER
    return [[float(x) for x in line.split(",")] for line in lines[1:]]


def grade_analysis(answer: dict, folder: Path, curve: list[list[float]] | None, base: Path) -> GradeReport:
    """answer.json as given, and the binding curve of the oracle (or `curve`) beside it."""
    write_answer(folder, answer)
    if curve is None:
        shutil.copyfile(base / CURVE, folder / CURVE)
    else:
        rows = "".join(",".join(f"{x:.5f}" for x in row) + "\n" for row in curve)
        (folder / CURVE).write_text(CURVE_HEADER + "\n" + rows)
    return grade_dir(ANALYSIS, folder)


def test_analysis_oracle_passes(analysis_dir):
    report = grade_dir(ANALYSIS, analysis_dir)
    assert report.passed, [c.message for c in report.checks if not c.passed]


def test_analysis_staged_runs_are_the_converged_curves():
    ws = ROOT / "tasks" / STUDY / ANALYSIS / "workspace"
    outs = sorted(ws.glob("*.out"))
    assert len(outs) == 40
    for out in outs:
        text = out.read_text()
        assert "JOB DONE" in text and "convergence has been achieved" in text
        assert "kinetic-energy cutoff     =      60.0000  Ry" in text
        assert ("DFT-D3 Dispersion" in text) == ("_d3" in out.name)


def test_analysis_curve_matches_the_reference(analysis_dir):
    rows = curve_rows(analysis_dir)
    ref = reference_of(ANALYSIS).values
    assert len(rows) == len(ref["curve_c_angstrom"].value) == 19
    assert [r[0] for r in rows] == pytest.approx(ref["curve_c_angstrom"].value, abs=1e-4)
    assert [r[1] for r in rows] == pytest.approx(ref["curve_eb_d3_meV_per_atom"].value, abs=1e-3)
    assert [r[2] for r in rows] == pytest.approx(ref["curve_eb_pbe_meV_per_atom"].value, abs=1e-3)
    # The physics of the curve: PBE-D3 binds with its minimum inside the grid, PBE is repulsive there.
    d3 = [r[1] for r in rows]
    assert 0 < d3.index(max(d3)) < len(d3) - 1
    assert rows[d3.index(max(d3))][2] < 0


def test_analysis_tolerance_edges(analysis_dir, analysis_oracle, tmp_path):
    assert_tolerance_edges(
        ANALYSIS,
        analysis_oracle,
        tmp_path,
        checks=numeric_checks(ANALYSIS),
        reference=reference_of(ANALYSIS),
        grade_answer=lambda task, answer, folder: grade_analysis(answer, folder, None, analysis_dir),
    )


@pytest.mark.parametrize(
    ("changes", "failing"),
    [
        ({"pbe_E_b_at_c_eq_meV_per_atom": 3.575, "pbe_binds_at_c_eq": True}, {"pbe-e-b", "pbe-binds"}),  # 8.0 A
        ({"pbe_binds_at_c_eq": True}, {"pbe-binds"}),
        ({"c_eq_angstrom": 8.0}, {"c-eq"}),  # where plain PBE binds most on this grid
        ({"c_eq_angstrom": 3.50}, {"c-eq"}),  # interlayer distance
        ({"E_b_meV_per_atom": 49.0}, {"e-b"}),  # a PBE-D3 binding energy quoted from the literature
        ({"E_b_meV_per_atom": 78.35}, {"e-b"}),  # PBE-D3 graphite against the plain-PBE layer
    ],
)
def test_analysis_trap_fails_its_check(analysis_dir, analysis_oracle, changes, failing, tmp_path):
    report = grade_analysis({**analysis_oracle, **changes}, tmp_path, None, analysis_dir)
    assert failed(report) == failing


@pytest.mark.parametrize(
    ("field", "factor", "check"),
    [("E_b_meV_per_atom", 4, "e-b"), ("E_b_meV_per_atom", 2, "e-b"), ("C33_GPa", 0.25, "c33"), ("C33_GPa", 4, "c33")],
)
def test_analysis_normalisation_errors_fail(analysis_dir, analysis_oracle, field, factor, check, tmp_path):
    answer = {**analysis_oracle, field: analysis_oracle[field] * factor}
    assert failed(grade_analysis(answer, tmp_path, None, analysis_dir)) == {check}


@pytest.mark.parametrize(
    ("transform", "failing"),
    [
        (lambda c, d3, pbe: (c / 0.529177210903, d3, pbe), {"curve-c"}),  # c left in bohr
        (lambda c, d3, pbe: (c / 2, d3, pbe), {"curve-c"}),  # interlayer distance
        (lambda c, d3, pbe: (c, 4 * d3, 4 * pbe), {"curve-eb-d3", "curve-eb-pbe"}),  # per four-atom cell
        (lambda c, d3, pbe: (c, -d3, pbe), {"curve-eb-d3"}),  # graphite minus layers, against the stated sign
        (lambda c, d3, pbe: (c, d3 + 35.5, pbe), {"curve-eb-d3"}),  # PBE-D3 graphite against the plain-PBE layer
        (lambda c, d3, pbe: (c, d3, pbe - 35.5), {"curve-eb-pbe"}),  # plain-PBE graphite against the D3 layer
        (lambda c, d3, pbe: (c, d3 + 0.06, pbe), {"curve-eb-d3"}),  # just outside the 0.05 meV/atom tolerance
        (lambda c, d3, pbe: (c, d3 + 0.04, pbe - 0.04), set()),  # just inside
    ],
    ids=["bohr", "c-over-2", "per-cell", "sign", "d3-vs-pbe-layer", "pbe-vs-d3-layer", "outside", "inside"],
)
def test_analysis_curve_trap_fails_its_check(analysis_dir, analysis_oracle, transform, failing, tmp_path):
    rows = [list(transform(*r)) for r in curve_rows(analysis_dir)]
    assert failed(grade_analysis(analysis_oracle, tmp_path, rows, analysis_dir)) == failing


def test_analysis_curve_with_fewer_rows_fails(analysis_dir, analysis_oracle, tmp_path):
    rows = curve_rows(analysis_dir)[:15]
    report = grade_analysis(analysis_oracle, tmp_path, rows, analysis_dir)
    assert {"curve-table", "curve-c", "curve-eb-d3", "curve-eb-pbe"} <= failed(report)


# --- graphite-vasp-relax-inputs (input preparation, VASP) -------------------------------------------------------

VASP = "graphite-vasp-relax-inputs"
VASP_FILES = ("INCAR", "KPOINTS", "POSCAR", "POTCAR.spec")


def vasp_submission(tmp: Path, **replace: tuple[str, str]) -> Path:
    """The reference input set with (old, new) replacements per file (file names with '.' spelled '_')."""
    tmp.mkdir(parents=True, exist_ok=True)
    for name in VASP_FILES:
        text = (ROOT / "references" / VASP / name).read_text()
        for key, (old, new) in replace.items():
            if key.replace("_", ".") == name or key == name:
                assert old in text, (name, old)
                text = text.replace(old, new)
        (tmp / name).write_text(text)
    return tmp


def test_vasp_oracle_passes(tmp_path):
    report = grade_dir(VASP, run_oracle(VASP, tmp_path))
    assert report.passed, [c.message for c in report.checks if not c.passed]


def test_vasp_reference_set_passes(tmp_path):
    report = grade_dir(VASP, vasp_submission(tmp_path))
    assert report.passed, [c.message for c in report.checks if not c.passed]


@pytest.mark.parametrize(
    ("file", "old", "new", "failing"),
    [
        ("INCAR", "IVDW = 11\n", "", {"ivdw"}),  # plain PBE
        ("INCAR", "IVDW = 11", "IVDW = 1", {"ivdw"}),  # D2
        ("INCAR", "ISIF = 3\n", "", {"isif"}),  # default ISIF = 2: cell fixed
        ("INCAR", "ISIF = 3", "ISIF = 7", {"isif"}),  # volume only
        ("INCAR", "IBRION = 2\n", "", {"ibrion"}),  # NSW without IBRION: molecular dynamics
        ("INCAR", "NSW = 100\n", "", {"nsw"}),  # single point
        ("INCAR", "ENCUT = 520\n", "", {"encut"}),  # default ENMAX, unverifiable and too low
        ("INCAR", "ENCUT = 520", "ENCUT = 400", {"encut"}),  # no Pulay-stress margin
        ("INCAR", "ISMEAR = 0\nSIGMA = 0.05\n", "", {"sigma"}),  # VASP default MP smearing of 0.2 eV
        ("INCAR", "ISMEAR = 0", "ISMEAR = -5", {"ismear"}),  # tetrahedra in a relaxation
        ("INCAR", "EDIFF = 1E-6\n", "", {"ediff"}),
        ("INCAR", "EDIFFG = -0.005", "EDIFFG = -0.05", {"ediffg-forces"}),
        ("INCAR", "LREAL = .FALSE.", "LREAL = Auto", {"lreal"}),
        ("INCAR", "IVDW = 11", "IVDW = 11\nISPIN = 2", {"ispin"}),
        ("KPOINTS", "Gamma\n12 12 4", "Monkhorst-Pack\n12 12 4", {"kpoints"}),  # even MP mesh misses Gamma
        ("KPOINTS", "12 12 4", "6 6 6", {"kpoints"}),
        ("POTCAR.spec", "C\n", "C_h\n", {"potcar"}),
    ],
)
def test_vasp_trap_fails_its_check(file, old, new, failing, tmp_path):
    assert failed(grade_dir(VASP, vasp_submission(tmp_path, **{file: (old, new)}))) == failing


def test_vasp_default_stopping_criterion_is_graded_on_its_effective_value(tmp_path):
    # Without EDIFFG VASP stops on an energy change of 10 x EDIFF: 1e-5 eV with EDIFF = 1e-6 (tight enough),
    # 1e-3 eV with the default EDIFF = 1e-4 (too loose on the flat interlayer well).
    assert grade_dir(VASP, vasp_submission(tmp_path / "tight", INCAR=("EDIFFG = -0.005\n", ""))).passed
    sub = vasp_submission(tmp_path / "loose", INCAR=("EDIFFG = -0.005\n", ""))
    (sub / "INCAR").write_text((sub / "INCAR").read_text().replace("EDIFF = 1E-6\n", ""))
    assert failed(grade_dir(VASP, sub)) == {"ediff", "ediffg-energy"}


def test_vasp_aa_stacking_fails_the_structure(tmp_path):
    sub = vasp_submission(tmp_path)
    lines = (sub / "POSCAR").read_text().splitlines()
    aa = lines[:6] + ["2", "direct", "0.0 0.0 0.0 C", "0.3333333333 0.6666666667 0.0 C"]
    aa[4] = "0.0 0.0 3.3555"
    (sub / "POSCAR").write_text("\n".join(aa) + "\n")
    (sub / "KPOINTS").write_text((sub / "KPOINTS").read_text().replace("12 12 4", "12 12 8"))
    assert failed(grade_dir(VASP, sub)) == {"structure"}


@pytest.mark.parametrize(
    ("inside", "outside", "check"),
    [
        ("ENCUT = 520", "ENCUT = 519", "encut"),
        ("SIGMA = 0.1", "SIGMA = 0.11", "sigma"),
        ("EDIFF = 1E-5", "EDIFF = 1.1E-5", "ediff"),
        ("EDIFFG = -0.02", "EDIFFG = -0.021", "ediffg-forces"),
        ("EDIFFG = 1E-4", "EDIFFG = 1.1E-4", "ediffg-energy"),
        ("NSW = 10", "NSW = 9", "nsw"),
    ],
)
def test_vasp_bounds_are_sharp(inside, outside, check, tmp_path):
    tag = inside.split(" =")[0]
    current = next(
        line for line in (ROOT / "references" / VASP / "INCAR").read_text().splitlines() if line.startswith(tag + " =")
    )
    assert grade_dir(VASP, vasp_submission(tmp_path / "in", INCAR=(current, inside))).passed
    assert failed(grade_dir(VASP, vasp_submission(tmp_path / "out", INCAR=(current, outside)))) == {check}


@pytest.mark.parametrize(("mesh", "ok"), [("12 12 4", True), ("11 12 4", False), ("12 12 3", False)])
def test_vasp_kpoint_spacing_bound_is_sharp(mesh, ok, tmp_path):
    report = grade_dir(VASP, vasp_submission(tmp_path, KPOINTS=("12 12 4", mesh)))
    assert report.passed is ok
    if not ok:
        assert failed(report) == {"kpoints"}


# --- graphite-binding-workflow -------------------------------------------------------------------------------


@pytest.mark.slow
@needs_pw
def test_workflow_oracle_passes(tmp_path):
    report = grade_dir(WORKFLOW, run_oracle(WORKFLOW, tmp_path))
    assert report.passed, [c.message for c in report.checks if not c.passed]


def test_workflow_tolerance_edges(tmp_path):
    probe_tolerance_edges(WORKFLOW, reference_answer(WORKFLOW), tmp_path)


def test_workflow_reading_pbe_as_bound_fails(tmp_path):
    answer = reference_answer(WORKFLOW) | {"pbe_E_b_at_c_eq_meV_per_atom": 4.3, "pbe_binds_at_c_eq": True}
    assert failed(grade_dir(WORKFLOW, write_answer(tmp_path, answer))) == {"pbe-e-b", "pbe-binds"}


def test_workflow_reference_matches_the_c_scan_reference():
    scan, wf = reference_of(SCAN).values, reference_of(WORKFLOW).values
    for key in ("c_eq_angstrom", "E_b_meV_per_atom"):
        assert wf[key].value == scan[key].value
