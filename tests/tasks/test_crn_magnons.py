"""Study crn-magnons (magnons of antiferromagnetic CrN): traps, physics checks of the references, oracles.

Tasks: square-afm-spin-waves (run-and-analyze, the method check), crn-ldau-vasp-inputs (input preparation, VASP),
crn-relaxed-structure (output analysis of an interrupted pw.x vc-relax), crn-wannier-tb2j-inputs (input
preparation, VASP + Wannier90 + TB2J), crn-monte-carlo-deck (input preparation, VAMPIRE), and the workflow
crn-magnons-workflow (the last three chained), crn-spin-waves (run-and-analyze, linear spin waves of CrN
with model exchange constants) and crn-neel-estimates (run-and-analyze, mean-field and RPA Neel temperatures of
the same model). Oracles run at most once per module; the generic gates (fairness
cases, recall, tolerance edges) are in test_gates.py.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from cmb.catalog import stage_bundle, validate
from tests.tasks._helpers import (
    CATALOG,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    assert_tolerance_edges,
    edited_oracle_inputs,
    entry,
    failed,
    grade_answer,
    grade_dir,
    read_answer,
    reference_answer,
)

STUDY = "crn-magnons"
SINGLE = [
    "square-afm-spin-waves",
    "crn-ldau-vasp-inputs",
    "crn-relaxed-structure",
    "crn-wannier-tb2j-inputs",
    "crn-monte-carlo-deck",
    "crn-spin-waves",
    "crn-neel-estimates",
]
WORKFLOW = "crn-magnons-workflow"
JSON_TASKS = ["square-afm-spin-waves", "crn-relaxed-structure", "crn-spin-waves", "crn-neel-estimates"]
INPUT_TASKS = ["crn-ldau-vasp-inputs", "crn-wannier-tb2j-inputs", "crn-monte-carlo-deck"]
PRESENT = [t for t in SINGLE if t in CATALOG.entries]


def copy_submission(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, dirs_exist_ok=True)
    return dest


# ------------------------------------------------------------------------------------------------ every task


def test_study_validates_without_problems():
    ids = [*PRESENT, *([WORKFLOW] if WORKFLOW in CATALOG.entries else [])]
    problems = validate(CATALOG, ids)
    assert problems == [], "\n".join(map(str, problems))


def test_study_graph_holds_every_task_and_its_upstream():
    study = CATALOG.studies[STUDY].spec
    listed = {t for s in study.steps for t in s.tasks}
    assert set(PRESENT) <= listed
    assert study.upstream("spin-waves") == {"exchange", "dft-ground-state", "lswt-method-check"}
    assert study.upstream("neel-temperature") == {"exchange", "dft-ground-state"}
    assert study.upstream("mean-field-neel") == {"exchange", "dft-ground-state"}


@pytest.mark.parametrize("task", PRESENT)
def test_files_are_consistent_and_reduced_prompt_drops_only_the_method(task):
    assert entry(task).has_reduced
    assert_entry_is_consistent(task, STUDY)


@pytest.mark.parametrize("task", PRESENT)
def test_empty_submission_fails(task, tmp_path):
    assert_empty_submission_fails(task, tmp_path)


@pytest.mark.parametrize("task", PRESENT)
def test_staged_workspace_alone_fails(task, tmp_path):
    e = entry(task)
    stage_bundle(e, e.conditions()[0], tmp_path)
    assert not grade_dir(task, tmp_path).passed


def _merged(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        out[k] = _merged(out.get(k, {}), v) if isinstance(v, dict) else v
    return out


@pytest.mark.parametrize("task", [t for t in JSON_TASKS if t in CATALOG.entries])
def test_reference_values_pass(task, oracle_dirs, tmp_path):
    """The reference values of every numeric check, in the oracle's answer (counts and booleans kept), pass."""
    answer = _merged(read_answer(oracle_dirs[task]), reference_answer(task))
    assert grade_answer(task, answer, tmp_path).passed


