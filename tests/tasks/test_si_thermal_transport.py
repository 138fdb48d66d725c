"""Study si-thermal-transport: traps and tolerance edges of its six tasks and its workflow.

Each oracle runs once per module (module-scoped fixtures); those that run LAMMPS or phono3py are `slow` and are
skipped where the code is missing. Every numeric check is probed just inside and just outside its tolerance,
both around the reference value (fast) and on the oracle's own answer, and every trap an expert avoids is shown
to fail the check meant to catch it.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest

from cmb.models import GradeReport, GraderSpec, Reference, TaskSpec, WorkflowSpec
from tests.tasks import _helpers
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
)

STUDY = "si-thermal-transport"
TASKS = [
    "si-sw-md-inputs",
    "si-sw-lattice",
    "si-sw-phonons",
    "si-sw-kappa",
    "si-sw-kappa-analysis",
]
JSON_TASKS = TASKS[1:]
NEEDS_LMP = {"si-sw-lattice", "si-sw-phonons", "si-sw-kappa"}


def task_dir(task: str) -> Path:
    return _helpers.task_dir(_helpers.entry(task).spec.study, task)


def load(task: str) -> tuple[TaskSpec, GraderSpec, Reference]:
    spec = spec_of(STUDY, task)
    assert isinstance(spec, TaskSpec), task
    return spec, grader_of(task), reference_of(task)


def run_oracle(task: str, dest: Path, timeout_s: float = 600) -> Path:
    """The oracle, run in the bare workspace (no prompt staged)."""
    return _helpers.run_oracle(task, dest, timeout_s=timeout_s, with_prompt=False)


def oracle_dir(task: str, factory: pytest.TempPathFactory) -> Path:
    if task in NEEDS_LMP and shutil.which("lmp") is None:
        pytest.skip("LAMMPS (lmp) not installed")
    return run_oracle(task, factory.mktemp(task))


@pytest.fixture(scope="module")
def lattice_oracle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return oracle_dir("si-sw-lattice", tmp_path_factory)


@pytest.fixture(scope="module")
def phonons_oracle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return oracle_dir("si-sw-phonons", tmp_path_factory)


@pytest.fixture(scope="module")
def kappa_oracle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("phono3py")
    return oracle_dir("si-sw-kappa", tmp_path_factory)


@pytest.fixture(scope="module")
def analysis_oracle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return oracle_dir("si-sw-kappa-analysis", tmp_path_factory)


ORACLES = {
    "si-sw-lattice": "lattice_oracle",
    "si-sw-phonons": "phonons_oracle",
    "si-sw-kappa": "kappa_oracle",
    "si-sw-kappa-analysis": "analysis_oracle",
}
SLOW = {"si-sw-lattice", "si-sw-phonons", "si-sw-kappa"}


def oracle_param(task: str) -> Any:
    return pytest.param(task, marks=pytest.mark.slow, id=task) if task in SLOW else pytest.param(task, id=task)


# --- files, prompts, empty submissions ------------------------------------------------------------------------------


@pytest.mark.parametrize("task", TASKS)
def test_task_files_are_consistent(task):
    assert_files_are_consistent(_helpers.entry(task).spec.study, task)


@pytest.mark.parametrize("task", TASKS)
def test_reduced_prompt_is_the_full_prompt_without_its_method_section(task):
    assert_reduced_prompt_drops_only_the_method(task)


@pytest.mark.parametrize("task", TASKS)
def test_empty_submission_fails(task, tmp_path):
    assert_empty_submission_fails(task, tmp_path)


@pytest.mark.parametrize("task", TASKS)
def test_staged_workspace_alone_fails(task, tmp_path):
    assert not grade_dir(task, stage_workspace(task, tmp_path)).passed


# --- oracles --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("task", [oracle_param(t) for t in ORACLES])
def test_oracle_passes(task, request):
    report = grade_dir(task, request.getfixturevalue(ORACLES[task]))
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("lmp") is None, reason="the oracle smoke-runs its script with lmp")
def test_md_inputs_oracle_passes(tmp_path):
    report = grade_dir("si-sw-md-inputs", run_oracle("si-sw-md-inputs", tmp_path))
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


# --- tolerance edges of every numeric JSON check --------------------------------------------------------------------


def reference_answer(task: str) -> dict[str, Any]:
    _, grader, ref = load(task)
    return {c.target.field: ref.values[c.reference].value for c in grader.checks
            if c.type == "numeric.scalar" and c.target.file == "answer.json"}  # fmt: skip


def write_submission(task: str, dest: Path, answer: dict[str, Any], base: Path | None = None) -> Path:
    """answer.json (every task of this study answers in that one file)."""
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "answer.json").write_text(json.dumps(answer))
    return dest


def scalar_checks(task: str) -> list[Any]:
    _, grader, _ = load(task)
    return [c for c in grader.checks if c.type == "numeric.scalar"]


def probe_edges(task: str, base_answer: dict[str, Any], tmp_path: Path, base: Path | None) -> None:
    """Tolerance edges of every scalar check, the other answer files copied from `base` (or the reference's)."""

    def grade_answer(task: str, answer: dict[str, Any], folder: Path) -> GradeReport:
        return grade_dir(task, write_submission(task, folder, answer, base))

    assert_tolerance_edges(task, base_answer, tmp_path, checks=scalar_checks(task), grade_answer=grade_answer)


@pytest.mark.parametrize("task", JSON_TASKS)
def test_tolerance_edges_around_the_reference(task, tmp_path):
    probe_edges(task, reference_answer(task), tmp_path, None)


@pytest.mark.parametrize("task", [oracle_param(t) for t in ORACLES])
def test_tolerance_edges_on_the_oracle_answer(task, request, tmp_path):
    base = request.getfixturevalue(ORACLES[task])
    probe_edges(task, read_answer(base), tmp_path, base)


def answer_with(task: str, tmp_path: Path, **changes: Any) -> GradeReport:
    return grade_dir(task, write_submission(task, tmp_path / "sub", reference_answer(task) | changes))


# --- si-sw-md-inputs ------------------------------------------------------------------------------------------------

MD_IN = (ROOT / "references" / "si-sw-md-inputs" / "in.lmp").read_text()
A500 = reference_of("si-sw-md-inputs").values["lattice_constant_500K_angstrom"].value
LATTICE = f"lattice         diamond {A500}"
MD_SCRIPT_CHECKS = {c.id for c in load("si-sw-md-inputs")[1].checks} - {"input-file"}


def grade_md(text: str, tmp_path: Path) -> GradeReport:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "in.lmp").write_text(text)
    return grade_dir("si-sw-md-inputs", tmp_path)


