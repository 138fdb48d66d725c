"""hbn-ilp-lammps-inputs (study hbn-sliding-ferroelectricity, step ilp-sliding): the LAMMPS input and data file of
the flat parallel AB bilayer with the ILP between the layers and Tersoff within them.

The reference deck and data file pass and the recall deck fails; each trap fails exactly its checks (the ILP line
with two element names, the seed paper's trap, fails pair-coefficients alone: the grader does not model the ILP's
element count, the Tersoff line's count stops the script as LAMMPS does). The stored data file is rebuilt by
make_data.py and holds the AB stacking with one molecule per layer. The Debian LAMMPS has no INTERLAYER package,
so the reference run (reproduce.sh) is not repeated here.
"""

from __future__ import annotations

import filecmp
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tasks._helpers import (
    CATALOG,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    entry,
    failed,
    grade_dir,
    stage_workspace,
)

STUDY = "hbn-sliding-ferroelectricity"
TASK = "hbn-ilp-lammps-inputs"
REF = entry(TASK).reference_dir
DECK = (REF / "in.lmp").read_text()
DATA = (REF / "bilayer.data").read_text()
A = 2.504
SCRIPT_CHECKS = {c.id for c in entry(TASK).grader().checks if c.type.startswith("lammps.")}


def grade_deck(folder: Path, deck: str = DECK, data: str = DATA):
    stage_workspace(TASK, folder)
    (folder / "in.lmp").write_text(deck)
    (folder / "bilayer.data").write_text(data)
    return grade_dir(TASK, folder)


def test_entry_is_consistent_and_reduced_prompt_drops_only_the_method():
    assert entry(TASK).has_reduced
    assert_entry_is_consistent(TASK, STUDY, extra_reference_files=["in.lmp", "bilayer.data", "reproduce/make_data.py"])


def test_task_sits_on_the_ilp_step_downstream_of_the_path():
    study = CATALOG.studies[STUDY].spec
    steps = {s.id: s for s in study.steps}
    assert steps["ilp-sliding"].tasks == [TASK]
    assert study.upstream("ilp-sliding") == {"sliding-path"}


@pytest.mark.skipif(not Path("/usr/share/lammps/potentials").is_dir(), reason="Debian's LAMMPS data not installed")
def test_staged_parameter_files_are_the_ones_lammps_ships():
    for name in ("BNCH.ILP", "BNC.tersoff"):
        assert filecmp.cmp(entry(TASK).workspace_dir / name, Path("/usr/share/lammps/potentials") / name, shallow=False)


def test_reduced_prompt_states_every_target():
    e = entry(TASK)
    reduced = " ".join(e.prompt(e.conditions()[1]).split())
    for text in ("bilayer.data", "in.lmp", "BNCH.ILP", "BNC.tersoff", "2.504 Å", "16 Å", "10.811", "14.0067",
                 "3.30 Å", "a boron atom of the top layer above a nitrogen atom of the bottom layer"):  # fmt: skip
        assert text in reduced, text
    for check in e.grader().checks:
        for sentence in check.states or []:
            assert " ".join(sentence.split()) in reduced, check.id


def test_empty_submission_fails(tmp_path):
    assert_empty_submission_fails(TASK, tmp_path)


def test_reference_deck_passes(tmp_path):
    report = grade_deck(tmp_path)
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


def test_oracle_passes(oracle_dirs):
    report = grade_dir(TASK, oracle_dirs[TASK])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


def test_recall_fails_the_ilp_line_and_the_printed_energy(tmp_path):
    for name, text in entry(TASK).recall().submission().items():
        (tmp_path / name).write_text(text)
    assert failed(grade_dir(TASK, tmp_path)) == {"pair-coefficients", "interlayer-energy"}


