"""Study magnetism (Fe and NiO magnetism): traps, tolerance edges, oracles.

Tasks: fe-pw-spin-inputs (input preparation, pw.x), fe-moment (run-and-analyze, pw.x), nio-vasp-afm-u-inputs
(input preparation, VASP), nio-u-analysis (output analysis of staged pw.x DFT+U runs) and square-afm-spin-waves
(run-and-analyze, Python). The fe-moment oracle runs pw.x and is `slow`; every oracle runs at most once per module.
"""

from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cmb.catalog import stage_bundle
from cmb.models import Condition, GradeReport
from tests.tasks import _helpers
from tests.tasks._helpers import (
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

HAS_PW = shutil.which("pw.x") is not None
needs_pw = pytest.mark.skipif(not HAS_PW, reason="Quantum ESPRESSO (pw.x) not installed")

ALL = ["fe-pw-spin-inputs", "fe-moment", "nio-vasp-afm-u-inputs", "nio-u-analysis", "square-afm-spin-waves"]
JSON_TASKS = ["fe-moment", "nio-u-analysis", "square-afm-spin-waves"]
FAST_ORACLES = ["fe-pw-spin-inputs", "nio-vasp-afm-u-inputs", "nio-u-analysis", "square-afm-spin-waves"]


def study_of(task: str) -> str:
    return _helpers.entry(task).spec.study


def copy_submission(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, dirs_exist_ok=True)
    return dest


# ------------------------------------------------------------------------------------------------ every task


@pytest.mark.parametrize("task", ALL)
def test_files_are_consistent_and_reduced_prompt_drops_only_the_method(task):
    assert_entry_is_consistent(task, study_of(task))


@pytest.mark.parametrize("task", ALL)
def test_empty_submission_fails(task, tmp_path):
    assert_empty_submission_fails(task, tmp_path)


@pytest.mark.parametrize("task", ALL)
def test_staged_workspace_alone_fails(task, tmp_path):
    e = entry(task)
    stage_bundle(e, Condition.SF, tmp_path)
    assert not grade_dir(task, tmp_path).passed


@pytest.mark.parametrize("task", FAST_ORACLES)
def test_oracle_passes(task, oracle_dirs):
    report = grade_dir(task, oracle_dirs[task])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


@pytest.mark.parametrize("task", JSON_TASKS)
def test_reference_values_pass(task, tmp_path):
    assert grade_answer(task, reference_answer(task), tmp_path).passed


@pytest.mark.parametrize("task", JSON_TASKS)
def test_tolerance_edges_around_the_reference(task, tmp_path):
    assert_tolerance_edges(task, reference_answer(task), tmp_path)


@pytest.mark.parametrize("task", ["nio-u-analysis", "square-afm-spin-waves"])
def test_tolerance_edges_around_the_oracle_answer(task, oracle_dirs, tmp_path):
    """Built from the oracle's own answer: moving one field just outside fails that check alone."""
    base = read_answer(oracle_dirs[task])
    assert grade_answer(task, base, tmp_path / "base").passed
    assert_tolerance_edges(task, base, tmp_path)


# ------------------------------------------------------------------------------------------------ fe-pw-spin-inputs

FE = "fe-pw-spin-inputs"


def fe_input(oracle_dirs: dict[str, Path], tmp_path: Path, edit: Any) -> GradeReport:
    sub = copy_submission(oracle_dirs[FE], tmp_path / "sub")
    text = (sub / "pw.in").read_text()
    new = edit(text)
    assert new != text, "the edit changed nothing"
    (sub / "pw.in").write_text(new)
    return grade_dir(FE, sub)


def test_fe_reference_input_passes(tmp_path):
    shutil.copyfile(entry(FE).reference_dir / "pw.in", tmp_path / "pw.in")
    assert grade_dir(FE, tmp_path).passed


@pytest.mark.parametrize(
    ("name", "edit", "expected"),
    [
        # nspin = 2 without starting_magnetization: pw.x 6.7 stops
        (
            "no-starting-magnetization",
            lambda t: re.sub(r"\n\s*starting_magnetization\(1\) = 0.4", "", t),
            {"input-readable", "starting-magnetization", "structure", "nspin"},
        ),
        (
            "starting-magnetization-zero",
            lambda t: t.replace("starting_magnetization(1) = 0.4", "starting_magnetization(1) = 0.0"),
            {"starting-magnetization", "structure"},
        ),
        (
            "non-magnetic",
            lambda t: re.sub(r"\n\s*nspin = 2\n\s*starting_magnetization\(1\) = 0.4", "", t),
            {"nspin", "starting-magnetization", "structure"},
        ),
        # metal with fixed occupations (pw.x stops: nspin = 2 with fixed occupations needs tot_magnetization)
        (
            "fixed-occupations",
            lambda t: re.sub(
                r"\n\s*occupations = 'smearing'\n\s*smearing = 'cold'\n"
                r"\s*degauss = 0.015",
                "",
                t,
            ),
            {"input-readable", "occupations", "smearing", "degauss", "nspin"},
        ),
        ("fermi-dirac", lambda t: t.replace("smearing = 'cold'", "smearing = 'fd'"), {"smearing"}),
        ("smearing-too-wide", lambda t: t.replace("degauss = 0.015", "degauss = 0.05"), {"degauss"}),
        # ultrasoft pseudopotential with the default ecutrho = 4 x ecutwfc at the minimum ecutwfc
        (
            "default-ecutrho",
            lambda t: re.sub(r"\n\s*ecutrho = 360", "", t).replace("ecutwfc = 45", "ecutwfc = 35"),
            {"ecutrho"},
        ),
        ("ecutwfc-too-low", lambda t: t.replace("ecutwfc = 45", "ecutwfc = 30"), {"ecutwfc"}),
        ("coarse-k", lambda t: t.replace("16 16 16 0 0 0", "10 10 10 0 0 0"), {"kpoints"}),
        ("shifted-k", lambda t: t.replace("16 16 16 0 0 0", "16 16 16 1 1 1"), {"kpoints"}),
        # lattice constant in angstrom written as celldm(1), which is bohr (the shrunk cell also coarsens the mesh)
        ("celldm-in-angstrom", lambda t: t.replace("A = 2.866", "celldm(1) = 2.866"), {"structure", "kpoints"}),
        ("fcc-cell", lambda t: t.replace("ibrav = 3", "ibrav = 2"), {"structure"}),
        ("no-pseudo-dir", lambda t: re.sub(r"\n\s*pseudo_dir = './pseudo/'", "", t), {"pseudo-dir"}),
    ],
)
def test_fe_trap_fails_its_check(name, edit, expected, oracle_dirs, tmp_path):
    assert failed(fe_input(oracle_dirs, tmp_path, edit)) == expected, name


def test_fe_ecutrho_default_is_enough_from_40_ry(oracle_dirs, tmp_path):
    # 4 x 40 Ry = 160 Ry is converged for this pseudopotential (0.23 mRy/atom): the bound is physical, not a ratio.
    edit = lambda t: re.sub(r"\n\s*ecutrho = 360", "", t).replace("ecutwfc = 45", "ecutwfc = 40")  # noqa: E731
    assert fe_input(oracle_dirs, tmp_path, edit).passed


def test_fe_conventional_cube_with_equivalent_mesh_passes(oracle_dirs, tmp_path):
    def cube(t: str) -> str:
        t = t.replace("ibrav = 3", "ibrav = 1").replace("nat = 1", "nat = 2")
        t = t.replace("  Fe  0.0  0.0  0.0\n", "  Fe  0.0  0.0  0.0\n  Fe  0.5  0.5  0.5\n")
        return t.replace("16 16 16 0 0 0", "9 9 9 0 0 0")

    assert fe_input(oracle_dirs, tmp_path, cube).passed


# ------------------------------------------------------------------------------------------------ fe-moment

FM = "fe-moment"


@pytest.mark.parametrize(
    ("name", "field", "value", "check"),
    [
        ("site moment in the integration sphere", "moment_muB_per_atom", 2.48, "moment"),
        ("absolute magnetization", "moment_muB_per_atom", 2.57, "moment"),
        ("moment of the 2-atom cube", "moment_muB_per_atom", 4.84, "moment"),
        ("energy left in Ry", "dE_FM_NM_eV_per_atom", -0.0517, "de"),
        ("energy per 2-atom cube", "dE_FM_NM_eV_per_atom", -1.408, "de"),
        ("sign flipped", "dE_FM_NM_eV_per_atom", 0.704, "de"),
    ],
)
def test_fe_moment_trap_fails(name, field, value, check, tmp_path):
    answer = reference_answer(FM)
    answer[field] = value
    assert failed(grade_answer(FM, answer, tmp_path)) == {check}, name


@pytest.mark.slow
@needs_pw
def test_fe_moment_oracle_runs_pw_and_passes(oracle_dirs):
    sub = oracle_dirs[FM]
    assert (sub / "fm" / "pw.out").is_file() and (sub / "nm" / "pw.out").is_file()
    report = grade_dir(FM, sub)
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]
    assert_tolerance_edges(FM, read_answer(sub), sub.parent / "fm-edges")