def md_replace(old: str, new: str) -> str:
    assert old in MD_IN, old
    return MD_IN.replace(old, new)


def test_md_reference_input_passes(tmp_path):
    report = grade_md(MD_IN, tmp_path)
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


@pytest.mark.parametrize(
    ("old", "new", "failing"),
    [
        # timestep written in fs under metal units: 1 ps; the 0.1 ps damping is then 0.1 step
        ("timestep        0.001", "timestep        1.0", {"timestep", "nvt"}),
        # damping written as a number of steps: 100 ps = 1e5 steps
        ("temp 500.0 500.0 0.1", "temp 500.0 500.0 100", {"nvt"}),
        ("temp 500.0 500.0 0.1", "temp 300.0 300.0 0.1", {"nvt"}),  # wrong temperature
        ("fix             nvt all nvt", "fix             nvt all nve", {"nvt", "single-integrator"}),  # NVE
        (
            "fix             nvt all nvt",
            "fix             extra all nve\nfix             nvt all nvt",
            {"single-integrator"},
        ),
        (LATTICE, f"lattice         fcc {A500}", {"lattice-style"}),
        (LATTICE, "lattice         diamond 5.47", {"lattice-scale"}),  # the PBE lattice constant
        # the zero-kelvin lattice constant (the habit): the NVT run would sit at a thermal pressure of ~6 kbar
        (LATTICE, "lattice         diamond 5.431", {"lattice-scale"}),
        (LATTICE, "lattice         diamond 5.4345", {"lattice-scale"}),  # real silicon's expansion to 500 K
        ("units           metal", "units           real", {"units"}),
        (
            "velocity        all create 500.0 4928459 mom yes rot yes dist gaussian\n",
            "",
            {"velocity-temp", "velocity-group", "velocity-seed"},
        ),
        ("create 500.0", "create 300.0", {"velocity-temp"}),
        ("run             50000", "run             50", {"run-length"}),  # 50 read as ps
        ("thermo          100\n", "", {"thermo"}),  # default thermo 0: first and last step only
        ("mass            1 28.0855", "mass            1 72.63", {"mass"}),
        (
            "pair_style      sw\npair_coeff      * * Si.sw Si",
            "pair_style      tersoff\npair_coeff      * * Si.tersoff Si",
            {"pair-style", "potential"},
        ),
        ("boundary        p p p", "boundary        p p f", {"boundary"}),
    ],
)
def test_md_trap_fails_its_check(old, new, failing, tmp_path):
    assert failed(grade_md(md_replace(old, new), tmp_path)) == failing


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("pair_coeff      * * Si.sw Si", "pair_coeff      * * Si.sw Si Si"),  # two elements for one atom type
        ("create_box      1 box", "create_box      2 box"),  # two atom types, one element named
    ],
)
def test_md_pair_coeff_element_count_mismatch_fails_every_script_check(old, new, tmp_path):
    report = grade_md(md_replace(old, new), tmp_path)
    assert failed(report) == MD_SCRIPT_CHECKS
    assert "LAMMPS stops" in next(c for c in report.checks if c.id == "potential").message