@pytest.mark.parametrize(
    ("old", "new", "failing"),
    [
        ("BNCH.ILP B N B N", "BNCH.ILP B N", {"pair-coefficients"}),  # the manual's two-name form
        ("BNCH.ILP B N B N", "BNCH.ILP B N B N B", {"pair-coefficients"}),
        ("BNC.tersoff B N B N", "BNC.tersoff B B N N", {"tersoff-elements", "pair-coefficients"}),
        ("BNCH.ILP", "BNCH-old.ILP", {"pair-coefficients"}),
        ("atom_style      full", "atom_style      atomic", {"atom-style"}),
        ("atom_style      full", "atom_style      bond", set()),
        ("boundary        p p p", "boundary        p p s", set()),
        ("boundary        p p p", "boundary        s s p", {"boundary"}),
        ("hybrid/overlay ilp/graphene/hbn 16.0 1 tersoff", "hybrid/overlay tersoff shift 0 ilp/graphene/hbn 16", set()),
        (
            "hybrid/overlay ilp/graphene/hbn 16.0 1 tersoff",
            "hybrid/overlay ilp/graphene/hbn 16.0 1 tersoff shift -0.00407",
            {"sub-styles"},
        ),  # fmt: skip
        ("ilp/graphene/hbn 16.0 1", "ilp/graphene/hbn 16.0009 1", set()),
        ("ilp/graphene/hbn 16.0 1", "ilp/graphene/hbn 16.0011 1", {"sub-styles"}),
        ("ilp/graphene/hbn 16.0 1", "ilp/graphene/hbn 16.0 0", {"sub-styles"}),
        ("hybrid/overlay", "hybrid", {"pair-style"}),
        ("setforce 0.0 0.0 NULL", "setforce NULL NULL 0.0", {"in-plane-forces"}),
        ("setforce 0.0 0.0 NULL", "setforce 0.0 0.0 0.0", {"in-plane-forces"}),  # frozen: nothing relaxes
        ("setforce 0.0 0.0 NULL", "setforce 0 0 NULL", set()),
        ("fix             inplane all setforce", "fix             inplane top setforce", {"z-only-relaxation"}),
        (
            "compute         eilp all pair ilp/graphene/hbn",
            "compute         eilp all pair ilp/graphene/hbn epair",
            set(),
        ),
        ("variable        d equal", "compute         pea all pe/atom\nvariable        d equal", {"interlayer-energy"}),
        ("thermo_style    custom step pe c_eilp v_d fmax", "thermo_style    one", {"thermo-custom"}),
        ("minimize        0.0 1.0e-8 10000 100000", "minimize        0.0 1.0e-6 1000 100000", set()),
        ("minimize        0.0 1.0e-8 10000 100000", "minimize        0.0 1.1e-6 1000 100000", {"force-tolerance"}),
        ("minimize        0.0 1.0e-8 10000 100000", "minimize        0.0 1.0e-8 999 100000", {"iterations"}),
        ("min_style       cg", "fix             cell all box/relax x 0.0 y 0.0", {"fixed-cell"}),
    ],
)
def test_deck_trap_fails_its_checks(old, new, failing, tmp_path):
    assert old in DECK, old
    assert failed(grade_deck(tmp_path, DECK.replace(old, new))) == failing


@pytest.mark.parametrize(
    ("old", "new", "failing"),
    [
        ("0.0 40.000000 zlo zhi", "0.0 39.9 zlo zhi", {"vacuum"}),
        ("0.0 40.000000 zlo zhi", "0.0 40.1 zlo zhi", set()),
        ("0.0 40.000000 zlo zhi", "0.0 119.9 zlo zhi", set()),
        ("0.0 40.000000 zlo zhi", "0.0 120.1 zlo zhi", {"vacuum"}),
        ("0.0 40.000000 zlo zhi", "-20.0 20.0 zlo zhi", {"vacuum", "in-plane-cell"}),
        ("0.0 2.504000 xlo xhi", "0.0 2.5059 xlo xhi", set()),
        ("0.0 2.504000 xlo xhi", "0.0 2.5061 xlo xhi", {"in-plane-cell"}),
        ("0.0 2.504000 xlo xhi\n0.0 4.337055 ylo yhi", "0.0 4.337055 xlo xhi\n0.0 2.504000 ylo yhi", {"in-plane-cell"}),
        ("2 14.0067\n3 10.811", "2 10.811\n3 14.0067", {"masses"}),
        ("8 atoms", "16 atoms", {"atom-count"}),
    ],
)
def test_data_file_trap_fails_its_checks(old, new, failing, tmp_path):
    assert old in DATA, old
    assert failed(grade_deck(tmp_path, data=DATA.replace(old, new))) == failing


