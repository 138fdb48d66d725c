"""Write the reference input sets of znmgo-berry-phase-inputs and values.json.

Usage: python3 make_decks.py OUTDIR

The SCF and Berry-phase (nscf, lberry, gdir = 3, nppstr) pw.x inputs of wurtzite ZnO (u = 0.382) and of its
layered-hexagonal reference (u = 1/2) in the clamped cell a = 3.250 A, c = 5.207 A: ibrav 4 with celldm(1) = a in
bohr and celldm(3) = c/a, the LDA pseudopotentials the prompt names, 40/320 Ry, a Gamma-centred 6x6x4 SCF mesh,
6x6 in-plane strings of 8 points. Nothing is run (no Zn pseudopotential in the Debian set); the files are the
ones committed beside reference.yaml, and values.json holds the public values.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

A, C, U = 3.250, 5.207, 0.382
BOHR = 0.529177210903


def deck(u: float, prefix: str, kind: str) -> str:
    """One pw.x input."""
    extra = "  lberry = .true.\n  gdir = 3\n  nppstr = 8\n" if kind == "bp" else ""
    kpts = "6 6 4 0 0 0" if kind == "scf" else "6 6 1 0 0 0"
    return f"""&control
  calculation = '{"scf" if kind == "scf" else "nscf"}'
  prefix = '{prefix}'
  outdir = './tmp'
  pseudo_dir = './pseudo'
{extra}/
&system
  ibrav = 4
  celldm(1) = {A / BOHR:.6f}
  celldm(3) = {C / A:.6f}
  nat = 4
  ntyp = 2
  ecutwfc = 40
  ecutrho = 320
  occupations = 'fixed'
/
&electrons
  conv_thr = 1.0d-9
/
ATOMIC_SPECIES
  Zn  65.38    Zn.pz-dn-rrkjus_psl.1.0.0.UPF
  O   15.999   O.pz-rrkjus.UPF
ATOMIC_POSITIONS {{crystal}}
  Zn  0.3333333333  0.6666666667  0.0
  Zn  0.6666666667  0.3333333333  0.5
  O   0.3333333333  0.6666666667  {u:.4f}
  O   0.6666666667  0.3333333333  {0.5 + u:.4f}
K_POINTS {{automatic}}
  {kpts}
"""


def main(out: Path) -> None:
    """Write the four decks and values.json."""
    out.mkdir(parents=True, exist_ok=True)
    for name, u, prefix in (("wz", U, "zno_wz"), ("h", 0.5, "zno_h")):
        for kind in ("scf", "bp"):
            (out / f"{name}.{kind}.in").write_text(deck(u, prefix, kind))
    (out / "values.json").write_text(json.dumps({"a_angstrom": A, "c_angstrom": C, "u_wurtzite": U}, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("berry-decks"))
