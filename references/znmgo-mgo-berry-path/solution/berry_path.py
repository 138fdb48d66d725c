"""Berry-phase polarization path of wurtzite-type MgO in the clamped ZnO cell, unwrapped onto the reference branch.

Usage: berry_path.py [--nppstr N] [--kplane K] [--pw pw.x]

For u = 1/2, 0.49, 0.44, 0.382: an SCF run (6x6x4 unless --kplane K: KxKx4) and a Berry-phase nscf run (lberry,
gdir = 3, nppstr 8, 6x6 strings) with pw.x in run_<u>/. The printed P (C/m^2) is defined modulo e c / Omega, half
the printed modulus for spin-degenerate bands; each point takes the equivalent value closest to the previous one,
starting from the reference. Z*33 of O = Omega dP / (2 e dz) between u = 1/2 and 0.49. Writes answer.json.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

A, C = 3.250, 5.207
PATH = [0.5, 0.49, 0.44, 0.382]
E = 1.602176634e-19


def deck(u: float, kind: str, nppstr: int, kplane: int) -> str:
    """The pw.x input of one run."""
    ctrl = (
        "  calculation = 'scf'\n"
        if kind == "scf"
        else (f"  calculation = 'nscf'\n  lberry = .true.\n  gdir = 3\n  nppstr = {nppstr}\n")
    )
    k = f"{kplane} {kplane} 4 0 0 0" if kind == "scf" else f"{kplane} {kplane} 1 0 0 0"
    return f"""&control
{ctrl}  prefix = 'mgo'
  outdir = './tmp'
  pseudo_dir = '../pseudo'
/
&system
  ibrav = 4
  A = {A}
  C = {C}
  nat = 4
  ntyp = 2
  ecutwfc = 40
  ecutrho = 320
  occupations = 'fixed'
/
&electrons
  conv_thr = 1.0d-10
/
ATOMIC_SPECIES
  Mg  24.305  Mg.pz-n-vbc.UPF
  O   15.999  O.pz-rrkjus.UPF
ATOMIC_POSITIONS {{crystal}}
  Mg  0.3333333333  0.6666666667  0.0
  Mg  0.6666666667  0.3333333333  0.5
  O   0.3333333333  0.6666666667  {u}
  O   0.6666666667  0.3333333333  {0.5 + u}
K_POINTS {{automatic}}
  {k}
"""


def polarization(out: str) -> tuple[float, float]:
    """P and its printed modulus in C/m^2 from a pw.x Berry-phase output."""
    m = re.search(r"P =\s*(-?[0-9.]+)\s*\(mod\s*([0-9.]+)\)\s*C/m\^2", out)
    if m is None:
        raise SystemExit("no polarization in the pw.x output")
    return float(m.group(1)), float(m.group(2))


def main(argv: list[str]) -> None:
    """Run the path and write answer.json."""
    nppstr = int(argv[argv.index("--nppstr") + 1]) if "--nppstr" in argv else 8
    kplane = int(argv[argv.index("--kplane") + 1]) if "--kplane" in argv else 6
    pw = argv[argv.index("--pw") + 1] if "--pw" in argv else "pw.x"
    raw = {}
    for u in PATH:
        d = Path(f"run_{u}")
        d.mkdir(exist_ok=True)
        for kind in ("scf", "bp"):
            (d / f"{kind}.in").write_text(deck(u, kind, nppstr, kplane))
            with (d / f"{kind}.in").open() as fin, (d / f"{kind}.out").open("w") as fout:
                subprocess.run([pw], stdin=fin, stdout=fout, stderr=subprocess.STDOUT, cwd=d, check=True)
        raw[u] = polarization((d / "bp.out").read_text())
    branch, prev = {}, 0.0
    for u in PATH:
        p, mod = raw[u]
        q = mod / 2  # e c / Omega
        p -= q * round((p - prev) / q)
        branch[u], prev = p, p
    omega = 3**0.5 / 2 * A * A * C * 1e-30
    dz = (0.49 - 0.5) * C * 1e-10
    zstar = omega * (branch[0.49] - branch[0.5]) / (2 * E * dz)
    answer = {
        "P_u0490_C_per_m2": round(branch[0.49] - branch[0.5], 5),
        "P_u0440_C_per_m2": round(branch[0.44] - branch[0.5], 5),
        "P_u0382_C_per_m2": round(branch[0.382] - branch[0.5], 5),
        "Zstar_O_33": round(zstar, 4),
    }
    Path("answer.json").write_text(json.dumps(answer, indent=1) + "\n")
    Path("raw_polarization.json").write_text(json.dumps({str(u): raw[u] for u in PATH}, indent=1) + "\n")
    print(json.dumps(answer))


if __name__ == "__main__":
    main(sys.argv[1:])
