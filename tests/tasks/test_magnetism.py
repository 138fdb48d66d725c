"""Study magnetism (Fe and NiO magnetism): traps, tolerance edges, oracles.

Tasks: fe-pw-spin-inputs (input preparation, pw.x), fe-moment (run-and-analyze, pw.x), nio-vasp-afm-u-inputs
(input preparation, VASP), nio-u-analysis (output analysis of staged pw.x DFT+U runs) and square-afm-spin-waves
(run-and-analyze, Python). The fe-moment oracle runs pw.x and is `slow`; every oracle runs at most once per module.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cmb.catalog import Catalog, TaskEntry, run_solution, stage_bundle
from cmb.grading import grade
from cmb.models import Condition, GradeReport
from cmb.settings import CmbSettings

CATALOG = Catalog.load(CmbSettings().root)
HAS_PW = shutil.which("pw.x") is not None
needs_pw = pytest.mark.skipif(not HAS_PW, reason="Quantum ESPRESSO (pw.x) not installed")

ALL = ["fe-pw-spin-inputs", "fe-moment", "nio-vasp-afm-u-inputs", "nio-u-analysis", "square-afm-spin-waves"]
JSON_TASKS = ["fe-moment", "nio-u-analysis", "square-afm-spin-waves"]
FAST_ORACLES = ["fe-pw-spin-inputs", "nio-vasp-afm-u-inputs", "nio-u-analysis", "square-afm-spin-waves"]


def entry(task: str) -> TaskEntry:
    return CATALOG.get(task)


def grade_dir(task: str, submission: Path) -> GradeReport:
    e = entry(task)
    return grade(e.grader(), e.reference(), submission, e.reference_dir)


def failed(report: GradeReport) -> set[str]:
    return {c.id for c in report.checks if not c.passed}


def run_oracle(task: str, dest: Path, condition: Condition = Condition.SF) -> Path:
    e = entry(task)
    stage_bundle(e, condition, dest)
    proc = run_solution(e, dest, timeout_s=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return dest


@pytest.fixture(scope="module")
def oracle_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The oracle's output folder of each task, computed once per module (only those requested)."""

    class Lazy(dict):  # type: ignore[type-arg]
        def __missing__(self, task: str) -> Path:
            self[task] = run_oracle(task, tmp_path_factory.mktemp(task))
            return self[task]

    return Lazy()


def copy_submission(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, dirs_exist_ok=True)
    return dest


def set_field(doc: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for p in parents:
        doc = doc[p]
    doc[last] = value


def get_field(doc: dict[str, Any], path: str) -> Any:
    for p in path.split("."):
        doc = doc[p]
    return doc


def reference_answer(task: str) -> dict[str, Any]:
    """A submission made of the reference values of every numeric check (nested fields included)."""
    e = entry(task)
    ref = e.reference()
    doc: dict[str, Any] = {}
    for c in e.grader().checks:
        if c.type != "numeric.scalar":
            continue
        *parents, last = c.target.field.split(".")
        node = doc
        for p in parents:
            node = node.setdefault(p, {})
        node[last] = ref.values[c.reference].value
    return doc


def grade_answer(task: str, answer: dict[str, Any], folder: Path) -> GradeReport:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "answer.json").write_text(json.dumps(answer))
    return grade_dir(task, folder)


def assert_edges(task: str, base: dict[str, Any], tmp_path: Path) -> None:
    """Each numeric check: just inside its tolerance passes, just outside fails that check alone."""
    e = entry(task)
    ref = e.reference()
    n = 0
    for check in e.grader().checks:
        if check.type != "numeric.scalar":
            continue
        expected = ref.values[check.reference].value
        tol = check.effective_tolerance
        width = tol.width * abs(expected) if tol.is_relative else tol.width
        for side in (1, -1):
            for factor, passes in ((0.98, True), (1.02, False)):
                answer = copy.deepcopy(base)
                set_field(answer, check.target.field, expected + side * factor * width)
                report = grade_answer(task, answer, tmp_path / f"edge{n}")
                n += 1
                if passes:
                    assert report.passed, (check.id, side, [c.message for c in report.checks if not c.passed])
                else:
                    assert failed(report) == {check.id}, (check.id, side, failed(report))


# ------------------------------------------------------------------------------------------------ every task


@pytest.mark.parametrize("task", ALL)
def test_files_are_consistent_and_reduced_prompt_drops_only_the_method(task):
    e = entry(task)
    assert e.spec.study == "magnetism"
    full, reduced = e.prompt(Condition.SF), e.prompt(Condition.SR)
    assert "## Method" in full and "## Method" not in reduced
    assert re.sub(r"\n## Method\n.*?(?=\n## )", "", full, flags=re.S) == reduced
    for name in ("solution/solve.sh", "reproduce/reproduce.sh", "QC.md"):
        assert (e.reference_dir / name).is_file(), name
    for check in e.grader().checks:
        assert check.target.file in e.spec.answer_files
        assert check.description


