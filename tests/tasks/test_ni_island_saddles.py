"""Study ni-island-saddles: files, tolerance edges and physics checks of its tasks and workflow.

Oracles run once per session through the `suite_oracles` fixture; every one runs LAMMPS and is `slow` (skipped
where LAMMPS is missing). The fairness cases and the recall baseline of every task are graded by
tests/tasks/test_gates.py; this module adds what is particular to the study: the staged structures against their
generator, the one saddle tool shared by three solution folders, the identities of a band's energies, the staged
saddle as a stationary point, the minima it connects against the relaxed ends, and the workflow against its
single tasks.
"""

from __future__ import annotations

import filecmp
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.tasks._helpers import (
    ROOT,
    assert_empty_submission_fails,
    assert_files_are_consistent,
    assert_reduced_prompt_drops_only_the_method,
    assert_tolerance_edges,
    grade_dir,
    read_answer,
    reference_answer,
    reference_of,
    spec_of,
    stage_workspace,
    write_answer,
)

STUDY = "ni-island-saddles"
TASKS = ["ni-island-eam-saddle", "ni-island-adp-saddle", "ni-island-saddle-certification", "ni-island-glide-rate"]
WORKFLOW = "ni-island-saddle-workflow"
MODEL = "ni-island-model"  # the island-model step; its own tool (ni_island.py), not the saddle tool
WORKSPACE = ROOT / "tasks" / STUDY
REFERENCES = ROOT / "references"
TOOL = "ni_saddle.py"


def oracle(task: str, suite_oracles: dict[str, Path]) -> Path:
    if shutil.which("lmp") is None:
        pytest.skip("LAMMPS (lmp) not installed")
    return suite_oracles[task]


def ref(task: str, key: str) -> Any:
    return reference_of(task).values[key].value


# --- files, prompts, empty submissions ------------------------------------------------------------------------------


@pytest.mark.parametrize("task", [*TASKS, WORKFLOW, MODEL])
def test_task_files_are_consistent(task):
    assert_files_are_consistent(STUDY, task)


@pytest.mark.parametrize("task", [*TASKS, WORKFLOW, MODEL])
def test_reduced_prompt_is_the_full_prompt_without_its_method_section(task):
    assert_reduced_prompt_drops_only_the_method(task)


@pytest.mark.parametrize("task", [*TASKS, WORKFLOW, MODEL])
def test_empty_submission_fails(task, tmp_path):
    assert_empty_submission_fails(task, tmp_path)


@pytest.mark.parametrize("task", [*TASKS, WORKFLOW, MODEL])
def test_staged_workspace_alone_fails(task, tmp_path):
    assert not grade_dir(task, stage_workspace(task, tmp_path)).passed


def test_study_graph_holds_every_task():
    spec = yaml.safe_load((WORKSPACE / "study.yaml").read_text())
    listed = [t for s in spec["steps"] for t in s.get("tasks", [])]
    assert sorted(listed) == sorted([*TASKS, MODEL, "ni-island-neb-inputs"])
    selected = [s for s in spec["steps"] if s.get("selected", True)]
    assert 3 <= len(selected) <= 7


def test_the_three_solution_folders_share_one_saddle_tool():
    """The workflow runs the single tasks' copies: they must not drift apart."""
    copies = [REFERENCES / t / "solution" / TOOL for t in TASKS]
    assert all(filecmp.cmp(copies[0], c, shallow=False) for c in copies[1:])


def test_staged_structures_are_what_the_generator_builds(tmp_path):
    script = REFERENCES / "ni-island-eam-saddle" / "reproduce" / "build_island.py"
    subprocess.run([sys.executable, str(script), str(tmp_path)], check=True)
    for task in [*TASKS, WORKFLOW, MODEL]:
        for name in ("initial.data", "final.data"):
            staged = WORKSPACE / task / "workspace" / name
            if name in spec_of(STUDY, task).workspace:
                assert filecmp.cmp(tmp_path / name, staged, shallow=False), (task, name)


def test_certification_and_rate_stage_the_same_saddle():
    saddles = [
        WORKSPACE / t / "workspace" / "saddle.data" for t in ("ni-island-saddle-certification", "ni-island-glide-rate")
    ]
    assert filecmp.cmp(*saddles, shallow=False)


def test_final_state_is_the_island_moved_rigidly_to_hcp_hollows(tmp_path):
    """Only the seven island atoms differ, all by the same in-plane vector of length a/sqrt(6)."""

    def atoms(path: Path) -> list[list[float]]:
        lines = path.read_text().splitlines()
        start = lines.index("Atoms # atomic") + 2
        return [[float(x) for x in line.split()[2:5]] for line in lines[start:] if line.strip()]

    ini = atoms(WORKSPACE / "ni-island-eam-saddle" / "workspace" / "initial.data")
    fin = atoms(WORKSPACE / "ni-island-eam-saddle" / "workspace" / "final.data")
    assert len(ini) == len(fin) == 263
    moved = [
        (i, [b - a for a, b in zip(p, q, strict=True)]) for i, (p, q) in enumerate(zip(ini, fin, strict=True)) if p != q
    ]
    assert [i for i, _ in moved] == list(range(256, 263))
    lengths = {round((d[0] ** 2 + d[1] ** 2) ** 0.5, 6) for _, d in moved if abs(d[2]) < 1e-9}
    # an atom wrapped across the periodic boundary moves by the shift plus a cell vector: the six others agree
    assert round(3.52 / 6**0.5, 6) in lengths


