"""Checks and submissions for the vasp tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cmb.grading import run_check
from cmb.grading._submission import Submission
from cmb.grading.vasp import IncarResolver, parse_incar
from cmb.models import Check, CheckResult
from tests.conftest import make_reference, write_files
from tests.grading._crystals import nio_afm2, poscar_text, si_primitive

SI_POSCAR = poscar_text(si_primitive())


def incar_check(
    setting: str, reference: str | None = None, tolerance: dict[str, float] | None = None, **params: Any
) -> Check:
    return Check(
        id="i",
        type="vasp.incar",
        category="software",
        target={"file": "INCAR", "setting": setting},
        reference=reference,
        tolerance=tolerance,
        params=params,
    )


def grade(tmp_path: Path, check: Check, files: dict[str, str], ref_files: dict[str, str] | None = None, **values: Any):
    sub = write_files(tmp_path / "sub", files)
    ref_dir = write_files(tmp_path / "ref", ref_files) if ref_files is not None else None
    return run_check(check, Submission(sub), make_reference(**values), ref_dir)


def grade_incar(tmp_path: Path, incar: str, check: Check, poscar: str = SI_POSCAR, **values: Any) -> CheckResult:
    return grade(tmp_path, check, {"INCAR": incar, "POSCAR": poscar}, **values)


def resolver(incar: str, nions: int = 2) -> IncarResolver:
    return IncarResolver(parse_incar(incar), nions=lambda: nions, potcar=lambda: None)


def kpoints_check(**params: Any) -> Check:
    return Check(id="k", type="vasp.kpoints", category="scientific", target={"file": "KPOINTS"}, params=params)


def potcar_check(file: str = "POTCAR", **params: Any) -> Check:
    return Check(id="pp", type="vasp.potcar", category="software", target={"file": file}, params=params)


NIO_POSCAR = poscar_text(nio_afm2())