# ------------------------------------------------------------------------------------------------ nio-vasp-afm-u-inputs

NIO = "nio-vasp-afm-u-inputs"


ROCKSALT_2 = (
    "NiO rocksalt primitive\n1.0\n0 2.085 2.085\n2.085 0 2.085\n2.085 2.085 0\nNi O\n1 1\nDirect\n0 0 0\n0.5 0.5 0.5\n"
)


def afm1_cube() -> str:
    lines = ["NiO cubic cell", "1.0", "4.17 0 0", "0 4.17 0", "0 0 4.17", "Ni O", "4 4", "Direct"]
    lines += ["0 0 0", "0.5 0.5 0", "0.5 0 0.5", "0 0.5 0.5"]
    lines += ["0.5 0 0", "0 0.5 0", "0 0 0.5", "0.5 0.5 0.5"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("name", "set_", "drop", "files", "expected"),
    [
        ("ferromagnetic MAGMOM", {"MAGMOM": "2.0 2.0 0.0 0.0"}, (), None, {"structure-and-order"}),
        ("MAGMOM left to VASP's default", {}, ("MAGMOM",), None, {"structure-and-order"}),
        ("input-set style ferromagnetic default", {"MAGMOM": "5 5 0.6 0.6"}, (), None, {"structure-and-order"}),
        ("no spin polarisation", {}, ("ISPIN",), None, {"ispin", "structure-and-order"}),
        (
            "rocksalt cell cannot hold AFM-II",
            {"MAGMOM": "2.0 0.0"},
            (),
            {"POSCAR": ROCKSALT_2},
            {"structure-and-order", "kpoints"},
        ),
        (
            "AFM-I in the cubic cell",
            {"MAGMOM": "2 2 -2 -2 0 0 0 0"},
            (),
            {"POSCAR": afm1_cube()},
            {"structure-and-order"},
        ),
        ("LMAXMIX default", {}, ("LMAXMIX",), None, {"lmaxmix"}),
        ("LASPH default", {}, ("LASPH",), None, {"lasph"}),
        ("no DFT+U", {}, ("LDAU",), None, {"ldau"}),
        ("U missing", {}, ("LDAUU",), None, {"ldauu"}),
        ("U on oxygen", {"LDAUU": "0.0 6.2"}, (), None, {"ldauu"}),
        ("U on Ni p", {"LDAUL": "1 -1"}, (), None, {"ldaul"}),
        ("Liechtenstein scheme", {"LDAUTYPE": "1"}, (), None, {"ldautype"}),
        ("cell kept fixed", {"ISIF": "2"}, (), None, {"isif"}),
        ("no ionic steps", {}, ("NSW",), None, {"nsw"}),
        ("molecular dynamics", {}, ("IBRION",), None, {"ibrion"}),
        ("ENCUT left to the POTCAR", {}, ("ENCUT",), None, {"encut"}),
        ("ENCUT without the Pulay margin", {"ENCUT": "400"}, (), None, {"encut"}),
        ("Methfessel-Paxton on an insulator", {}, ("ISMEAR",), None, {"ismear"}),
        ("Gaussian too wide", {"SIGMA": "0.2"}, (), None, {"sigma"}),
        ("loose EDIFF", {"EDIFF": "1E-4"}, (), None, {"ediff"}),
        ("coarse mesh", {}, (), {"KPOINTS": "mesh\n0\nGamma\n4 4 3\n"}, {"kpoints"}),
        ("even Monkhorst-Pack", {}, (), {"KPOINTS": "mesh\n0\nMonkhorst-Pack\n10 10 6\n"}, {"kpoints"}),
        ("POTCAR order swapped", {}, (), {"POTCAR.spec": "O\nNi_pv\n"}, {"potcar"}),
    ],
)
def test_nio_vasp_trap_fails_its_check(name, set_, drop, files, expected, oracle_dirs, tmp_path):
    report = edited_oracle_inputs(NIO, oracle_dirs, tmp_path, set_=set_, drop=drop, files=files)
    assert failed(report) == expected, (name, [c.message for c in report.checks if not c.passed])


