"""Write the reference input sets of znmgo-strain-relax-inputs and values.json.

Usage: python3 make_decks.py OUTDIR

Fixed-cell relaxations (calculation = 'relax', forc_conv_thr = 1e-4 Ry/bohr) of wurtzite ZnO strained by
eps33 = +1% and -1% along c with a = 3.250 A held: c = 5.207 (1 + eps33) A, ibrav 4 with celldm(1) = a in bohr and
celldm(3) = c/a, starting from u = 0.382; LDA pseudopotentials named in the prompt, 40/320 Ry, Gamma-centred
6x6x4 mesh. Nothing is run (no Zn pseudopotential in the Debian set); the files are the ones committed beside
reference.yaml, and values.json holds the strained c values.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

A, C, U = 3.250, 5.207, 0.382
BOHR = 0.529177210903
STRAINS = {"strain_p1": 0.01, "strain_m1": -0.01}


def deck(eps: float) -> str:
    """One pw.x relaxation input."""
    c = C * (1 + eps)
    return f"""&control
  calculation = 'relax'
  prefix = 'zno_strain'
  outdir = './tmp'
  pseudo_dir = './pseudo'
  forc_conv_thr = 1.0d-4
/
&system
  ibrav = 4
  celldm(1) = {A / BOHR:.6f}
  celldm(3) = {c / A:.6f}
  nat = 4
  ntyp = 2
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
ATOMIC_SPECIES
  Zn  65.38    Zn.pz-dn-rrkjus_psl.1.0.0.UPF
  O   15.999   O.pz-rrkjus.UPF
ATOMIC_POSITIONS {{crystal}}
  Zn  0.3333333333  0.6666666667  0.0
  Zn  0.6666666667  0.3333333333  0.5
  O   0.3333333333  0.6666666667  {U:.4f}
  O   0.6666666667  0.3333333333  {0.5 + U:.4f}
K_POINTS {{automatic}}
  6 6 4 0 0 0
"""


def main(out: Path) -> None:
    """Write the two decks and values.json."""
    out.mkdir(parents=True, exist_ok=True)
    values = {}
    for name, eps in STRAINS.items():
        (out / f"{name}.in").write_text(deck(eps))
        values[f"c_{name}_angstrom"] = round(C * (1 + eps), 5)
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("strain-decks"))
