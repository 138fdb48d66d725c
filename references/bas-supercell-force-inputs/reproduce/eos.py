"""The LDA lattice constant of this study: seven pw.x energies of the primitive cell (70 Ry, 6x6x6 shifted mesh,
B.pz-vbc.UPF + As.pz-bhs.UPF) fitted with the Birch-Murnaghan equation of state.

Usage: eos.py OUTDIR   (writes OUTDIR/eos.dat and OUTDIR/eos.json; OUTDIR/pseudo holds the pseudopotentials)
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import curve_fit

OUT = Path(sys.argv[1])
BOHR = 0.52917720859


def energy(a: float) -> float:
    run = OUT / "runs" / "eos"
    run.mkdir(parents=True, exist_ok=True)
    text = f"""&control
  prefix = 'a{a:.3f}'
  outdir = './tmp'
  pseudo_dir = '../../pseudo'
/
&system
  ibrav = 2
  celldm(1) = {a / BOHR:.6f}
  nat = 2
  ntyp = 2
  ecutwfc = 70.0
/
&electrons
  conv_thr = 1.0d-10
/
ATOMIC_SPECIES
B  11.0093 B.pz-vbc.UPF
As 74.9216 As.pz-bhs.UPF
ATOMIC_POSITIONS crystal
B  0.00 0.00 0.00
As 0.25 0.25 0.25
K_POINTS automatic
6 6 6 1 1 1
"""
    name = f"a{a:.3f}"
    (run / f"{name}.in").write_text(text)
    with open(run / f"{name}.out", "w") as fh:
        subprocess.run(["pw.x", "-in", f"{name}.in"], cwd=run, stdout=fh, stderr=subprocess.DEVNULL, check=True)
    subprocess.run(["rm", "-rf", str(run / "tmp")], check=True)
    m = re.search(r"^!\s+total energy\s+=\s+(\S+) Ry", (run / f"{name}.out").read_text(), re.M)
    assert m, name
    return float(m.group(1))


def bm(v, e0, v0, b0, b1):
    x = (v0 / v) ** (2 / 3)
    return e0 + 9 * v0 * b0 / 16 * ((x - 1) ** 3 * b1 + (x - 1) ** 2 * (6 - 4 * x))


def main() -> None:
    lattice = [4.66, 4.68, 4.70, 4.72, 4.74, 4.76, 4.78]
    e = np.array([energy(a) for a in lattice])
    v = np.array(lattice) ** 3 / 4
    p, _ = curve_fit(bm, v, e, p0=[e.min(), v[np.argmin(e)], 0.007, 4.0])
    a0 = float((4 * p[1]) ** (1 / 3))
    b0_gpa = float(p[2] * 13.605693122994 * 160.21766208)  # Ry/A^3 -> GPa
    (OUT / "eos.dat").write_text("# a_angstrom E_Ry\n" + "".join(f"{a:.3f} {x:.8f}\n" for a, x in zip(lattice, e)))
    res = {"a0_angstrom": round(a0, 4), "B0_GPa": round(b0_gpa, 1), "B0_prime": round(float(p[3]), 2)}
    (OUT / "eos.json").write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