@pytest.mark.parametrize("task", [*PRESENT, WORKFLOW])
def test_oracle_passes(task, oracle_dirs):
    report = grade_dir(task, oracle_dirs[task])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


# ------------------------------------------------------------------------------------------------ square-afm-spin-waves

SQ = "square-afm-spin-waves"


def test_square_afm_tolerance_edges_around_the_oracle_answer(oracle_dirs, tmp_path):
    base = read_answer(oracle_dirs[SQ])
    assert_tolerance_edges(SQ, base, tmp_path)


def test_square_afm_bond_double_counting_fails(oracle_dirs, tmp_path):
    base = read_answer(oracle_dirs[SQ])
    answer = copy.deepcopy(base)
    for key in ("J1_meV", "J2_meV", "spin_wave_velocity_meV_A", "omega_pi_0_meV", "omega_pi2_pi2_meV"):
        answer[key] = base[key] / 2  # every bond counted from both ends: J and the magnon energies halve
    assert failed(grade_answer(SQ, answer, tmp_path)) == {"j1", "j2", "velocity", "omega-pi-0", "omega-pi2-pi2"}


def test_square_afm_unconverged_zone_sum_fails(oracle_dirs, tmp_path):
    base = read_answer(oracle_dirs[SQ])
    j1, j2, n = base["J1_meV"], base["J2_meV"], 64
    k = -np.pi + (np.arange(n) + 0.5) * 2 * np.pi / n
    kx, ky = np.meshgrid(k, k, indexing="ij")
    a = 4 * (j1 - j2 * (1 - np.cos(kx) * np.cos(ky)))
    b = 4 * j1 * (np.cos(kx) + np.cos(ky)) / 2
    ds = float(np.mean(0.5 * (a / np.sqrt(a * a - b * b) - 1)))
    answer = {**base, "delta_S": ds, "ordered_moment_muB": 2 * (1 - ds)}
    assert failed(grade_answer(SQ, answer, tmp_path)) == {"delta-s", "ordered-moment"}


def test_square_afm_j1_only_fit_fails(oracle_dirs, tmp_path):
    base = read_answer(oracle_dirs[SQ])
    j1 = base["J1_meV"]
    answer = {
        **base,
        "J2_meV": 0.0,
        "omega_pi_0_meV": 4 * j1,
        "omega_pi2_pi2_meV": 4 * j1,
        "spin_wave_velocity_meV_A": 2 * np.sqrt(2) * j1 * 4.0,
    }
    assert failed(grade_answer(SQ, answer, tmp_path)) == {"j2", "omega-pi-0", "omega-pi2-pi2", "velocity"}


# ------------------------------------------------------------------------------------------------ crn-ldau-vasp-inputs

VASP = "crn-ldau-vasp-inputs"


def test_vasp_reference_input_set_passes(tmp_path):
    for name in ("INCAR", "KPOINTS", "POSCAR", "POTCAR.spec"):
        shutil.copyfile(entry(VASP).reference_dir / name, tmp_path / name)
    assert grade_dir(VASP, tmp_path).passed


@pytest.mark.parametrize(
    ("name", "set_", "drop", "expected"),
    [
        ("LASPH left at its default (the seed's trap)", {}, ("LASPH",), {"lasph"}),
        ("AFM-[110]1 in the same cell", {"MAGMOM": "3.0 -3.0 3.0 -3.0 0.0 0.0 0.0 0.0"}, (), {"structure-and-order"}),
        ("ferromagnetic start", {"MAGMOM": "3.0 3.0 3.0 3.0 0.0 0.0 0.0 0.0"}, (), {"structure-and-order"}),
        ("LMAXMIX default", {}, ("LMAXMIX",), {"lmaxmix"}),
        ("fixed cell", {"ISIF": "2"}, (), {"isif"}),
        ("tetrahedron smearing in a relaxation", {"ISMEAR": "-5"}, (), {"ismear"}),
    ],
)
def test_vasp_trap_fails_its_check(name, set_, drop, expected, oracle_dirs, tmp_path):
    report = edited_oracle_inputs(VASP, oracle_dirs, tmp_path, set_=set_, drop=drop)
    assert failed(report) == expected, (name, [c.message for c in report.checks if not c.passed])