def test_md_effective_defaults_count(tmp_path):
    # No timestep and no boundary command: metal's default 0.001 ps and p p p are what LAMMPS uses.
    text = md_replace("timestep        0.001\n", "").replace("boundary        p p p\n", "")
    assert grade_md(text, tmp_path).passed


def test_md_doubled_velocity_temperature_and_damping_via_dt_pass(tmp_path):
    text = md_replace("create 500.0", "create 1000.0").replace("temp 500.0 500.0 0.1", "temp 500 500 $(100*dt)")
    assert grade_md(text, tmp_path).passed


@pytest.mark.parametrize(
    ("old", "inside", "outside"),
    [
        (LATTICE, f"lattice         diamond {A500 * (1 + 0.98 * 5e-4):.6f}",
         f"lattice         diamond {A500 * (1 + 1.02 * 5e-4):.6f}"),
        (LATTICE, f"lattice         diamond {A500 * (1 - 0.98 * 5e-4):.6f}",
         f"lattice         diamond {A500 * (1 - 1.02 * 5e-4):.6f}"),
        ("timestep        0.001", "timestep        0.0010009", "timestep        0.0010011"),
        ("temp 500.0 500.0 0.1", "temp 500.4 500.4 0.1", "temp 500.6 500.6 0.1"),
        ("temp 500.0 500.0 0.1", "temp 500.0 500.0 0.02", "temp 500.0 500.0 0.0199"),  # 20 steps
        ("temp 500.0 500.0 0.1", "temp 500.0 500.0 1.0", "temp 500.0 500.0 1.001"),  # 1000 steps
        ("create 500.0", "create 1000.0", "create 1000.1"),
        ("create 500.0", "create 500.0", "create 499.9"),
        ("run             50000", "run             50000", "run             49999"),
        ("thermo          100", "thermo          1000", "thermo          1001"),
        ("mass            1 28.0855", "mass            1 28.3", "mass            1 28.31"),
    ],
)
def test_md_setting_edges(old, inside, outside, tmp_path):
    assert grade_md(md_replace(old, inside), tmp_path / "in").passed
    assert len(failed(grade_md(md_replace(old, outside), tmp_path / "out"))) == 1


