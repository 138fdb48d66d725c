"""Task si-sw-green-kubo-analysis (study si-thermal-transport): Green-Kubo kappa from a recorded heat current.

The staged J.dat and log.lammps are the outputs of the precomputed step green-kubo (reproduce/gk.in, LAMMPS, 500 ps
of NVE production of 1728 SW Si atoms at 500 K). The valid routes and traps are recomputed here from them with
reproduce/alternatives.py rather than copied from the fairness record, and every tolerance edge is probed on the
reference answer and on the oracle's. The oracle only reads the files, so it runs in every test session.
"""

from __future__ import annotations

import re
from types import ModuleType

import h5py
import numpy as np
import pytest
import yaml

from cmb.catalog import stage_bundle
from tests.tasks._helpers import (
    ROOT,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    assert_tolerance_edges,
    entry,
    failed,
    grade_answer,
    grade_dir,
    read_answer,
    reference_answer,
    reproduce_module,
    run_oracle,
    task_dir,
)

TASK = "si-sw-green-kubo-analysis"
STUDY = "si-thermal-transport"
REPRODUCE = ROOT / "references" / TASK / "reproduce"
WORKSPACE = entry(TASK).workspace_dir
GRADED = {"k10-xyz", "k10-mean", "kappa-plateau", "integration-time"}


def _module(name: str) -> ModuleType:
    return reproduce_module(TASK, name)


VALUES = _module("values")
ALTERNATIVES = _module("alternatives").alternatives(WORKSPACE)


# ------------------------------------------------------------------------------------------------ files


def test_graded_checks():
    assert {c.id for c in entry(TASK).grader().checks} == GRADED | {"answer-file", "answer-fields"}


def test_files_are_consistent_and_reduced_prompt_drops_only_the_method():
    assert_entry_is_consistent(
        TASK, STUDY, extra_reference_files=("reproduce/values.py", "reproduce/alternatives.py", "reproduce/gk.in",
                                            "reproduce/cost.yaml", "fairness.yaml", "recall.yaml")
    )  # fmt: skip


def test_reduced_prompt_keeps_every_key_unit_and_definition():
    e = entry(TASK)
    full, reduced = e.prompt(e.conditions()[0]), e.prompt(e.conditions()[1])
    assert reduced == re.sub(r"\n## Method\n.*?(?=\n## )", "", full, flags=re.S) and reduced != full
    for check in e.grader().checks:
        if check.target.field:
            assert f"`{check.target.field}`" in reduced, check.target.field
    for words in (
        "1/(k_B T² V)",
        "mean temperature of the production",
        "every time origin",
        "no mean",
        "τ = 10 ps",
        "average of κ_x, κ_y and κ_z",
        "W/(m·K)",
        "in ps",
        "within 2 %",
        "within 15 %",
    ):
        assert words in " ".join(reduced.split()), words


def test_task_sits_on_the_precomputed_green_kubo_step():
    study = yaml.safe_load((task_dir(STUDY, TASK).parent / "study.yaml").read_text())
    step = next(s for s in study["steps"] if TASK in s.get("tasks", []))
    assert step["id"] == "green-kubo" and step["consumes"] == ["md-equilibration"]
    assert step["precomputed"]["reproduce"] == TASK
    cost = yaml.safe_load((REPRODUCE / "cost.yaml").read_text())
    assert cost["core_minutes"] >= 10 and cost["cores"] == 1


def test_staged_files_are_the_decks_output():
    log = (WORKSPACE / "log.lammps").read_text()
    deck = (REPRODUCE / "gk.in").read_text()
    for line in (
        "units           metal",
        "timestep        0.001",
        "compute         flux all heat/flux ke pe st",
        "fix             jout all ave/time 20 1 20 c_flux[1] c_flux[2] c_flux[3] file J.dat",
    ):
        assert line in deck and line in log, line
    facts = VALUES.read_log(WORKSPACE / "log.lammps")
    assert facts["timestep_ps"] == 0.001 and facts["every"] == 20
    assert facts["volume_A3"] == pytest.approx((6 * 5.4415) ** 3, rel=1e-9)  # the md-equilibration lattice constant
    steps, current = VALUES.read_current(WORKSPACE / "J.dat")
    assert np.all(np.diff(steps) == 20) and steps[0] == 0 and steps[-1] == 500_000 and current.shape == (25_001, 3)
    assert sum(p.stat().st_size for p in WORKSPACE.iterdir()) < 3e6