@pytest.mark.parametrize("task", ALL)
def test_empty_submission_fails(task, tmp_path):
    report = grade_dir(task, tmp_path)
    assert not report.passed and report.score == 0 and report.failure_category == "format"


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
    assert_edges(task, reference_answer(task), tmp_path)


@pytest.mark.parametrize("task", ["nio-u-analysis", "square-afm-spin-waves"])
def test_tolerance_edges_around_the_oracle_answer(task, oracle_dirs, tmp_path):
    """Built from the oracle's own answer: moving one field just outside fails that check alone."""
    base = json.loads((oracle_dirs[task] / "answer.json").read_text())
    assert grade_answer(task, base, tmp_path / "base").passed
    assert_edges(task, base, tmp_path)


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
    assert_edges(FM, json.loads((sub / "answer.json").read_text()), sub.parent / "fm-edges")


# ------------------------------------------------------------------------------------------------ nio-vasp-afm-u-inputs

NIO = "nio-vasp-afm-u-inputs"


def incar_dict(text: str) -> dict[str, str]:
    """TAG -> value of a simple INCAR (one or more `TAG = value` statements per line, comments dropped)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = re.split(r"[#!]", line, maxsplit=1)[0]
        for stmt in line.split(";"):
            if "=" in stmt:
                tag, _, value = stmt.partition("=")
                out[tag.strip().upper()] = value.strip()
    return out


def incar_text(tags: dict[str, str]) -> str:
    return "".join(f"{k} = {v}\n" for k, v in tags.items())


def vasp_edit(
    task: str,
    oracle_dirs: dict[str, Path],
    tmp_path: Path,
    incar: str = "INCAR",
    set_: dict[str, str] | None = None,
    drop: tuple[str, ...] = (),
    files: dict[str, str] | None = None,
) -> GradeReport:
    sub = copy_submission(oracle_dirs[task], tmp_path / "sub")
    tags = incar_dict((sub / incar).read_text())
    for t in drop:
        assert t in tags, t
        del tags[t]
    tags.update(set_ or {})
    (sub / incar).write_text(incar_text(tags))
    for name, text in (files or {}).items():
        (sub / name).write_text(text)
    return grade_dir(task, sub)


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
    report = vasp_edit(NIO, oracle_dirs, tmp_path, set_=set_, drop=drop, files=files)
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
    report = vasp_edit(NIO, oracle_dirs, tmp_path, set_=set_, drop=drop)
    assert report.passed, (name, [c.message for c in report.checks if not c.passed])


def test_nio_reference_input_set_passes(tmp_path):
    for name in ("INCAR", "KPOINTS", "POSCAR", "POTCAR.spec"):
        shutil.copyfile(entry(NIO).reference_dir / name, tmp_path / name)
    assert grade_dir(NIO, tmp_path).passed


# ------------------------------------------------------------------------------------------------ nio-u-analysis

NU = "nio-u-analysis"


def test_nio_u_traps(oracle_dirs, tmp_path):
    base = json.loads((oracle_dirs[NU] / "answer.json").read_text())
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
    base = json.loads((oracle_dirs[SQ] / "answer.json").read_text())
    answer = copy.deepcopy(base)
    for key in ("J1_meV", "J2_meV", "spin_wave_velocity_meV_A", "omega_pi_0_meV", "omega_pi2_pi2_meV"):
        answer[key] = base[key] / 2  # every bond counted from both ends: J and the magnon energies halve
    assert failed(grade_answer(SQ, answer, tmp_path)) == {"j1", "j2", "velocity", "omega-pi-0", "omega-pi2-pi2"}


def test_square_afm_unconverged_zone_sum_fails(oracle_dirs, tmp_path):
    base = json.loads((oracle_dirs[SQ] / "answer.json").read_text())
    j1, j2, n = base["J1_meV"], base["J2_meV"], 64
    k = -np.pi + (np.arange(n) + 0.5) * 2 * np.pi / n
    kx, ky = np.meshgrid(k, k, indexing="ij")
    a = 4 * (j1 - j2 * (1 - np.cos(kx) * np.cos(ky)))
    b = 4 * j1 * (np.cos(kx) + np.cos(ky)) / 2
    ds = float(np.mean(0.5 * (a / np.sqrt(a * a - b * b) - 1)))
    answer = {**base, "delta_S": ds, "ordered_moment_muB": 2 * (1 - ds)}
    assert failed(grade_answer(SQ, answer, tmp_path)) == {"delta-s", "ordered-moment"}


def test_square_afm_j1_only_fit_fails(oracle_dirs, tmp_path):
    base = json.loads((oracle_dirs[SQ] / "answer.json").read_text())
    j1 = base["J1_meV"]
    answer = {
        **base,
        "J2_meV": 0.0,
        "omega_pi_0_meV": 4 * j1,
        "omega_pi2_pi2_meV": 4 * j1,
        "spin_wave_velocity_meV_A": 2 * np.sqrt(2) * j1 * 4.0,
    }
    assert failed(grade_answer(SQ, answer, tmp_path)) == {"j2", "omega-pi-0", "omega-pi2-pi2", "velocity"}