# --- si-sw-lattice --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "failing"),
    [
        # beta-tin left at the starting (high-pressure) cell, SW: box not relaxed
        (
            {"sw_betasn_a_angstrom": 4.69, "sw_betasn_c_angstrom": 2.59, "sw_dE_betasn_eV_per_atom": 1.1895},
            {"sw-betasn-a", "sw-betasn-c", "sw-de"},
        ),
        # beta-tin relaxed with c/a held fixed (iso), SW and Tersoff
        (
            {"sw_betasn_a_angstrom": 5.0016, "sw_betasn_c_angstrom": 2.7621, "sw_dE_betasn_eV_per_atom": 0.2011},
            {"sw-betasn-a", "sw-betasn-c"},
        ),
        (
            {
                "tersoff_betasn_a_angstrom": 4.8694,
                "tersoff_betasn_c_angstrom": 2.6891,
                "tersoff_dE_betasn_eV_per_atom": 0.4816,
            },
            {"tersoff-betasn-a", "tersoff-betasn-c", "tersoff-de"},
        ),
        # the Tersoff cell slid into diamond (c/a = sqrt 2 in the tetragonal setting)
        (
            {
                "tersoff_betasn_a_angstrom": 3.8404,
                "tersoff_betasn_c_angstrom": 5.4312,
                "tersoff_dE_betasn_eV_per_atom": 0.0,
            },
            {"tersoff-betasn-a", "tersoff-betasn-c", "tersoff-de"},
        ),
        # the two potentials swapped
        ({"sw_Ecoh_eV_per_atom": 4.6304, "tersoff_Ecoh_eV_per_atom": 4.3366}, {"sw-ecoh", "tersoff-ecoh"}),
        # energy difference per 4-atom cell
        ({"sw_dE_betasn_eV_per_atom": 4 * 0.199688}, {"sw-de"}),
        # primitive-cell length instead of the cubic lattice constant
        ({"sw_a0_angstrom": 5.43095 / math.sqrt(2)}, {"sw-a0"}),
    ],
)
def test_lattice_trap_fails_its_check(changes, failing, tmp_path):
    assert failed(answer_with("si-sw-lattice", tmp_path, **changes)) == failing


def test_lattice_negative_cohesive_energies_are_accepted(tmp_path):
    assert answer_with("si-sw-lattice", tmp_path, sw_Ecoh_eV_per_atom=-4.3366,
                       tersoff_Ecoh_eV_per_atom=-4.630412).passed  # fmt: skip


# --- si-sw-phonons --------------------------------------------------------------------------------------------------

EXPERIMENT = {"Gamma_optical_THz": 15.53, "X_TA_THz": 4.49, "X_LA_THz": 12.32, "X_TO_THz": 13.90}
PHONON_FREQUENCIES = {"gamma-optical", "x-ta", "x-la", "x-to"}


def test_phonons_corrected_to_experiment_fails(tmp_path):
    assert failed(answer_with("si-sw-phonons", tmp_path, **EXPERIMENT)) == PHONON_FREQUENCIES


@pytest.mark.parametrize("factor", [33.35641, 2 * math.pi], ids=["cm-1", "rad-per-ps"])
def test_phonons_wrong_frequency_unit_fails(factor, tmp_path):
    answer = {k: v * factor for k, v in reference_answer("si-sw-phonons").items() if k.endswith("_THz")}
    assert failed(answer_with("si-sw-phonons", tmp_path, **answer)) == PHONON_FREQUENCIES


@pytest.mark.parametrize(
    ("changes", "failing"),
    [
        ({"gamma_Gamma_optical": -0.7984, "gamma_X_TA": 0.0412}, {"gruneisen-gamma-optical", "gruneisen-x-ta"}),
        ({"gamma_Gamma_optical": 3 * 0.7984, "gamma_X_TA": 3 * -0.0412}, {"gruneisen-gamma-optical", "gruneisen-x-ta"}),
        ({"gamma_Gamma_optical": 0.98, "gamma_X_TA": -1.4}, {"gruneisen-gamma-optical", "gruneisen-x-ta"}),
    ],
    ids=["sign", "per-ln-a", "experiment"],
)
def test_phonons_gruneisen_trap_fails(changes, failing, tmp_path):
    assert failed(answer_with("si-sw-phonons", tmp_path, **changes)) == failing


