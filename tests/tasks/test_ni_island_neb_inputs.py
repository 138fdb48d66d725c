"""Task ni-island-neb-inputs (study ni-island-saddles): the LAMMPS climbing-image NEB input of the EAM band.

The staged end states are the heptamer on fcc and on hcp hollows relaxed with Foiles' EAM
(references/ni-island-neb-inputs/reproduce/make_states.py, through the study's saddle tool); the reference deck
runs on them under mpirun and must give the barrier of ni-island-eam-saddle. The fairness cases and the recall
baseline are graded by tests/tasks/test_gates.py; this module adds the reference deck and its traps, the staged
states against the study's structures, and the oracle's final-replica file. Tests that run LAMMPS are `slow`.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from tests.tasks._helpers import (
    ROOT,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    entry,
    failed,
    grade_dir,
    reference_of,
    run_oracle,
    stage_workspace,
)

TASK = "ni-island-neb-inputs"
STUDY = "ni-island-saddles"
REFERENCE_DIR = ROOT / "references" / TASK
WORKSPACE = entry(TASK).workspace_dir
DECK = (REFERENCE_DIR / "in.neb").read_text()
NATOMS = 263
needs_mpi_lmp = pytest.mark.skipif(
    shutil.which("lmp") is None or shutil.which("mpirun") is None, reason="LAMMPS (lmp) or mpirun not installed"
)


def _make_states() -> ModuleType:
    path = REFERENCE_DIR / "reproduce" / "make_states.py"
    spec = importlib.util.spec_from_file_location("ni_neb_make_states", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def atoms(path: Path) -> dict[int, list[float]]:
    """id -> position of a LAMMPS data file (atom_style atomic)."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Atoms")) + 2
    rows = [line.split() for line in lines[start : start + NATOMS]]
    return {int(r[0]): [float(x) for x in r[2:5]] for r in rows}


LX, LY, XY = 19.9121269582, 17.2444077892, 9.9560634791  # the staged cell: a = (LX, 0, 0), b = (XY, LY, 0)


def same_site(p: list[float], q: list[float], tol: float = 1e-8) -> bool:
    """Whether two positions are one site up to lattice vectors of the periodic cell (write_data wraps atoms)."""
    dy = (q[1] - p[1]) / LY
    nb = round(dy)
    dx = (q[0] - p[0] - nb * XY) / LX
    return abs(dy - nb) * LY < tol and abs(dx - round(dx)) * LX < tol and abs(q[2] - p[2]) < tol


def reference_submission(folder: Path, deck: str = DECK) -> Path:
    """The staged workspace, a deck, and the final-replica file the reference writes."""
    stage_workspace(TASK, folder)
    (folder / "in.neb").write_text(deck)
    (folder / "final.coords").write_text(_make_states().neb_coords(WORKSPACE / "hcp_relaxed.data"))
    return folder


# --- files, prompts, empty submissions ------------------------------------------------------------------------------


def test_entry_is_consistent():
    assert_entry_is_consistent(TASK, STUDY, ["in.neb", "reproduce/make_states.py"])


def test_empty_submission_fails(tmp_path):
    assert_empty_submission_fails(TASK, tmp_path)


def test_staged_workspace_alone_fails(tmp_path):
    report = grade_dir(TASK, stage_workspace(TASK, tmp_path))
    assert {"input-file", "final-file"} <= failed(report)


def test_the_step_of_the_task_is_the_eam_band():
    study = yaml.safe_load((ROOT / "tasks" / STUDY / "study.yaml").read_text())
    step = next(s for s in study["steps"] if TASK in s.get("tasks", []))
    assert step["id"] == "eam-saddle"
    assert "ni-island-eam-saddle" in step["tasks"]


# --- the staged states ----------------------------------------------------------------------------------------------


def test_staged_potential_is_the_eam_saddle_one():
    other = ROOT / "tasks" / STUDY / "ni-island-eam-saddle" / "workspace" / "Ni_u3.eam"
    assert (WORKSPACE / "Ni_u3.eam").read_bytes() == other.read_bytes()


def test_staged_states_hold_the_bottom_layers_and_move_the_island(tmp_path):
    """The atoms below z = 13 A sit where build_island.py put them; the island moved by a/sqrt(6) in the plane."""
    sys.path.insert(0, str(ROOT / "references" / "ni-island-eam-saddle" / "reproduce"))
    try:
        import build_island
    finally:
        sys.path.pop(0)
    build_island.main(tmp_path)
    built = atoms(tmp_path / "initial.data")
    fcc, hcp = atoms(WORKSPACE / "fcc_relaxed.data"), atoms(WORKSPACE / "hcp_relaxed.data")
    assert len(fcc) == len(hcp) == NATOMS
    bottom = [i for i, p in built.items() if p[2] < 13.0]
    assert bottom == list(range(1, 129))
    assert all(same_site(fcc[i], built[i]) and same_site(hcp[i], built[i]) for i in bottom)
    centre = 257  # the island's centre atom (build_island.py lists it first)
    d = [b - a for a, b in zip(fcc[centre], hcp[centre], strict=True)]
    assert (d[0] ** 2 + d[1] ** 2) ** 0.5 == pytest.approx(3.52 / 6**0.5, abs=0.02)
    assert fcc[centre][2] > 17.0 and hcp[centre][2] > 17.0


