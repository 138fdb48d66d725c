"""The full agent image, built with no registry, runs the simulation codes inside a docker sandbox."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import write_files
from tests.sandbox._support import SandboxFactory

pytestmark = [pytest.mark.docker, pytest.mark.slow]

SI_SCF = """&control
  calculation = 'scf', prefix = 'si', outdir = './tmp', pseudo_dir = '/usr/share/espresso/pseudo'
/
&system
  ibrav = 2, celldm(1) = 10.26, nat = 2, ntyp = 1, ecutwfc = 12.0
/
&electrons
  conv_thr = 1.0d-8
/
ATOMIC_SPECIES
  Si 28.086 Si.pz-vbc.UPF
ATOMIC_POSITIONS alat
  Si 0.00 0.00 0.00
  Si 0.25 0.25 0.25
K_POINTS automatic
  2 2 2 0 0 0
"""

LJ_MELT = """units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 4 0 4 0 4
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 3.0 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
fix 1 all nve
thermo 50
run 100
"""


def test_pw_x_scf_of_silicon(make_sandbox: SandboxFactory, full_image: str, tmp_path: Path) -> None:
    sb = make_sandbox("docker", image=full_image, cpus=1, memory_gib=2)
    sb.put(write_files(tmp_path / "in", {"si.scf.in": SI_SCF}))
    r = sb.exec(["sh", "-c", "pw.x -in si.scf.in > si.scf.out"], timeout_s=300)
    assert r.exit_code == 0, r.stderr
    sb.get("si.scf.out", tmp_path / "out")
    out = (tmp_path / "out" / "si.scf.out").read_text()
    assert "JOB DONE" in out
    energy = float(re.search(r"!\s+total energy\s+=\s+(-?\d+\.\d+) Ry", out).group(1))  # type: ignore[union-attr]
    assert energy == pytest.approx(-15.6155, abs=5e-3)  # LDA silicon, two atoms, 12 Ry, 2x2x2 k-points


def test_lammps_lj_melt(make_sandbox: SandboxFactory, full_image: str, tmp_path: Path) -> None:
    sb = make_sandbox("docker", image=full_image, cpus=1, memory_gib=1)
    sb.put(write_files(tmp_path / "in", {"in.melt": LJ_MELT}))
    r = sb.exec(["lmp", "-in", "in.melt", "-log", "log.lammps"], timeout_s=300)
    assert r.exit_code == 0, r.stderr
    assert "Total wall time" in r.stdout
    assert re.search(r"^\s+100\s+", r.stdout, re.MULTILINE)  # the thermo line of the last step


def test_python_stack_and_manuals(make_sandbox: SandboxFactory, full_image: str) -> None:
    sb = make_sandbox("docker", image=full_image)
    modules = "numpy, scipy, h5py, ase, pymatgen.core, spglib, matplotlib.pyplot, phonopy, phono3py"
    r = sb.exec(["python3", "-c", f"import {modules}; print('ok')"], timeout_s=120)
    assert r.exit_code == 0, r.stderr
    script = "ls /opt/manuals; for p in pw.x lmp wannier90.x phonopy; do command -v $p; done"
    r = sb.exec(["sh", "-c", script], timeout_s=30)
    listed = r.stdout.split()
    assert {"README.txt", "manifest.json", "quantum-espresso", "lammps", "phonopy", "phono3py"} <= set(listed)
    assert {"/usr/bin/pw.x", "/usr/bin/lmp", "/usr/bin/wannier90.x", "/usr/local/bin/phonopy"} <= set(listed)
    # The image carries the library itself (pods bind no host folder), read-only for the agent.
    r = sb.exec(
        [
            "sh",
            "-c",
            "grep -c 'Variable: *ecutrho' /opt/manuals/quantum-espresso/INPUT_PW.txt; "
            "ls /opt/manuals/lammps | wc -l; touch /opt/manuals/x || echo REFUSED",
        ],
        timeout_s=30,
    )
    count, rst_files, refused = r.stdout.split()
    assert count == "1" and int(rst_files) > 500 and refused == "REFUSED"