def test_phonons_gruneisen_of_a_wider_volume_step_passes(tmp_path):
    # central differences over +-1% in a instead of +-0.5% (reproduce record)
    assert answer_with("si-sw-phonons", tmp_path, gamma_Gamma_optical=0.7985, gamma_X_TA=-0.0418).passed


def test_phonons_at_the_pbe_lattice_constant_fail(tmp_path):
    # SW phonons computed (phonopy + LAMMPS, 2x2x2, 0.01 A) at a = 5.47 A, the PBE lattice constant
    pbe = {"a0_angstrom": 5.47, "Gamma_optical_THz": 17.5288, "X_TA_THz": 6.6557, "X_LA_THz": 12.7639,
           "X_TO_THz": 15.3328}  # fmt: skip
    assert failed(answer_with("si-sw-phonons", tmp_path, **pbe)) == {"a0", "gamma-optical", "x-la", "x-to"}


# --- si-sw-kappa ----------------------------------------------------------------------------------------------------


def test_kappa_rta_and_lbte_swapped_fail(tmp_path):
    ref = reference_answer("si-sw-kappa")
    swapped = {"kappa_RTA_W_mK": ref["kappa_LBTE_W_mK"], "kappa_LBTE_W_mK": ref["kappa_RTA_W_mK"]}
    assert failed(answer_with("si-sw-kappa", tmp_path, **swapped)) == {"kappa-rta", "kappa-lbte"}


@pytest.mark.parametrize("kappa_rta", [472.29, 523.94], ids=["mesh-9", "mesh-13"])
def test_kappa_changed_mesh_fails(kappa_rta, tmp_path):
    # RTA kappa(300 K) with the same force constants on 9x9x9 and 13x13x13 meshes instead of the prescribed 11x11x11
    assert failed(answer_with("si-sw-kappa", tmp_path, kappa_RTA_W_mK=kappa_rta)) == {"kappa-rta"}


def test_kappa_measured_silicon_value_fails(tmp_path):
    assert failed(answer_with("si-sw-kappa", tmp_path, kappa_RTA_W_mK=150.0, kappa_LBTE_W_mK=150.0)) == {
        "kappa-rta", "kappa-lbte"}  # fmt: skip


@pytest.mark.parametrize(
    "tau",
    [36.357, 11.573, 72.713, 4.08],
    ids=["1/(2 Gamma)", "1/(2 pi Gamma)", "1/Gamma", "raman"],
)
def test_kappa_lifetime_convention_trap_fails(tau, tmp_path):
    # phono3py's gamma is a half width in THz of ordinary frequency: tau = 1/(4 pi gamma) only
    assert failed(answer_with("si-sw-kappa", tmp_path, tau_Gamma_optical_300K_ps=tau)) == {"tau-gamma-optical"}


@pytest.mark.slow
def test_kappa_oracle_rta_value_is_the_lbte_runs_rta(kappa_oracle):
    answer = json.loads((kappa_oracle / "answer.json").read_text())
    assert 1.15 < answer["kappa_LBTE_W_mK"] / answer["kappa_RTA_W_mK"] < 1.3


# --- si-sw-kappa-analysis -------------------------------------------------------------------------------------------

KAPPA_FILE = task_dir("si-sw-kappa-analysis") / "workspace" / "kappa-m191919.hdf5"
KEYS = ("temperature", "kappa", "mode_kappa", "gamma", "group_velocity", "weight", "heat_capacity", "gv_by_gv")


def kappa_file() -> dict[str, np.ndarray]:
    with h5py.File(KAPPA_FILE) as f:
        return {k: np.asarray(f[k][()]) for k in KEYS}


def at_300(data: dict[str, np.ndarray]) -> int:
    return int(np.flatnonzero(data["temperature"] == 300)[0])


