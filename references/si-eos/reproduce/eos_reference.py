"""Reference values of si-eos: pw.x E(V) of diamond Si, fitted with ASE's Birch-Murnaghan (nonlinear least squares).

Usage: eos_reference.py PSEUDO OUTDIR
  OUTDIR/runs/<setting>/a<celldm>/   one folder per pw.x run (pw.in, pw.out, pseudo/, out/)
  OUTDIR/values.json                 a0_angstrom, B0_GPa, V0_per_atom_A3, E0_eV_per_atom of the pinned setting
The pinned setting is the full prompt's (ecutwfc 30 Ry, Gamma-centred 12x12x12, seven lattice constants +-4% around
the experimental 5.431 A). Three more settings are run as cross-checks and printed: a denser limit (50 Ry,
16x16x16), the loosest setting the prompt's 1 meV/atom target admits (27 Ry, 10x10x10; references/si-pw-scf-inputs)
and the total-energy habit 30 Ry with 8x8x8, which misses the target; the pinned values must agree with the first
two within the grader's tolerances.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
from ase.eos import EquationOfState

BOHR_A = 0.529177210903
RY_EV = 13.605693122994
EV_A3_GPA = 160.21766208
TEMPLATE = """&control
  calculation = 'scf', prefix = 'si', outdir = './out', pseudo_dir = './pseudo'
/
&system
  ibrav = 2, celldm(1) = {alat:.6f}, nat = 2, ntyp = 1, ecutwfc = {ecut}
/
&electrons
  conv_thr = 1.0d-10
/
ATOMIC_SPECIES
Si 28.0855 Si.pbe-rrkj.UPF
ATOMIC_POSITIONS crystal
Si 0.00 0.00 0.00
Si 0.25 0.25 0.25
K_POINTS automatic
{k} {k} {k} 0 0 0
"""


def run(folder: Path, pseudo: Path, alat: float, ecut: float, k: int) -> tuple[float, float]:
    """One SCF in its own folder: (A^3/atom, eV/atom)."""
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "pseudo").mkdir(parents=True)
    shutil.copyfile(pseudo, folder / "pseudo" / "Si.pbe-rrkj.UPF")
    (folder / "pw.in").write_text(TEMPLATE.format(alat=alat, ecut=ecut, k=k))
    with (folder / "pw.out").open("w") as fh:
        subprocess.run(
            ["pw.x", "-in", "pw.in"],
            cwd=folder,
            stdout=fh,
            stderr=subprocess.STDOUT,
            check=True,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
    text = (folder / "pw.out").read_text()
    assert "convergence has been achieved" in text, folder
    vol = float(re.search(r"unit-cell volume\s*=\s*([\d.]+)", text).group(1))
    energy = float(re.findall(r"^!\s+total energy\s*=\s*(-?[\d.]+) Ry", text, re.M)[-1])
    return vol * BOHR_A**3 / 2, energy * RY_EV / 2


def eos(out: Path, pseudo: Path, ecut: float, k: int) -> dict[str, float]:
    """Seven points +-4% around the experimental 5.431 A, ASE BM fit."""
    alats = np.round(5.431 / BOHR_A * (1 + 0.04 * np.linspace(-1, 1, 7)), 4)
    rows = [run(out / f"e{ecut:g}_k{k}" / f"a{a:.4f}", pseudo, a, ecut, k) for a in alats]
    v, e = np.array(rows).T
    v0, e0, b = EquationOfState(v, e, eos="birchmurnaghan").fit()
    return {
        "a0_angstrom": round(float((8 * v0) ** (1 / 3)), 5),
        "B0_GPa": round(float(b * EV_A3_GPA), 2),
        "V0_per_atom_A3": round(float(v0), 5),
        "E0_eV_per_atom": round(float(e0), 5),
    }


def main() -> None:
    """Pinned setting, then the two cross-checks."""
    pseudo, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    pinned = eos(out / "runs", pseudo, 30, 12)
    (out / "values.json").write_text(json.dumps(pinned, indent=2) + "\n")
    print("pinned   30 Ry 12x12x12:", pinned, flush=True)
    if os.environ.get("CMB_REPRODUCE_QUICK") != "1":
        print("limit    50 Ry 16x16x16:", eos(out / "runs", pseudo, 50, 16), flush=True)
        print("loosest  27 Ry 10x10x10:", eos(out / "runs", pseudo, 27, 10), flush=True)
        print("habit    30 Ry  8x8x8  :", eos(out / "runs", pseudo, 30, 8), flush=True)


if __name__ == "__main__":
    main()