# --- oracles --------------------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("task", [*TASKS, WORKFLOW, MODEL])
def test_oracle_passes(task, suite_oracles):
    report = grade_dir(task, oracle(task, suite_oracles))
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


# --- tolerance edges around the reference ---------------------------------------------------------------------------


@pytest.mark.parametrize("task", [*TASKS, WORKFLOW, MODEL])
def test_tolerance_edges_around_the_reference(task, tmp_path):
    base = reference_answer(task, ("numeric.scalar", "numeric.array", "numeric.integer"))
    assert_tolerance_edges(task, base, tmp_path)


@pytest.mark.parametrize("count", [0, 2, 3])
@pytest.mark.parametrize("task", ["ni-island-saddle-certification", WORKFLOW])
def test_a_saddle_of_another_order_fails_the_count(task, count, tmp_path):
    answer = reference_answer(task, ("numeric.scalar", "numeric.array", "numeric.integer"))
    answer["n_negative_modes"] = count
    report = grade_dir(task, write_answer(tmp_path, answer))
    assert {c.id for c in report.checks if not c.passed} == {"negative-modes"}


# --- physics of the oracles' runs -----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("task", ["ni-island-eam-saddle", "ni-island-adp-saddle"])
def test_band_energies_obey_their_identities(task, suite_oracles):
    """forward - reverse = reaction energy; the ends of the band are the relaxed states; the top is inside."""
    run = json.loads((oracle(task, suite_oracles) / "neb" / "neb.json").read_text())
    assert run["forward_barrier_eV"] - run["reverse_barrier_eV"] == pytest.approx(run["reaction_energy_eV"], abs=1e-9)
    images = run["image_energies_eV"]
    assert images[0] == pytest.approx(run["E_initial_eV"], abs=1e-6)
    assert images[-1] == pytest.approx(run["E_final_eV"], abs=1e-6)
    assert 0 < run["saddle_image"] < len(images) - 1
    assert run["max_replica_force_eV_per_A"] < 1e-3


@pytest.mark.slow
def test_adp_saddle_lies_below_the_eam_saddle_rescored(suite_oracles):
    """The refinement matters: the ADP barrier is far below the ADP energy of the EAM saddle geometry."""
    adp = read_answer(oracle("ni-island-adp-saddle", suite_oracles))
    assert adp["forward_barrier_eV"] < 0.6
    assert ref("ni-island-adp-saddle", "forward_barrier_eV") < ref("ni-island-eam-saddle", "forward_barrier_eV")


@pytest.mark.slow
def test_certified_minima_are_the_relaxed_end_states(suite_oracles):
    run = json.loads((oracle("ni-island-saddle-certification", suite_oracles) / "certify" / "certify.json").read_text())
    assert run["connected_minima_eV"] == pytest.approx(run["relaxed_ends_eV"], abs=1e-6)
    assert run["n_negative_eigenvalues"] == 1
    assert run["lowest_positive_frequency_THz"] > 0.5


@pytest.mark.slow
def test_rate_counts_every_mode_of_the_minimum_and_the_real_ones_of_the_saddle(suite_oracles):
    run = json.loads((oracle("ni-island-glide-rate", suite_oracles) / "rate" / "rate.json").read_text())
    assert (run["n_modes_minimum"], run["n_modes_saddle_real"]) == (405, 404)
    assert run["barrier_eV"] == pytest.approx(ref("ni-island-adp-saddle", "forward_barrier_eV"), abs=1e-6)
    kt = 8.617333262e-5 * 300
    assert run["rate_per_s"] == pytest.approx(run["prefactor_THz"] * 1e12 * math.exp(-run["barrier_eV"] / kt))


@pytest.mark.slow
def test_staged_saddle_is_a_stationary_point(tmp_path):
    """The staged saddle holds no force above the band's tolerance on its free atoms."""
    if shutil.which("lmp") is None:
        pytest.skip("LAMMPS (lmp) not installed")
    sys.path.insert(0, str(REFERENCES / "ni-island-saddle-certification" / "solution"))
    try:
        import ni_saddle
    finally:
        sys.path.pop(0)
    ws = WORKSPACE / "ni-island-saddle-certification" / "workspace"
    script = ni_saddle.header(ws / "Ni.adp", str(ws / "saddle.data")) + 'run 0\nprint "FMAX $(fmax:%.8f)"\n'
    fmax = ni_saddle.energy_of(ni_saddle.lmp(script, tmp_path, "fmax"), "FMAX")
    assert fmax < 2e-3