@pytest.mark.parametrize(
    ("name", "set_", "drop"),
    [
        ("LDAUL left to VASP's default", {}, ("LDAUL",)),
        ("LDAUL off on O", {"LDAUL": "2 -1"}, ()),
        ("LDAUJ left out", {}, ("LDAUJ",)),
        ("tetrahedron method", {"ISMEAR": "-5"}, ()),
        ("global spin flip", {"MAGMOM": "-2.0 2.0 0.0 0.0"}, ()),
    ],
)
def test_nio_vasp_equivalent_inputs_pass(name, set_, drop, oracle_dirs, tmp_path):
    report = edited_oracle_inputs(NIO, oracle_dirs, tmp_path, set_=set_, drop=drop)
    assert report.passed, (name, [c.message for c in report.checks if not c.passed])


def test_nio_reference_input_set_passes(tmp_path):
    for name in ("INCAR", "KPOINTS", "POSCAR", "POTCAR.spec"):
        shutil.copyfile(entry(NIO).reference_dir / name, tmp_path / name)
    assert grade_dir(NIO, tmp_path).passed


# ------------------------------------------------------------------------------------------------ nio-u-analysis

NU = "nio-u-analysis"


def test_nio_u_traps(oracle_dirs, tmp_path):
    base = read_answer(oracle_dirs[NU])
    ws = entry(NU).workspace_dir

    # U taken from the file name: nio_U7.out ran without U (its HUBBARD card was ignored by pw.x 6.7)
    answer = copy.deepcopy(base)
    answer["runs"]["nio_U7"]["U_applied_eV"] = 7.0
    assert failed(grade_answer(NU, answer, tmp_path / "a")) == {"u-u7"}
    # ... and fitted at U = 7 eV
    runs = [(7.0 if k == "nio_U7" else r["U_applied_eV"], r["gap_eV"]) for k, r in base["runs"].items()]
    with_u = [(u, g) for u, g in runs if u > 0]
    answer["dgap_dU"] = float(np.polyfit(*zip(*with_u, strict=True), 1)[0])
    assert "dgap-du" in failed(grade_answer(NU, answer, tmp_path / "b"))
    # U = 0 runs included in the fit
    answer = copy.deepcopy(base)
    us = [r["U_applied_eV"] for r in base["runs"].values()]
    answer["dgap_dU"] = float(np.polyfit(us, [r["gap_eV"] for r in base["runs"].values()], 1)[0])
    assert failed(grade_answer(NU, answer, tmp_path / "c")) == {"dgap-du"}

    # smeared Fermi energy taken as a band edge (CBM - E_F)
    answer = copy.deepcopy(base)
    for key in answer["runs"]:
        text = (ws / f"{key}.out").read_text()
        ef = float(re.findall(r"the Fermi energy is\s+(\S+)", text)[-1])
        cbm = _vbm(text) + answer["runs"][key]["gap_eV"]
        answer["runs"][key]["gap_eV"] = cbm - ef
    assert failed(grade_answer(NU, answer, tmp_path / "d")) == {f"gap-{k.split('_')[1].lower()}" for k in base["runs"]}

    # total or half the absolute magnetization taken as the Ni moment
    answer = copy.deepcopy(base)
    for key in answer["runs"]:
        text = (ws / f"{key}.out").read_text()
        answer["runs"][key]["ni_moment_muB"] = float(re.findall(r"absolute magnetization\s+=\s+(\S+)", text)[-1]) / 2
    assert failed(grade_answer(NU, answer, tmp_path / "e")) == {
        f"moment-{k.split('_')[1].lower()}" for k in base["runs"]
    }


def _vbm(text: str) -> float:
    final = text[text.rindex("End of self-consistent calculation") :]
    occupied = []
    for block in final.split("bands (ev):")[1:]:
        eig, _, rest = block.partition("occupation numbers")
        occ = re.findall(r"-?\d+\.\d+", re.split(r"\n\s*\n\s*(?:k =|-+ SPIN|the Fermi)", rest, maxsplit=1)[0])
        occupied += [float(e) for e, f in zip(re.findall(r"-?\d+\.\d+", eig), occ, strict=False) if float(f) > 0.5]
    return max(occupied)


def test_nio_u_outputs_show_the_ignored_hubbard_card():
    ws = entry(NU).workspace_dir
    decoy = (ws / "nio_U7.out").read_text()
    assert "card HUBBARD {ATOMIC} ignored" in decoy and "Simplified LDA+U" not in decoy
    assert "Simplified LDA+U" in (ws / "nio_U6.out").read_text()


# ------------------------------------------------------------------------------------------------ square-afm-spin-waves

SQ = "square-afm-spin-waves"


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