def mfp_and_modes(data: dict[str, np.ndarray], lifetime: Any) -> tuple[np.ndarray, np.ndarray]:
    """Mean free paths (A) with tau = lifetime(gamma), and the xx mode conductivities, at 300 K."""
    i = at_300(data)
    g = data["gamma"][i]
    tau = np.where(g > 0, lifetime(np.where(g > 0, g, 1.0)), 0.0)
    return np.linalg.norm(data["group_velocity"], axis=-1) * tau, data["mode_kappa"][i, :, :, 0]


def test_analysis_file_layout_is_what_the_prompt_says():
    data = kappa_file()
    temps = data["temperature"]
    assert list(temps) == list(np.arange(100.0, 1001.0, 50.0))
    assert data["kappa"].shape == (len(temps), 6)
    i = at_300(data)
    assert np.isclose(data["mode_kappa"][i, ..., 0].sum() / data["weight"].sum(), data["kappa"][i, 0])
    assert data["weight"].sum() == 19**3
    g = data["gamma"][i]
    assert np.all(data["mode_kappa"][i][g <= 0] == 0)  # the acoustic modes at Gamma carry nothing


def test_analysis_reference_is_the_file_read_as_the_prompt_says():
    data = kappa_file()
    mfp, modes = mfp_and_modes(data, lambda g: 1 / (4 * np.pi * g))
    ref = reference_of("si-sw-kappa-analysis").values
    n = data["weight"].sum()
    assert ref["fraction_mfp_above_1um_300K"].value == pytest.approx(modes[mfp > 1e4].sum() / modes.sum(), abs=1e-6)
    assert ref["kappa_300K_boundary_100nm_W_mK"].value == pytest.approx((modes / (1 + mfp / 1e3)).sum() / n, rel=1e-6)


@pytest.mark.parametrize("shift", [-1, 1])
def test_analysis_temperature_index_off_by_one_fails(shift, tmp_path):
    data = kappa_file()
    wrong = float(data["kappa"][at_300(data) + shift, 0])
    assert failed(answer_with("si-sw-kappa-analysis", tmp_path, kappa_300K_W_mK=wrong)) == {"kappa-300k"}


def test_analysis_off_diagonal_component_and_plain_sum_fail(tmp_path):
    data = kappa_file()
    i = at_300(data)
    assert failed(answer_with("si-sw-kappa-analysis", tmp_path / "yz", kappa_300K_W_mK=float(data["kappa"][i, 3]))) == {
        "kappa-300k"}  # fmt: skip
    plain = float(data["mode_kappa"][i, ..., 0].sum())
    assert failed(answer_with("si-sw-kappa-analysis", tmp_path / "sum", kappa_300K_W_mK=plain)) == {"kappa-300k"}


@pytest.mark.parametrize(
    "lifetime",
    [lambda g: 1 / (2 * g), lambda g: 1 / (2 * np.pi * g)],
    ids=["1/(2 gamma)", "1/(2 pi gamma)"],
)
def test_analysis_lifetime_convention_trap_fails(lifetime, tmp_path):
    data = kappa_file()
    mfp, modes = mfp_and_modes(data, lifetime)
    wrong = {"fraction_mfp_above_1um_300K": float(modes[mfp > 1e4].sum() / modes.sum()),
             "kappa_300K_boundary_100nm_W_mK": float((modes / (1 + mfp / 1e3)).sum() / data["weight"].sum())}
    assert failed(answer_with("si-sw-kappa-analysis", tmp_path, **wrong)) == {"fraction-mfp", "kappa-boundary"}


def test_analysis_boundary_with_vx_or_half_rate_fails(tmp_path):
    data = kappa_file()
    i = at_300(data)
    g = data["gamma"][i]
    tau = np.where(g > 0, 1 / (4 * np.pi * np.where(g > 0, g, 1.0)), 0.0)
    modes, n = data["mode_kappa"][i, :, :, 0], data["weight"].sum()
    vx = np.abs(data["group_velocity"][:, :, 0])
    with_vx = float((modes / (1 + vx * tau / 1e3)).sum() / n)
    mfp = np.linalg.norm(data["group_velocity"], axis=-1) * tau
    half = float((modes / (1 + mfp / 2e3)).sum() / n)
    for value in (with_vx, half, float(data["kappa"][i, 0])):
        assert failed(answer_with("si-sw-kappa-analysis", tmp_path / f"{value:.0f}",
                                  kappa_300K_boundary_100nm_W_mK=value)) == {"kappa-boundary"}  # fmt: skip