@pytest.mark.slow
def test_workflow_reproduces_its_single_tasks(suite_oracles):
    wf = read_answer(oracle(WORKFLOW, suite_oracles))
    eam = read_answer(oracle("ni-island-eam-saddle", suite_oracles))
    adp = read_answer(oracle("ni-island-adp-saddle", suite_oracles))
    assert wf["eam_forward_barrier_eV"] == pytest.approx(eam["forward_barrier_eV"], abs=1e-9)
    assert wf["adp_forward_barrier_eV"] == pytest.approx(adp["forward_barrier_eV"], abs=1e-9)
    assert wf["adp_reverse_barrier_eV"] == pytest.approx(adp["reverse_barrier_eV"], abs=1e-9)
    assert wf["unstable_mode_frequency_THz"] == pytest.approx(ref(WORKFLOW, "unstable_mode_frequency_THz"), rel=1e-3)


# --- the island model ----------------------------------------------------------------------------------------------


def _layer_sites(path: Path) -> tuple[list[tuple[float, float, float]], tuple[float, float]]:
    lines = path.read_text().splitlines()
    start = lines.index("Atoms # atomic") + 2
    atoms = [tuple(float(x) for x in line.split()[2:5]) for line in lines[start:] if line.strip()]
    lx = float(next(line.split()[1] for line in lines if line.endswith("xlo xhi")))
    xy = float(next(line.split()[0] for line in lines if line.endswith("xy xz yz")))
    return atoms, (lx, xy)


@pytest.mark.parametrize(("name", "below"), [("initial.data", 12.03), ("final.data", 14.06)])
def test_model_island_registry(name, below):
    """The registry trap: the fcc island sits over atoms of the third layer, the hcp island over the second's."""
    atoms, (lx, xy) = _layer_sites(WORKSPACE / MODEL / "workspace" / name)
    ly = 17.2444077892
    centre = atoms[256]  # ID 257, the island's centre

    def over(z_layer: float) -> bool:
        for x, y, z in atoms[:256]:
            if abs(z - z_layer) > 0.01:
                continue
            dy = (centre[1] - y) / ly
            dx = centre[0] - x - round(dy) * xy
            if abs(dy - round(dy)) * ly < 1e-6 and abs(dx / lx - round(dx / lx)) * lx < 1e-6:
                return True
        return False

    assert over(below)
    assert not over(16.0968) and not over(12.03 if below > 13 else 14.06)


def test_model_reference_agrees_with_the_band_end_states():
    """The island's fcc-hcp difference is the reaction energy of the EAM band, from the same relaxed states."""
    assert 1000 * ref("ni-island-eam-saddle", "reaction_energy_eV") == pytest.approx(
        ref(MODEL, "island_hcp_minus_fcc_meV"), abs=1e-3
    )


def test_model_reference_physics():
    """fcc is preferred, more per atom in the island than for one adatom; the island is bound, costs energy against
    the bulk, and relaxes inward of the bulk layer spacing but stays above a lone adatom."""
    island, adatom = ref(MODEL, "island_hcp_minus_fcc_meV"), ref(MODEL, "adatom_hcp_minus_fcc_meV")
    assert 0 < adatom < island / 7
    assert 0 < ref(MODEL, "binding_energy_eV_per_atom") < 4.45
    assert 0 < ref(MODEL, "excess_energy_eV_per_atom") < 4.45
    height = ref(MODEL, "island_height_A")
    assert 1.85 < height < 3.52 / math.sqrt(3)


@pytest.mark.slow
def test_model_oracle_energies_obey_their_identities(suite_oracles):
    """binding + excess is the single adatom's energy above the bulk; the island's ends are the band's."""
    run = json.loads((oracle(MODEL, suite_oracles) / "island" / "island.json").read_text())
    e = {k: v["E_eV"] for k, v in run["runs"].items()}
    single = e["adatom_fcc"] - e["slab"] - run["bulk_energy_eV_per_atom"]
    assert run["binding_energy_eV_per_atom"] + run["excess_energy_eV_per_atom"] == pytest.approx(single, abs=1e-9)
    assert [v["atoms"] for v in run["runs"].values()] == [263, 263, 256, 257, 257]
    assert run["bulk_energy_eV_per_atom"] == pytest.approx(-4.45, abs=1e-6)


@pytest.mark.reproduction
def test_model_reproduction_gives_the_reference(tmp_path):
    if shutil.which("lmp") is None:
        pytest.skip("LAMMPS (lmp) not installed")
    script = REFERENCES / MODEL / "reproduce" / "reproduce.sh"
    subprocess.run(["bash", str(script), str(tmp_path)], check=True, capture_output=True)
    values = json.loads((tmp_path / "values.json").read_text())
    for key, entry in reference_of(MODEL).values.items():
        assert values[key] == pytest.approx(entry.value, abs=1e-4 * max(1.0, abs(entry.value))), key