def test_vasp_four_atom_cell_cannot_hold_the_double_layer_order(oracle_dirs, tmp_path):
    tetragonal = (
        "CrN 4-atom tetragonal\n1.0\n2.934493 0 0\n0 2.934493 0\n0 0 4.15\nCr N\n2 2\nDirect\n"
        "0 0 0\n0.5 0.5 0.5\n0.5 0.5 0\n0 0 0.5\n"
    )
    report = edited_oracle_inputs(
        VASP, oracle_dirs, tmp_path, set_={"MAGMOM": "3.0 -3.0 0.0 0.0"}, files={"POSCAR": tetragonal}
    )
    assert "structure-and-order" in failed(report)


# ------------------------------------------------------------------------------------------------ crn-relaxed-structure

RELAX = "crn-relaxed-structure"


def _load(path: Path, name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_relax_reference_script_agrees_with_the_committed_reference():
    """reproduce/reference_values.py (line-by-line parse, ASE neighbours) on the staged file gives reference.yaml."""
    mod = _load(entry(RELAX).reference_dir / "reproduce" / "reference_values.py", "crn_relax_ref")
    cycles, geoms, thr = mod.parse(str(entry(RELAX).dir / "workspace" / "relax.out"))
    ref = entry(RELAX).reference().values
    assert len(cycles) == ref["completed_scf_cycles"].value == 6
    assert len(geoms) == 6  # one geometry block after each completed cycle; the seventh cycle has no energy
    last = cycles[-1]
    assert last["pressure"] == pytest.approx(ref["pressure_kbar"].value)
    assert abs(last["pressure"]) > thr["press"] and last["df"] > thr["force"]  # not converged
    assert last["energy_Ry"] * 13.605693122994 / 4 == pytest.approx(ref["energy_per_fu_eV"].value, abs=1e-5)


def test_relax_physics_of_the_latest_cell():
    """AFM-[110]2: antiparallel first-shell bonds shorter than parallel ones, a/(2b) < 1, c near the cubic a0."""
    ref = {k: v.value for k, v in entry(RELAX).reference().values.items()}
    assert ref["NN_antiparallel_distance_angstrom"] < 0.97 * ref["NN_parallel_distance_angstrom"]
    assert ref["a_angstrom"] / (2 * ref["b_angstrom"]) < 0.98
    a0 = (4 * ref["volume_per_fu_A3"]) ** (1 / 3)
    assert abs(ref["c_angstrom"] / a0 - 1) < 0.01
    assert ref["NN_parallel_count"] + ref["NN_antiparallel_count"] == 12
    assert ref["NNN_parallel_count"] + ref["NNN_antiparallel_count"] == 6


def test_relax_starting_cell_and_previous_block_fail(oracle_dirs, tmp_path):
    base = read_answer(oracle_dirs[RELAX])
    start = {**base, "a_angstrom": 5.88313, "b_angstrom": 2.94156, "c_angstrom": 4.16, "volume_per_fu_A3": 17.9978}
    assert {"a", "b", "c", "volume"} <= failed(grade_answer(RELAX, start, tmp_path / "start"))
    prev = {**base, "a_angstrom": 5.82924, "b_angstrom": 3.00027, "c_angstrom": 4.17833, "volume_per_fu_A3": 18.2691}
    assert failed(grade_answer(RELAX, prev, tmp_path / "prev")) == {"a", "b", "c", "volume"}
    assert failed(grade_answer(RELAX, {**base, "converged": True}, tmp_path / "conv")) == {"converged"}


def test_relax_tolerance_edges_around_the_oracle_answer(oracle_dirs, tmp_path):
    assert_tolerance_edges(RELAX, read_answer(oracle_dirs[RELAX]), tmp_path)


# ---------------------------------------------------------------------------------------- crn-wannier-tb2j-inputs

WANN = "crn-wannier-tb2j-inputs"


def test_wannier_staged_poscar_is_the_latest_geometry_of_the_relaxation():
    """The staged POSCAR is make_poscar.py of crn-relaxed-structure's relax.out (the studies' steps connect)."""
    import contextlib
    import io

    mod = _load(entry(WANN).reference_dir / "reproduce" / "make_poscar.py", "crn_make_poscar")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        mod.main(str(entry(RELAX).dir / "workspace" / "relax.out"))
    assert buf.getvalue() == (entry(WANN).dir / "workspace" / "POSCAR").read_text()


@pytest.mark.parametrize(
    ("name", "tb2j", "expected"),
    [
        (
            "TB2J's default prefixes (the seed's trap)",
            {"prefix_up": "wannier90.up", "prefix_down": "wannier90.dn"},
            {"prefix-up", "prefix-down"},
        ),
        (
            "spin channels swapped",
            {"prefix_up": "wannier90.2", "prefix_down": "wannier90.1"},
            {"prefix-up", "prefix-down"},
        ),
        ("empty states in the integral", {"emax": 1.0}, {"emax"}),
    ],
)
def test_wannier_tb2j_traps_fail(name, tb2j, expected, oracle_dirs, tmp_path):
    sub = copy_submission(oracle_dirs[WANN], tmp_path / "sub")
    args = json.loads((sub / "tb2j.json").read_text())
    args.update(tb2j)
    (sub / "tb2j.json").write_text(json.dumps(args))
    assert failed(grade_dir(WANN, sub)) == expected, name


@pytest.mark.parametrize(
    ("name", "set_", "drop", "expected"),
    [
        ("symmetry left on", {}, ("ISYM",), {"isym"}),
        ("default band count", {}, ("NBANDS",), {"nbands"}),
        ("both channels counted", {"NUM_WANN": "64"}, (), {"num-wann"}),
        ("single-layer order", {"MAGMOM": "3.0 -3.0 3.0 -3.0 0.0 0.0 0.0 0.0"}, (), {"structure-and-order"}),
    ],
)
def test_wannier_incar_traps_fail(name, set_, drop, expected, oracle_dirs, tmp_path):
    report = edited_oracle_inputs(WANN, oracle_dirs, tmp_path, set_=set_, drop=drop)
    assert failed(report) == expected, (name, [c.message for c in report.checks if not c.passed])


def test_wannier_unrelaxed_cell_fails(oracle_dirs, tmp_path):
    ideal = (entry(VASP).reference_dir / "POSCAR").read_text()
    report = edited_oracle_inputs(WANN, oracle_dirs, tmp_path, files={"POSCAR": ideal})
    assert failed(report) == {"structure-and-order"}


# ------------------------------------------------------------------------------------------------ crn-monte-carlo-deck

MC = "crn-monte-carlo-deck"
MEV = 1.602176487e-22


def _ucf_rows(sub: Path) -> tuple[list[str], list[list[str]]]:
    """The oracle's unit-cell file split into its header and its interaction rows (id i j dx dy dz J)."""
    lines = (sub / "crn.ucf").read_text().splitlines()
    start = next(k for k, ln in enumerate(lines) if ln.strip().endswith("isotropic")) + 1
    return lines[:start], [ln.split() for ln in lines[start:]]


def _write_ucf(sub: Path, head: list[str], rows: list[list[str]]) -> None:
    (sub / "crn.ucf").write_text("\n".join([*head, *(" ".join(r) for r in rows)]) + "\n")


def test_mc_staged_poscar_is_the_exchange_steps_cell():
    """The Monte Carlo step starts from the same relaxed cell as the exchange step (the study's steps connect)."""
    assert (entry(MC).dir / "workspace" / "POSCAR").read_text() == (
        entry(WANN).dir / "workspace" / "POSCAR"
    ).read_text()


def test_mc_reproduce_script_gives_the_committed_reference(tmp_path):
    import subprocess

    script = entry(MC).reference_dir / "reproduce" / "reproduce.sh"
    subprocess.run(["bash", str(script), str(tmp_path)], check=True, capture_output=True, text=True)
    values = json.loads((tmp_path / "values.json").read_text())
    ref = entry(MC).reference().values
    assert values["neighbour_counts"] == [6, 6, 2, 4]
    assert values["exchange_sums_J"] == pytest.approx(ref["exchange_sums_J"].value, rel=1e-9)
    assert values["cr_cell_lengths_A"] == pytest.approx(ref["cr_cell_lengths_A"].value, rel=1e-9)
    # VAMPIRE's constant is twice TB2J's: the nearest antiparallel class sums to 6 x 2 x (-3.2) meV
    assert ref["exchange_sums_J"].value[1] == pytest.approx(6 * 2 * -3.2 * MEV)


@pytest.mark.parametrize(("scale", "fails"), [(1.019, False), (0.981, False), (1.021, True), (0.979, True)])
def test_mc_exchange_tolerance_edges(scale, fails, oracle_dirs, tmp_path):
    sub = copy_submission(oracle_dirs[MC], tmp_path / "sub")
    head, rows = _ucf_rows(sub)
    _write_ucf(sub, head, [[*r[:6], f"{float(r[6]) * scale:.8e}"] for r in rows])
    assert failed(grade_dir(MC, sub)) == ({"exchange"} if fails else set())


@pytest.mark.parametrize(("moment", "fails"), [(2.47 * 1.019, False), (2.47 * 0.981, False), (2.47 * 1.021, True)])
def test_mc_moment_tolerance_edges(moment, fails, oracle_dirs, tmp_path):
    sub = copy_submission(oracle_dirs[MC], tmp_path / "sub")
    mat = (sub / "crn.mat").read_text().replace("= 2.47 !muB", f"= {moment:.6f} !muB")
    (sub / "crn.mat").write_text(mat)
    assert failed(grade_dir(MC, sub)) == ({"moment"} if fails else set())


@pytest.mark.parametrize(
    ("setting", "oracle_value", "at_bound", "outside", "check"),
    [
        ("sim:maximum-temperature", "600.0", "600.0", "599.0", "t-max"),
        ("sim:minimum-temperature", "0.0", "10.0", "10.5", "t-min"),
        ("sim:temperature-increment", "5.0", "10.0", "10.5", "t-step"),
        ("sim:equilibration-time-steps", "10000", "5000", "4999", "equilibration"),
        ("sim:loop-time-steps", "20000", "10000", "9999", "averaging"),
        ("dimensions:system-size-y", "7.0 !nm", "60.0 !A", "59.9 !A", "size-y"),
    ],
)
def test_mc_bounds_hold_at_the_bound_and_fail_just_outside(
    setting, oracle_value, at_bound, outside, check, oracle_dirs, tmp_path
):
    sub = copy_submission(oracle_dirs[MC], tmp_path / "sub")
    text = (sub / "input").read_text()
    old = f"{setting} = {oracle_value}"
    assert old in text
    (sub / "input").write_text(text.replace(old, f"{setting} = {outside}"))
    assert failed(grade_dir(MC, sub)) == {check}
    (sub / "input").write_text(text.replace(old, f"{setting} = {at_bound}"))
    assert failed(grade_dir(MC, sub)) == set()


def test_mc_axes_relabelled_deck_passes(oracle_dirs, tmp_path):
    """x, y, z of the cell relabelled (new x = old y, new y = old z, new z = old x), neighbour offsets with them."""
    sub = copy_submission(oracle_dirs[MC], tmp_path / "sub")
    head, rows = _ucf_rows(sub)
    perm = (1, 2, 0)
    size = head[1].split()
    head[1] = " ".join(size[p] for p in perm)
    for k, ln in enumerate(head):
        parts = ln.split()
        if len(parts) == 7 and not ln.startswith("#"):
            head[k] = " ".join([parts[0], *(parts[1 + p] for p in perm), *parts[4:]])
    _write_ucf(sub, head, [[*r[:3], *(r[3 + p] for p in perm), r[6]] for r in rows])
    assert grade_dir(MC, sub).passed


def test_mc_deck_that_keeps_the_nitrogen_fails(oracle_dirs, tmp_path):
    """N added as a third, non-magnetic material: not the four-Cr cell the prompt asks for."""
    sub = copy_submission(oracle_dirs[MC], tmp_path / "sub")
    head, rows = _ucf_rows(sub)
    k = next(k for k, ln in enumerate(head) if ln.strip() == "4 2")
    n_sites = ["0.2378036777 0.5 0.0", "0.0121963223 0.0 0.5", "0.5121962413 0.0 0.5", "0.7378037587 0.5 0.0"]
    head[k] = "8 3"
    head[k + 5 : k + 5] = [f"{4 + n} {xyz} 2 0 0" for n, xyz in enumerate(n_sites)]
    _write_ucf(sub, head, rows)
    mat = (sub / "crn.mat").read_text().replace("num-materials = 2", "num-materials = 3")
    mat += (
        "material[3]:material-name = N\nmaterial[3]:atomic-spin-moment = 0.0 !muB\nmaterial[3]:unit-cell-category = 3\n"
    )
    mat += "material[3]:non-magnetic\n"
    (sub / "crn.mat").write_text(mat)
    assert "cell" in failed(grade_dir(MC, sub))


# ------------------------------------------------------------------------------------------------ crn-spin-waves

SW = "crn-spin-waves"
SW_ENERGIES = ["omega_X_lower_meV", "omega_X_upper_meV", "omega_Z_meV", "omega_Gamma_optical_meV"]
SW_VELOCITIES = ["velocity_x_meV_A", "velocity_y_meV_A", "velocity_z_meV_A"]
SW_ALL = ["omega-x-lower", "omega-x-upper", "splitting-x", "omega-z", "omega-gamma-optical"]
SW_ALL += ["velocity-x", "velocity-y", "velocity-z"]


def _sw_reference_module():
    return _load(entry(SW).reference_dir / "reproduce" / "reference_lswt.py", "crn_sw_reference")


def _sw_scaled(base: dict, factor: float) -> dict:
    """Every energy, the splitting and the velocities scaled by one factor (a convention error on J/S)."""
    return {**{k: base[k] * factor for k in [*SW_ENERGIES, *SW_VELOCITIES, "splitting_X_THz"]}}


def test_sw_staged_poscar_is_the_monte_carlo_decks_cell():
    """The spin-wave step and the Monte Carlo step use the same relaxed cell and the same model constants."""
    assert (entry(SW).dir / "workspace" / "POSCAR").read_text() == (entry(MC).dir / "workspace" / "POSCAR").read_text()
    mod = _sw_reference_module()
    for name in ("prompt.full.md", "prompt.reduced.md"):
        text = (entry(SW).dir / name).read_text()
        for j in mod.J_TB2J.values():
            assert f"{j:+.1f} meV".replace("-", "\u2212") in text


def test_sw_reference_physics(tmp_path):
    """Goldstone modes at Gamma, doubly degenerate pairs (up and down sublattices related by a half translation),
    no soft mode anywhere on a grid, energies scale as J/S, and the committed values come out of the script."""
    mod = _sw_reference_module()
    poscar = str(entry(SW).dir / "workspace" / "POSCAR")
    cell, frac = mod.read_poscar(poscar)
    pairs = mod.bonds(cell, frac)
    assert len(pairs) == 4 * 18
    s = mod.MOMENT / 2
    g = 2 * np.pi * np.linalg.inv(cell).T
    w0 = mod.energies(pairs, s, 1e-7 * g[0])
    assert w0[:2] == pytest.approx([0, 0], abs=1e-3)
    rng = np.random.default_rng(3)
    for q in rng.random((12, 3)):
        w = mod.energies(pairs, s, q @ g)
        assert len(w) == 4 and min(w) > 0
        assert w[0] == pytest.approx(w[1], abs=1e-8) and w[2] == pytest.approx(w[3], abs=1e-8)
    values = mod.values(poscar)
    ref = entry(SW).reference().values
    for key in ref:
        assert values[key] == pytest.approx(ref[key].value, rel=2e-6)
    halved = mod.values(poscar, s=2 * s)
    assert halved["omega_X_upper_meV"] == pytest.approx(values["omega_X_upper_meV"] / 2, rel=1e-9)


def test_sw_tolerance_edges_around_the_oracle_answer(oracle_dirs, tmp_path):
    assert_tolerance_edges(SW, read_answer(oracle_dirs[SW]), tmp_path)


@pytest.mark.parametrize(
    ("trap", "factor"),
    [("pairs counted once", 0.5), ("S(S+1) mapping", 1.235 / 2.235), ("S = 3/2", 1.235 / 1.5), ("no 1/S^2", 1.235**2)],
)
def test_sw_convention_errors_fail_every_check(trap, factor, oracle_dirs, tmp_path):
    base = read_answer(oracle_dirs[SW])
    assert failed(grade_answer(SW, _sw_scaled(base, factor), tmp_path)) == set(SW_ALL), trap


def test_sw_splitting_unit_errors_fail(oracle_dirs, tmp_path):
    base = read_answer(oracle_dirs[SW])
    mev = base["omega_X_upper_meV"] - base["omega_X_lower_meV"]
    assert base["splitting_X_THz"] == pytest.approx(mev * 0.2417989, rel=1e-6)
    for wrong in (mev, base["splitting_X_THz"] * 2 * np.pi):
        assert failed(grade_answer(SW, {**base, "splitting_X_THz": wrong}, tmp_path)) == {"splitting-x"}


# ------------------------------------------------------------------------------------------------ crn-neel-estimates

NE = "crn-neel-estimates"
NE_MF = ["T_MF_afm2_K", "T_MF_fm_K", "T_MF_afm1_K"]
NE_ALL = {"t-mf-afm2", "t-rpa-afm2", "t-mf-fm", "t-mf-afm1"}


def _ne_reference_module():
    return _load(entry(NE).reference_dir / "reproduce" / "reference_neel.py", "crn_ne_reference")


def test_ne_same_cell_and_constants_as_the_spin_waves():
    """The Neel estimates use the spin-wave step's cell and the same four model constants in both prompts."""
    assert (entry(NE).dir / "workspace" / "POSCAR").read_text() == (entry(SW).dir / "workspace" / "POSCAR").read_text()
    mod = _ne_reference_module()
    assert mod.J_MODEL == _sw_reference_module().J_TB2J
    for name in ("prompt.full.md", "prompt.reduced.md"):
        text = (entry(NE).dir / name).read_text()
        for j in mod.J_MODEL.values():
            assert f"{j:+.1f} meV".replace("-", "\u2212") in text
        assert "S(S+1)/3" in text and "S\u00b2 \U0001d4a5_p / 3" in text  # the graded classical and quantum forms


def test_ne_reference_physics():
    """Each order is an eigenvector of J(0); AFM-[110]2 has the largest eigenvalue over the zone; T_MF does not
    depend on S, the RPA scales as (S+1)/S, the classical RPA lies below the mean field, and the committed
    values come out of the script (the RPA on smaller grids, extrapolated, to 0.1%)."""
    mod = _ne_reference_module()
    poscar = str(entry(NE).dir / "workspace" / "POSCAR")
    cell, frac = mod.read_poscar(poscar)
    blist = mod.bonds(cell, frac)
    assert len(blist) == 4 * 18
    j0 = mod.coupling_q(blist, np.zeros((1, 3)), 1.0)[0].real
    assert np.linalg.eigvalsh(j0) == pytest.approx([-19.6, -1.2, -0.4, 30.8], abs=1e-9)
    g = 2 * np.pi * np.linalg.inv(cell).T
    f = np.arange(6) / 6
    qs = np.array([[a, b, c] for a in f for b in f for c in f]) @ g
    assert np.linalg.eigvalsh(mod.coupling_q(blist, qs, 1.0)).max() == pytest.approx(30.8, abs=1e-9)
    v = mod.values(poscar, n_pair=(16, 32))
    ref = entry(NE).reference().values
    for key in NE_MF:
        assert v[key] == pytest.approx(ref[key].value, abs=1e-3)
    assert v["T_RPA_afm2_K"] == pytest.approx(ref["T_RPA_afm2_K"].value, rel=1e-3)
    s2 = mod.values(poscar, s=2 * mod.S, n_pair=(16, 32))
    assert s2["T_MF_afm2_K"] == pytest.approx(v["T_MF_afm2_K"], rel=1e-12)
    ratio = (2 * mod.S + 1) / (2 * mod.S) / ((mod.S + 1) / mod.S)
    assert s2["T_RPA_afm2_K"] / v["T_RPA_afm2_K"] == pytest.approx(ratio, rel=1e-9)
    assert v["T_RPA_afm2_K"] * mod.S / (mod.S + 1) < v["T_MF_afm2_K"]


def test_ne_tolerance_edges_around_the_oracle_answer(oracle_dirs, tmp_path):
    assert_tolerance_edges(NE, read_answer(oracle_dirs[NE]), tmp_path)


@pytest.mark.parametrize(("trap", "factor"), [("pairs counted once", 0.5), ("Ising 1/2", 1.5), ("no 1/S^2", 1.235**2)])
def test_ne_convention_errors_fail_every_check(trap, factor, oracle_dirs, tmp_path):
    base = read_answer(oracle_dirs[NE])
    assert failed(grade_answer(NE, {k: base[k] * factor for k in base}, tmp_path)) == NE_ALL, trap


def test_ne_spin_length_forms_are_graded_as_stated(oracle_dirs, tmp_path):
    """S(S+1) in the classical mean field fails the three mean-field checks; S^2 in the quantum RPA fails it."""
    base = read_answer(oracle_dirs[NE])
    r = 2.235 / 1.235
    quantum_mf = {**base, **{k: base[k] * r for k in NE_MF}}
    assert failed(grade_answer(NE, quantum_mf, tmp_path)) == {"t-mf-afm2", "t-mf-fm", "t-mf-afm1"}
    classical_rpa = {**base, "T_RPA_afm2_K": base["T_RPA_afm2_K"] / r}
    assert failed(grade_answer(NE, classical_rpa, tmp_path)) == {"t-rpa-afm2"}


def test_ne_signs_and_unconverged_grid_fail(oracle_dirs, tmp_path):
    base = read_answer(oracle_dirs[NE])
    assert base["T_MF_fm_K"] < 0 and base["T_MF_afm1_K"] < 0 < base["T_MF_afm2_K"]
    for key, check in (("T_MF_fm_K", "t-mf-fm"), ("T_MF_afm1_K", "t-mf-afm1")):
        assert failed(grade_answer(NE, {**base, key: -base[key]}, tmp_path)) == {check}
    coarse = {**base, "T_RPA_afm2_K": base["T_RPA_afm2_K"] * 1.042}  # an 8^3 grid, not extrapolated
    assert failed(grade_answer(NE, coarse, tmp_path)) == {"t-rpa-afm2"}


# ------------------------------------------------------------------------------------------------ crn-magnons-workflow


def test_workflow_poscar_is_written_from_the_relaxation(oracle_dirs):
    """No POSCAR is staged in the workflow: the oracle writes the latest geometry, the single task's staged cell."""
    assert "POSCAR" not in {Path(p).name for p in entry(WORKFLOW).spec.workspace}
    assert (oracle_dirs[WORKFLOW] / "POSCAR").read_text() == (entry(WANN).dir / "workspace" / "POSCAR").read_text()


def test_workflow_previous_geometry_poscar_fails(oracle_dirs, tmp_path):
    sub = copy_submission(oracle_dirs[WORKFLOW], tmp_path / "sub")
    cell = (sub / "POSCAR").read_text().replace("5.844859300", "5.829241037")
    (sub / "POSCAR").write_text(cell)
    assert failed(grade_dir(WORKFLOW, sub)) == {"structure-and-order"}