def test_production_is_an_equilibrium_nve_run_at_500_K():
    facts = VALUES.read_log(WORKSPACE / "log.lammps")
    assert facts["temperature_K"] == pytest.approx(500.0, abs=5.0)
    lines = (WORKSPACE / "log.lammps").read_text().splitlines()
    start = [i for i, ln in enumerate(lines) if ln.split()[:1] == ["Step"]][-1]
    head = lines[start].split()
    rows = []
    for ln in lines[start + 1 :]:
        if ln.startswith("Loop time"):
            break
        rows.append([float(x) for x in ln.split()])
    etot = np.array(rows)[:, head.index("TotEng")]
    assert np.ptp(etot) < 1e-3 * abs(etot.mean())  # energy conserved over 500 ps
    _, current = VALUES.read_current(WORKSPACE / "J.dat")
    # J averages to zero within its noise: the standard error from ten 50 ps blocks (longer than the correlation)
    blocks = current[:25_000].reshape(10, 2500, 3).mean(axis=1)
    sem = blocks.std(axis=0, ddof=1) / np.sqrt(10)
    assert np.all(abs(current.mean(axis=0)) < 4 * sem)


def test_green_kubo_kappa_lies_below_the_rta_kappa_of_the_spectral_step():
    """Classical MD with full anharmonicity against phono3py RTA of the same potential (three-phonon only) at
    500 K: the MD value is the lower one, and of the same order."""
    kappa_file = task_dir(STUDY, "si-sw-kappa-analysis") / "workspace" / "kappa-m191919.hdf5"
    with h5py.File(kappa_file) as f:
        temps, kappa = f["temperature"][:], f["kappa"][:]
    bte = float(kappa[int(np.flatnonzero(temps == 500.0)[0]), 0])
    plateau = reference_answer(TASK)["kappa_W_mK"]
    assert 0.2 * bte < plateau < bte


# ------------------------------------------------------------------------------------------------ baseline gates


def test_empty_submission_fails(tmp_path):
    assert_empty_submission_fails(TASK, tmp_path)


def test_staged_workspace_alone_fails(tmp_path):
    e = entry(TASK)
    stage_bundle(e, e.conditions()[0], tmp_path)
    assert not grade_dir(TASK, tmp_path).passed


def test_reference_values_follow_from_the_staged_files(tmp_path):
    ref = reference_answer(TASK)
    assert grade_answer(TASK, ref, tmp_path).passed
    computed = VALUES.values(WORKSPACE)
    for key in ("kappa_xyz_at_10ps_W_mK", "kappa_at_10ps_W_mK", "kappa_W_mK"):
        assert ref[key] == pytest.approx(computed[key], rel=1e-5), key
    assert ALTERNATIVES["reference"]["kappa_W_mK"] == pytest.approx(ref["kappa_W_mK"], rel=1e-5)


def test_tolerance_edges_from_the_reference_answer(tmp_path):
    assert_tolerance_edges(TASK, reference_answer(TASK), tmp_path)


def test_oracle_passes_with_sharp_edges(oracle_dirs, tmp_path):
    answer = read_answer(oracle_dirs[TASK])
    report = grade_answer(TASK, answer, tmp_path / "oracle")
    assert report.passed, [c.message for c in report.checks if not c.passed]
    ref = reference_answer(TASK)
    for key in ("kappa_at_10ps_W_mK", "kappa_W_mK"):
        assert answer[key] == pytest.approx(ref[key], rel=1e-4), key
    assert answer["kappa_xyz_at_10ps_W_mK"] == pytest.approx(ref["kappa_xyz_at_10ps_W_mK"], rel=1e-4)
    assert_tolerance_edges(TASK, answer, tmp_path)