@pytest.mark.slow
@needs_mpi_lmp
def test_reproduction_regenerates_the_staged_states_and_the_eam_barrier(tmp_path):
    """make_states.py relaxes the study's structures to the staged files, and the reference deck run on them gives
    the barriers of ni-island-eam-saddle."""
    _make_states().main(tmp_path)
    for name in ("fcc_relaxed.data", "hcp_relaxed.data"):
        new, staged = atoms(tmp_path / "workspace" / name), atoms(WORKSPACE / name)
        assert all(new[i] == pytest.approx(staged[i], abs=1e-8) for i in staged), name
    values = json.loads((tmp_path / "values.json").read_text())
    ref = reference_of(TASK).values
    for key in ("reference_run_forward_barrier_eV", "reference_run_reverse_barrier_eV"):
        assert values[key] == pytest.approx(ref[key].value, abs=1e-6)
    eam = reference_of("ni-island-eam-saddle").values
    assert values["reference_run_forward_barrier_eV"] == pytest.approx(eam["forward_barrier_eV"].value, abs=1e-5)
    assert values["reference_run_reverse_barrier_eV"] == pytest.approx(eam["reverse_barrier_eV"].value, abs=1e-5)
    assert values["reference_run_max_replica_force_eV_per_A"] < 1e-3


# --- the reference deck and its traps -------------------------------------------------------------------------------


def test_reference_deck_passes(tmp_path):
    report = grade_dir(TASK, reference_submission(tmp_path))
    assert report.passed, {c.id: c.message for c in report.checks if not c.passed}


@pytest.mark.parametrize(
    ("old", "new", "failing"),
    [
        ("atom_modify     map array          # NEB looks atoms up by ID across replicas\n", "", {"atom-map"}),
        ("min_style       quickmin", "min_style       cg", {"minimiser"}),
        ("min_style       quickmin\n", "", {"minimiser"}),
        ("timestep        0.005", "timestep        5.0", {"timestep"}),
        ("timestep        0.005", "timestep        0.025", {"timestep"}),
        ("neb             0.0 0.001 ", "neb             0.0 0.0011 ", {"force-tolerance"}),
        ("5000 5000 100", "5000 0 100", {"climbing-image"}),
        ("final final.coords", "each final.coords", {"neb-final"}),
        ("fix             hold bottom setforce 0.0 0.0 0.0", "fix             hold bottom setforce 0.0 0.0 NULL",
         {"fixed-bottom"}),
        ("fix             band free neb 1.0\n", "", {"band-fix"}),
        ("pair_style      eam\npair_coeff      * * Ni_u3.eam",
         "pair_style      eam/fs\npair_coeff      * * Ni_u3.eam Ni", {"pair-style"}),
    ],
)  # fmt: skip
def test_reference_deck_trap_fails_its_check(old, new, failing, tmp_path):
    assert old in DECK
    report = grade_dir(TASK, reference_submission(tmp_path, DECK.replace(old, new)))
    assert failed(report) == failing


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("timestep        0.005", "timestep        0.02"),
        ("timestep        0.005\n", ""),
        ("min_style       quickmin", "min_style       fire"),
        ("atom_modify     map array", "atom_modify     map yes sort 0 0.0"),
        ("neb             0.0 0.001 ", "neb             1.0e-6 1.0e-4 "),
        ("fix             band free neb 1.0", "fix             band free neb 0.1 parallel ideal"),
    ],
)
def test_reference_deck_variant_passes(old, new, tmp_path):
    assert old in DECK
    report = grade_dir(TASK, reference_submission(tmp_path, DECK.replace(old, new)))
    assert report.passed, {c.id: c.message for c in report.checks if not c.passed}


def test_a_run_after_the_band_moves_the_graded_stage(tmp_path):
    """The interpreter reads the state at the last run: a band unfixed before a `run 0` loses its fix neb (the
    prompt asks for `neb` as the last command)."""
    deck = DECK + "unfix           band\nrun             0\n"
    assert failed(grade_dir(TASK, reference_submission(tmp_path, deck))) == {"band-fix"}


# --- the oracle -----------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_oracle_passes_and_writes_every_atom_of_the_hcp_state(tmp_path):
    out = run_oracle(TASK, tmp_path)
    report = grade_dir(TASK, out)
    assert report.passed, {c.id: c.message for c in report.checks if not c.passed}
    lines = (out / "final.coords").read_text().splitlines()
    assert int(lines[0]) == NATOMS == len(lines) - 1
    hcp = atoms(WORKSPACE / "hcp_relaxed.data")
    rows = {int(r[0]): [float(x) for x in r[1:4]] for r in (line.split() for line in lines[1:])}
    assert rows.keys() == hcp.keys()
    assert all(rows[i] == pytest.approx(hcp[i], abs=1e-9) for i in hcp)
    assert (out / "fcc_relaxed.data").read_bytes() == (WORKSPACE / "fcc_relaxed.data").read_bytes()


# --- the final-replica file -----------------------------------------------------------------------------------------


def test_reference_states_of_the_final_replica_check_are_the_staged_ones():
    states = ROOT / "references" / TASK / "states"
    for name in ("fcc_relaxed.data", "hcp_relaxed.data"):
        assert (states / name).read_bytes() == (WORKSPACE / name).read_bytes()


@pytest.mark.parametrize(("shift", "passes"), [(0.0099, True), (0.0101, False)])
def test_final_replica_tolerance_edge(tmp_path, shift, passes):
    """An island atom moved along z just inside and just outside the 0.01 A of lammps.neb_coords."""
    folder = reference_submission(tmp_path)
    lines = (folder / "final.coords").read_text().splitlines()
    row = lines[NATOMS].split()  # atom 263, an island atom
    assert row[0] == str(NATOMS)
    lines[NATOMS] = " ".join([*row[:3], repr(float(row[3]) + shift)])
    (folder / "final.coords").write_text("\n".join(lines) + "\n")
    failures = failed(grade_dir(TASK, folder))
    assert failures == (set() if passes else {"final-replica"})
