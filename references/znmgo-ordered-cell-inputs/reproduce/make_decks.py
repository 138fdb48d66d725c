"""Write the reference input set of znmgo-ordered-cell-inputs and values.json.

Usage: python3 make_decks.py OUTDIR

The vc-relax pw.x input of the ordered Zn3MgO4 cell: the 1x1x2 supercell of wurtzite ZnO (a = 3.250 A,
c = 5.207 A, u = 0.382) with the Zn at the origin replaced by Mg; ibrav 4 with celldm(1) = a in bohr and
celldm(3) = 2c/a; LDA pseudopotentials named in the prompt, 40/320 Ry, Gamma-centred 6x6x2 mesh,
forc_conv_thr = 1e-4 Ry/bohr, press_conv_thr = 0.5 kbar. Nothing is run (no Zn pseudopotential in the Debian
set); the file is the one committed beside reference.yaml, and values.json holds the public values.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

A, C, U = 3.250, 5.207, 0.382
BOHR = 0.529177210903


def sites() -> list[tuple[str, float, float, float]]:
    """The eight atoms of the supercell in its crystal coordinates, Mg on the Zn at the origin."""
    prim = [("Zn", 1 / 3, 2 / 3, 0.0), ("Zn", 2 / 3, 1 / 3, 0.5), ("O", 1 / 3, 2 / 3, U), ("O", 2 / 3, 1 / 3, 0.5 + U)]
    out = []
    for copy in (0.0, 0.5):
        for el, x, y, z in prim:
            out.append((el, x, y, z / 2 + copy))
    out[0] = ("Mg", *out[0][1:])
    return out


def deck() -> str:
    """The pw.x input."""
    pos = "".join(f"  {el:<3} {x:.10f}  {y:.10f}  {z:.5f}\n" for el, x, y, z in sites())
    return f"""&control
  calculation = 'vc-relax'
  prefix = 'zn3mgo4'
  outdir = './tmp'
  pseudo_dir = './pseudo'
  forc_conv_thr = 1.0d-4
/
&system
  ibrav = 4
  celldm(1) = {A / BOHR:.6f}
  celldm(3) = {2 * C / A:.6f}
  nat = 8
  ntyp = 3
  ecutwfc = 40
  ecutrho = 320
  occupations = 'fixed'
/
&electrons
  conv_thr = 1.0d-10
/
&ions
  ion_dynamics = 'bfgs'
/
&cell
  cell_dynamics = 'bfgs'
  cell_dofree = 'ibrav'
  press = 0.0
  press_conv_thr = 0.5
/
ATOMIC_SPECIES
  Zn  65.38    Zn.pz-dn-rrkjus_psl.1.0.0.UPF
  Mg  24.305   Mg.pz-n-vbc.UPF
  O   15.999   O.pz-rrkjus.UPF
ATOMIC_POSITIONS {{crystal}}
{pos}K_POINTS {{automatic}}
  6 6 2 0 0 0
"""


def main(out: Path) -> None:
    """Write the deck and values.json."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "zn3mgo4.vcrelax.in").write_text(deck())
    (out / "values.json").write_text(json.dumps({"elements": ["Mg", "O", "Zn"]}, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("ordered-decks"))