def test_oracle_passes_under_the_reduced_prompt_too(tmp_path):
    e = entry(TASK)
    report = grade_dir(TASK, run_oracle(TASK, tmp_path, e.conditions()[1]))
    assert report.passed, [c.message for c in report.checks if not c.passed]


# ------------------------------------------------------------------------------------------------ routes and traps

VALID = [k for k in ALTERNATIVES if k != "reference" and not k.startswith("trap:")]
K10 = {"k10-xyz", "k10-mean"}
TRAPS = {
    "trap:flux-taken-as-J-over-V": K10 | {"kappa-plateau"},
    "trap:divided-by-volume-twice": K10 | {"kappa-plateau"},
    "trap:sample-interval-one-timestep": GRADED,
    "trap:directions-summed": K10 | {"kappa-plateau"},
    "trap:x-only": K10,
    "trap:no-unit-conversion": K10 | {"kappa-plateau"},
    "trap:T-not-squared": K10 | {"kappa-plateau"},
    "trap:mean-subtracted": K10 | {"kappa-plateau"},
    "trap:stopped-at-20ps": {"kappa-plateau", "integration-time"},
    "trap:integrated-to-half-the-run": {"kappa-plateau", "integration-time"},
    "trap:first-zero-crossing": {"kappa-plateau", "integration-time"},
}


def test_every_trap_is_listed():
    assert {k for k in ALTERNATIVES if k.startswith("trap:")} == set(TRAPS)
    assert len(VALID) >= 10


@pytest.mark.parametrize("case", VALID)
def test_valid_route_passes(case, tmp_path):
    report = grade_answer(TASK, dict(ALTERNATIVES[case]), tmp_path)
    assert report.passed, (case, [c.message for c in report.checks if not c.passed])


@pytest.mark.parametrize("case", sorted(TRAPS))
def test_trap_fails_its_checks(case, tmp_path):
    assert failed(grade_answer(TASK, dict(ALTERNATIVES[case]), tmp_path)) == TRAPS[case]


def _offset(check_id: str, answer: dict) -> float:
    """How far an answer lies from the reference for one check, in units of its tolerance (the worst element of
    the array check)."""
    check = next(c for c in entry(TASK).grader().checks if c.id == check_id)
    ref = np.atleast_1d(np.asarray(entry(TASK).reference().values[check.reference].value, dtype=float))
    got = np.atleast_1d(np.asarray(answer[check.target.field], dtype=float))
    tol = check.tolerance
    allowed = (tol.abs or 0.0) + (tol.rel or 0.0) * abs(ref)
    return float(np.max(abs(got - ref) / allowed))


def test_valid_routes_sit_inside_and_traps_outside_each_tolerance_with_margin():
    for check_id in GRADED:
        spread = max(_offset(check_id, ALTERNATIVES[case]) for case in VALID)
        assert spread < 0.85, (check_id, spread)
    for case, checks in TRAPS.items():
        for check_id in checks:
            assert _offset(check_id, ALTERNATIVES[case]) > 1.15, (case, check_id)


def test_fairness_record_matches_the_recomputed_routes():
    cases = {c.id: c for c in entry(TASK).fairness().cases}
    for name, answer in ALTERNATIVES.items():
        if name == "reference":
            continue
        case = cases[name.removeprefix("trap:")]
        assert (case.expect.value == "fail") == name.startswith("trap:"), name
        for key, value in answer.items():
            assert np.allclose(case.answer[key], value, rtol=1e-5, atol=0), (name, key)


def test_recall_fails_the_fixed_cutoff_checks(tmp_path):
    answer = {v.field: v.value for v in entry(TASK).recall().values}
    assert K10 <= failed(grade_answer(TASK, answer, tmp_path))
