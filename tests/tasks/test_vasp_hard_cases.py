"""Study vasp-hard-cases (VASP inputs for hard cases, graded without running VASP): traps and oracles.

Tasks, all input preparation: slab-dipole-inputs (CO on one side of Pt(111)), soc-anisotropy-inputs (force-theorem
MAE of L1_0 FePt), hse-gap-inputs (HSE06 gap of GaAs), optics-inputs (LOPTICS of Si). Every oracle is a quick
Python script and runs once per module; each trap is the oracle's own input with one mistake put in.
"""

from __future__ import annotations

import shutil

import pytest

from cmb.catalog import stage_bundle
from cmb.models import Condition, GradeReport
from tests.tasks import _helpers
from tests.tasks._helpers import (
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    edited_oracle_inputs,
    entry,
    failed,
    grade_dir,
)

ALL = ["slab-dipole-inputs", "soc-anisotropy-inputs", "hse-gap-inputs", "optics-inputs"]


def study_of(task: str) -> str:
    return _helpers.entry(task).spec.study


def messages(report: GradeReport) -> list[str]:
    return [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


# ------------------------------------------------------------------------------------------------ every task


@pytest.mark.parametrize("task", ALL)
def test_files_are_consistent_and_reduced_prompt_drops_only_the_method(task):
    e = entry(task)
    assert e.spec.kind == "input-preparation"
    assert_entry_is_consistent(task, study_of(task), extra_reference_files=e.reference().files)


@pytest.mark.parametrize("task", ALL)
def test_empty_submission_fails(task, tmp_path):
    assert_empty_submission_fails(task, tmp_path)


@pytest.mark.parametrize("task", ALL)
def test_staged_workspace_alone_fails(task, tmp_path):
    stage_bundle(entry(task), Condition.SF, tmp_path)
    assert not grade_dir(task, tmp_path).passed


@pytest.mark.parametrize("task", ALL)
def test_oracle_passes(task, oracle_dirs):
    report = grade_dir(task, oracle_dirs[task])
    assert report.passed, messages(report)


@pytest.mark.parametrize("task", ALL)
def test_reference_input_set_passes(task, tmp_path):
    e = entry(task)
    stage_bundle(e, Condition.SF, tmp_path)  # staged POSCAR where the task gives one
    for name in e.reference().files:
        if name.startswith(("INCAR", "KPOINTS", "POSCAR", "POTCAR")):
            shutil.copyfile(e.reference_dir / name, tmp_path / name)
    report = grade_dir(task, tmp_path)
    assert report.passed, messages(report)


# ------------------------------------------------------------------------------------------------ slab-dipole-inputs

SLAB = "slab-dipole-inputs"


@pytest.mark.parametrize(
    ("name", "set_", "drop", "files", "expected"),
    [
        ("no dipole correction", {}, ("LDIPOL", "IDIPOL"), None, {"ldipol", "idipol"}),
        ("energy correction only", {}, ("LDIPOL",), None, {"ldipol"}),
        ("correction along x", {"IDIPOL": "1"}, (), None, {"idipol"}),
        ("DIPOL at the cell centre, inside the slab's image", {"DIPOL": "0.5 0.5 0.5"}, (), None, {"dipol-centre"}),
        ("ISIF = 3 collapses the vacuum", {"ISIF": "3"}, (), None, {"isif"}),
        ("no ionic steps", {}, ("NSW",), None, {"nsw"}),
        ("energy criterion", {"EDIFFG": "1E-4"}, (), None, {"ediffg"}),
        ("tetrahedron method in a metal relaxation", {"ISMEAR": "-5"}, (), None, {"ismear"}),
        ("ENCUT left to the POTCAR", {}, ("ENCUT",), None, {"encut"}),
        ("coarse in-plane mesh", {}, (), {"KPOINTS": "k\n0\nGamma\n3 3 1\n"}, {"kpoints"}),
        ("even Monkhorst-Pack on a hexagonal cell", {}, (), {"KPOINTS": "k\n0\nMonkhorst\n6 6 1\n"}, {"kpoints"}),
        ("POTCAR order differs from POSCAR", {}, (), {"POTCAR.spec": "C\nO\nPt\n"}, {"potcar"}),
    ],
)
def test_slab_trap_fails_its_check(name, set_, drop, files, expected, oracle_dirs, tmp_path):
    report = edited_oracle_inputs(SLAB, oracle_dirs, tmp_path, set_=set_, drop=drop, files=files)
    assert failed(report) == expected, (name, messages(report))


@pytest.mark.parametrize(
    ("name", "set_", "drop"),
    [
        ("DIPOL left to VASP", {}, ("DIPOL",)),
        ("DIPOL with other in-plane components", {"DIPOL": "0 0 0.18"}, ()),
        ("DIPOL at the geometric centre of the slab", {"DIPOL": "0.5 0.5 0.236"}, ()),
        ("VASP's default smearing", {}, ("ISMEAR", "SIGMA")),
        ("ions only, no stress", {"ISIF": "0"}, ()),
    ],
)
def test_slab_equivalent_inputs_pass(name, set_, drop, oracle_dirs, tmp_path):
    report = edited_oracle_inputs(SLAB, oracle_dirs, tmp_path, set_=set_, drop=drop)
    assert report.passed, (name, messages(report))


def test_slab_moved_cell_fails_the_structure_check(oracle_dirs, tmp_path):
    poscar = (oracle_dirs[SLAB] / "POSCAR").read_text().splitlines()
    poscar[4] = "   0.0000000000000000    0.0000000000000000   20.0000000000000000"  # vacuum shortened
    report = edited_oracle_inputs(SLAB, oracle_dirs, tmp_path, files={"POSCAR": "\n".join(poscar) + "\n"})
    assert "structure" in failed(report)


# ------------------------------------------------------------------------------------------------ soc-anisotropy-inputs

SOC = "soc-anisotropy-inputs"


@pytest.mark.parametrize(
    ("name", "incar", "set_", "drop", "expected"),
    [
        ("collinear MAGMOM in a noncollinear run", "INCAR_x", {"MAGMOM": "3.0 0.3"}, (), {"structure-order-x"}),
        ("symmetry left on", "INCAR_z", {}, ("ISYM",), {"z-isym"}),
        (  # the 6-value MAGMOM is then wrong for a collinear run as well
            "no spin-orbit coupling",
            "INCAR_x",
            {},
            ("LSORBIT", "LNONCOLLINEAR"),
            {"x-lsorbit", "x-noncollinear", "structure-order-x"},
        ),
        ("self-consistent restart instead of ICHARG = 11", "INCAR_z", {}, ("ICHARG",), {"z-icharg"}),
        ("same SAXIS in both runs", "INCAR_x", {"SAXIS": "0 0 1"}, (), {"x-saxis"}),
        ("moment along y instead of x", "INCAR_x", {"SAXIS": "0 1 0"}, (), {"x-saxis"}),
        ("LMAXMIX default in the collinear run", "INCAR_collinear", {}, ("LMAXMIX",), {"collinear-lmaxmix"}),
        ("LMAXMIX default when reading CHGCAR", "INCAR_x", {}, ("LMAXMIX",), {"x-lmaxmix"}),
        (
            "collinear run not spin-polarised",
            "INCAR_collinear",
            {},
            ("ISPIN",),
            {"collinear-ispin", "structure-order-collinear"},
        ),
        ("antiparallel start", "INCAR_collinear", {"MAGMOM": "3.0 -3.0"}, (), {"structure-order-collinear"}),
        ("no CHGCAR written", "INCAR_collinear", {"LCHARG": ".FALSE."}, (), {"collinear-lcharg"}),
        (
            "spin-orbit in step 1",
            "INCAR_collinear",
            {"LSORBIT": ".TRUE.", "MAGMOM": "0 0 3 0 0 0.3"},
            (),
            {"collinear-no-soc"},
        ),
        ("default smearing width", "INCAR_z", {}, ("SIGMA",), {"z-sigma"}),
        ("loose EDIFF", "INCAR_x", {"EDIFF": "1E-4"}, (), {"x-ediff"}),
        ("ENCUT left to the POTCAR", "INCAR_z", {}, ("ENCUT",), {"z-encut"}),
    ],
)
def test_soc_trap_fails_its_check(name, incar, set_, drop, expected, oracle_dirs, tmp_path):
    report = edited_oracle_inputs(SOC, oracle_dirs, tmp_path, incar=incar, set_=set_, drop=drop)
    assert failed(report) == expected, (name, messages(report))


def test_soc_coarse_mesh_fails(oracle_dirs, tmp_path):
    report = edited_oracle_inputs(
        SOC, oracle_dirs, tmp_path, incar="INCAR_x", files={"KPOINTS": "k\n0\nGamma\n12 12 9\n"}
    )
    assert failed(report) == {"kpoints"}


@pytest.mark.parametrize(
    ("name", "incar", "set_", "drop"),
    [
        ("SAXIS default along z", "INCAR_z", {}, ("SAXIS",)),
        ("LNONCOLLINEAR implied by LSORBIT", "INCAR_x", {}, ("LNONCOLLINEAR",)),
        ("symmetry fully off", "INCAR_x", {"ISYM": "-1"}, ()),
        ("tetrahedron method", "INCAR_z", {"ISMEAR": "-5"}, ()),
    ],
)
def test_soc_equivalent_inputs_pass(name, incar, set_, drop, oracle_dirs, tmp_path):
    report = edited_oracle_inputs(SOC, oracle_dirs, tmp_path, incar=incar, set_=set_, drop=drop)
    assert report.passed, (name, messages(report))


# ------------------------------------------------------------------------------------------------ hse-gap-inputs

HSE = "hse-gap-inputs"


@pytest.mark.parametrize(
    ("name", "set_", "drop", "files", "expected"),
    [
        ("no HFSCREEN: PBE0", {}, ("HFSCREEN",), None, {"hfscreen"}),
        ("HSE03 screening", {"HFSCREEN": "0.3"}, (), None, {"hfscreen"}),
        ("hybrid off", {}, ("LHFCALC",), None, {"lhfcalc", "aexx"}),
        ("tuned exact-exchange fraction", {"AEXX": "0.32"}, (), None, {"aexx"}),
        ("ALGO = Fast with Fock exchange", {"ALGO": "Fast"}, (), None, {"algo"}),
        ("Methfessel-Paxton on a semiconductor", {}, ("ISMEAR",), None, {"ismear"}),
        ("Gaussian too wide", {"SIGMA": "0.2"}, (), None, {"sigma"}),
        ("ENCUT left to the POTCAR", {}, ("ENCUT",), None, {"encut"}),
        ("a relaxation", {"NSW": "20", "IBRION": "2"}, (), None, {"nsw"}),
        ("mesh without Gamma", {}, (), {"KPOINTS": "k\n0\nMonkhorst-Pack\n8 8 8\n"}, {"kpoints"}),
        ("coarse mesh", {}, (), {"KPOINTS": "k\n0\nGamma\n4 4 4\n"}, {"kpoints"}),
        ("Ga without 3d", {}, (), {"POTCAR.spec": "Ga\nAs\n"}, {"potcar"}),
        (
            "rocksalt instead of zincblende",
            {},
            (),
            {
                "POSCAR": "GaAs\n1.0\n0 2.8265 2.8265\n2.8265 0 2.8265\n"
                "2.8265 2.8265 0\nGa As\n1 1\nDirect\n0 0 0\n0.5 0.5 0.5\n"
            },
            {"structure"},
        ),
    ],
)
def test_hse_trap_fails_its_check(name, set_, drop, files, expected, oracle_dirs, tmp_path):
    report = edited_oracle_inputs(HSE, oracle_dirs, tmp_path, set_=set_, drop=drop, files=files)
    assert failed(report) == expected, (name, messages(report))


@pytest.mark.parametrize(
    ("name", "set_", "drop"),
    [
        ("AEXX written out", {"AEXX": "0.25"}, ()),
        ("ALGO left to its default", {}, ("ALGO",)),
        ("conjugate gradient", {"ALGO": "All"}, ()),
    ],
)
def test_hse_equivalent_inputs_pass(name, set_, drop, oracle_dirs, tmp_path):
    report = edited_oracle_inputs(HSE, oracle_dirs, tmp_path, set_=set_, drop=drop)
    assert report.passed, (name, messages(report))


# ------------------------------------------------------------------------------------------------ optics-inputs

OPT = "optics-inputs"


@pytest.mark.parametrize(
    ("name", "set_", "drop", "files", "expected"),
    [
        ("NBANDS left to VASP's default", {}, ("NBANDS",), None, {"nbands"}),
        ("NBANDS about the default", {"NBANDS": "8"}, (), None, {"nbands"}),
        ("NBANDS reaching only 11 eV", {"NBANDS": "12"}, (), None, {"nbands"}),
        ("no LOPTICS", {}, ("LOPTICS",), None, {"loptics"}),
        ("default NEDOS", {}, ("NEDOS",), None, {"nedos"}),
        ("large complex shift", {"CSHIFT": "0.5"}, (), None, {"cshift"}),
        ("Methfessel-Paxton smearing", {"ISMEAR": "1"}, (), None, {"ismear"}),
        ("Gaussian too wide", {"ISMEAR": "0", "SIGMA": "0.2"}, (), None, {"sigma"}),
        ("loose EDIFF", {"EDIFF": "1E-4"}, (), None, {"ediff"}),
        ("total-energy mesh", {}, (), {"KPOINTS": "k\n0\nGamma\n8 8 8\n"}, {"kpoints"}),
    ],
)
def test_optics_trap_fails_its_check(name, set_, drop, files, expected, oracle_dirs, tmp_path):
    report = edited_oracle_inputs(OPT, oracle_dirs, tmp_path, set_=set_, drop=drop, files=files)
    assert failed(report) == expected, (name, messages(report))


@pytest.mark.parametrize(
    ("name", "set_", "drop"),
    [
        ("CSHIFT left to its default", {}, ("CSHIFT",)),
        ("the minimum band count", {"NBANDS": "15"}, ()),
        ("Gaussian smearing", {"ISMEAR": "0", "SIGMA": "0.02"}, ()),
    ],
)
def test_optics_equivalent_inputs_pass(name, set_, drop, oracle_dirs, tmp_path):
    report = edited_oracle_inputs(OPT, oracle_dirs, tmp_path, set_=set_, drop=drop)
    assert report.passed, (name, messages(report))