def test_two_names_on_the_tersoff_line_stop_every_script_check(tmp_path):
    # LAMMPS: "Number of element to type mappings does not match number of atom types"
    report = grade_deck(tmp_path, DECK.replace("BNC.tersoff B N B N", "BNC.tersoff B N"))
    assert failed(report) == SCRIPT_CHECKS


def test_ilp_without_tersoff_fails_the_model_checks(tmp_path):
    deck = DECK.replace("16.0 1 tersoff", "16.0 1").replace("pair_coeff      * * tersoff BNC.tersoff B N B N\n", "")
    assert failed(grade_deck(tmp_path, deck)) == {"sub-styles", "tersoff-elements", "pair-coefficients"}


def test_stored_data_file_regenerates(tmp_path):
    subprocess.run([sys.executable, str(REF / "reproduce" / "make_data.py"), str(tmp_path / "b.data")], check=True)
    assert (tmp_path / "b.data").read_text() == DATA


def atoms(text: str) -> list[tuple[int, int, float, float, float]]:
    """(molecule, type, x, y, z) of the Atoms section of an atom_style full data file."""
    body = text.split("Atoms # full", 1)[1]
    rows = [line.split() for line in body.strip().splitlines()]
    return [(int(r[1]), int(r[2]), float(r[4]), float(r[5]), float(r[6])) for r in rows]


def test_reference_data_file_is_the_parallel_ab_bilayer():
    """Molecule 1 holds types 1-2, molecule 2 types 3-4; every top B sits over a bottom N, every top N over no
    bottom atom (a hexagon centre); the layers are 3.30 A apart, mid-box, and the box is orthorhombic a x sqrt(3)a."""
    rows = atoms(DATA)
    b = math.sqrt(3) * A
    assert len(rows) == 8
    assert {(m, t) for m, t, *_ in rows} == {(1, 1), (1, 2), (2, 3), (2, 4)}
    bottom = [(t, x, y) for m, t, x, y, _ in rows if m == 1]
    top = [(t, x, y) for m, t, x, y, _ in rows if m == 2]

    def below(x: float, y: float) -> set[int]:
        return {t for t, bx, by in bottom if math.isclose((x - bx + A / 2) % A, A / 2, abs_tol=1e-5)
                and math.isclose((y - by + b / 2) % b, b / 2, abs_tol=1e-5)}  # fmt: skip

    assert all(below(x, y) == ({2} if t == 3 else set()) for t, x, y in top)
    zs = sorted({z for *_, z in rows})
    assert zs[1] - zs[0] == pytest.approx(3.30) and (zs[0] + zs[1]) / 2 == pytest.approx(20.0)
    assert re.search(r"^0\.0 4\.337055 ylo yhi$", DATA, re.M)


def test_reference_values_record_the_run_against_the_dft_path():
    ref = entry(TASK).reference().values
    d_dft = entry("hbn-sliding-barrier").reference().values["d_AB_angstrom"].value
    assert ref["reference_run_d_AB_angstrom"].value == pytest.approx(3.2312)
    assert 0.15 < d_dft - ref["reference_run_d_AB_angstrom"].value < 0.3
    assert -0.03 < ref["reference_run_E_ILP_eV"].value / 8 < -0.02


def _lmp_with_interlayer() -> str | None:
    lmp = shutil.which("lmp")
    if lmp is None:
        return None
    out = subprocess.run([lmp, "-h"], capture_output=True, text=True, check=False).stdout
    return lmp if "INTERLAYER" in out else None


@pytest.mark.slow
@pytest.mark.skipif(_lmp_with_interlayer() is None, reason="no LAMMPS with the INTERLAYER package")
def test_reference_run_reproduces_the_recorded_values(tmp_path):
    subprocess.run(["bash", str(REF / "reproduce" / "reproduce.sh"), str(tmp_path)], check=True)
    values = (tmp_path / "values.json").read_text()
    assert '"reference_run_d_AB_angstrom": 3.2312' in values
