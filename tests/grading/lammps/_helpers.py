"""Helpers for the lammps tests: scripts, checks, grading a script, running the real LAMMPS."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cmb.grading import run_check
from cmb.grading._submission import Submission
from cmb.models import Check, CheckResult
from tests.conftest import make_reference, write_files

LMP = shutil.which("lmp")
POTENTIALS = Path("/usr/share/lammps/potentials")
needs_lmp = pytest.mark.skipif(LMP is None, reason="LAMMPS (lmp) is not installed")

# A box every script needs before run/fix/mass; units must come before it.
BOX = "region b block 0 1 0 1 0 1\ncreate_box {n} b\n"


def box(n: int = 1) -> str:
    return BOX.format(n=n)


def setting_check(setting: str, *, reference: str | None = "x", file: str = "in.lmp", **kw: Any) -> Check:
    kw.setdefault("category", "software")
    return Check(
        id=kw.pop("id", "c1"),
        type="lammps.setting",
        target={"file": file, "setting": setting},
        reference=reference,
        **kw,
    )


def typed_check(type_: str, *, reference: str | None = None, file: str = "in.lmp", **kw: Any) -> Check:
    kw.setdefault("category", "scientific")
    return Check(id=kw.pop("id", "c1"), type=type_, target={"file": file}, reference=reference, **kw)


def grade_files(root: Path, files: dict[str, Any], check: Check, **values: Any) -> CheckResult:
    write_files(root, files)
    return run_check(check, Submission(root), make_reference(**values))


def run_lmp(script: str, cwd: Path) -> tuple[int, str]:
    """Run the real LAMMPS on a script WE wrote (never on agent content); returns (exit status, output)."""
    assert LMP is not None
    (cwd / "probe.in").write_text(script)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [LMP, "-in", "probe.in", "-log", "none", "-nocite"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    out = proc.stdout + proc.stderr
    failed = proc.returncode != 0 or "ERROR" in out
    return (1 if failed else 0), out


def printed(output: str, tag: str) -> str:
    """The value LAMMPS printed on a line 'TAG value'."""
    for line in output.splitlines():
        if line.startswith(tag + " "):
            return line.split(None, 1)[1].strip()
    raise AssertionError(f"LAMMPS printed no {tag!r} line:\n{output[-2000:]}")


NPT_SCRIPT = """# Cu at 300 K and 0 bar
variable T equal 300
units metal
lattice fcc 3.615
region b block 0 4 0 4 0 4
create_box 1 b
create_atoms 1 box
mass 1 63.546
pair_style eam
pair_coeff 1 1 Cu_u3.eam
velocity all create ${T} 4928459 dist gaussian
fix md all npt temp ${T} ${T} $(100*dt) iso 0.0 0.0 $(1000*dt)
run 10000
"""

SW_SCRIPT = """units metal
region b block 0 10 0 10 0 10
create_box {n} b
pair_style sw
pair_coeff * * {file} {elements}
fix 1 all nvt temp 1000 1000 0.1
run 100
"""


def _script(tmp_path: Path, text: str, check: Check, **values) -> object:
    return grade_files(tmp_path, {"in.lmp": text}, check, **values)