def test_analysis_mode_kappa_weighted_twice_fails(tmp_path):
    data = kappa_file()
    mfp, modes = mfp_and_modes(data, lambda g: 1 / (4 * np.pi * g))
    weighted = modes * data["weight"][:, None]
    wrong = float(weighted[mfp > 1e4].sum() / weighted.sum())
    assert failed(answer_with("si-sw-kappa-analysis", tmp_path, fraction_mfp_above_1um_300K=wrong)) == {
        "fraction-mfp"}  # fmt: skip


@pytest.mark.parametrize(("changes", "failing"), [
    ({"fraction_mfp_above_1um_300K": 50.0}, {"fraction-mfp"}),  # a percentage
    ({"exponent_n": 1.0}, {"exponent"}),  # the classical-limit guess
    ({"exponent_n": -1.12}, {"exponent"}),  # the slope's sign
])  # fmt: skip
def test_analysis_trap_fails_its_check(changes, failing, tmp_path):
    assert failed(answer_with("si-sw-kappa-analysis", tmp_path, **changes)) == failing


def test_analysis_two_point_exponent_passes(tmp_path):
    data = kappa_file()
    temps, kxx = data["temperature"], data["kappa"][:, 0]
    n = -math.log(kxx[temps == 800][0] / kxx[temps == 300][0]) / math.log(800 / 300)
    assert answer_with("si-sw-kappa-analysis", tmp_path, exponent_n=n).passed


# --- si-sw-transport-workflow --------------------------------------------------------------------------------------

WORKFLOW = "si-sw-transport-workflow"


def load_workflow() -> tuple[WorkflowSpec, GraderSpec, Reference]:
    spec = spec_of(STUDY, WORKFLOW)
    assert isinstance(spec, WorkflowSpec)
    return spec, grader_of(WORKFLOW), reference_of(WORKFLOW)


def grade_workflow(submission: Path) -> GradeReport:
    return grade_dir(WORKFLOW, submission)


def workflow_reference_answer() -> dict[str, Any]:
    _, grader, ref = load_workflow()
    return {c.target.field: ref.values[c.reference].value for c in grader.checks if c.type == "numeric.scalar"}


def test_workflow_files_are_consistent():
    spec, grader, ref = load_workflow()
    assert spec.id == grader.task == ref.task == WORKFLOW
    assert spec.steps == ["si-sw-lattice", "si-sw-phonons", "si-sw-kappa"]
    for rel in spec.workspace:
        assert (task_dir(WORKFLOW) / "workspace" / rel).is_file()
    for check in grader.checks:
        assert check.target.file in spec.answer_files
    for name in ("solution/solve.sh", "reproduce/reproduce.sh", "QC.md"):
        assert (ROOT / "references" / WORKFLOW / name).is_file()
    assert_reduced_prompt_drops_only_the_method(WORKFLOW)


def test_workflow_reference_values_are_the_steps_values():
    _, _, ref = load_workflow()
    steps = {t: load(t)[2].values for t in ("si-sw-lattice", "si-sw-phonons", "si-sw-kappa")}
    for key, value in ref.values.items():
        assert [s[key].value for s in steps.values() if key in s] == [value.value], key


def test_workflow_empty_submission_fails(tmp_path):
    report = grade_workflow(tmp_path)
    assert not report.passed and report.score == 0


def test_workflow_tolerance_edges(tmp_path):
    _, grader, _ = load_workflow()
    checks = [c for c in grader.checks if c.type == "numeric.scalar"]
    assert_tolerance_edges(WORKFLOW, workflow_reference_answer(), tmp_path, checks=checks)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("lmp") is None, reason="LAMMPS (lmp) not installed")
def test_workflow_oracle_passes(tmp_path):
    pytest.importorskip("phono3py")
    report = grade_workflow(run_oracle(WORKFLOW, tmp_path, timeout_s=900))
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]
