"""pw.x decks of bilayer h-BN along the armchair sliding path (the study's settings).

The bottom layer has B at (0, 0) and N at (1/3, 2/3) of the hexagonal cell; the top layer is the same layer
moved rigidly by lam * a / sqrt(3) along +y (the B-N bond direction): lam = 0 AA (B over B), 1 AB (B over N,
N over a hexagon centre), 1.5 SP (the saddle point), 2 BA (N over B), 3 AA again.

Usage: python3 bilayer.py LAM [D_ANGSTROM] [CALCULATION] [PREFIX] [PSEUDO_DIR]  > deck.in
"""

from __future__ import annotations

import math
import sys

A = 2.504  # measured in-plane lattice constant (A), held fixed
C = 25.0  # cell height (A): about 21.7 A of vacuum
EMAXPOS, EOPREG = 0.95, 0.05  # the dipole correction's ramp, in fractions of C: in the vacuum above the bilayer
BOHR = 0.529177210903


def positions(lam: float, d: float) -> list[tuple[str, float, float, float]]:
    """(element, fractional x, y, z) of the four atoms; layers at z = 1/2 -+ d / 2c."""
    f2 = lam * A / math.sqrt(3) / (A * math.sqrt(3) / 2)  # the +y shift in units of a2 ...
    f1 = f2 / 2  # ... with a1 added back to cancel a2's -x component
    z1, z2 = 0.5 - d / 2 / C, 0.5 + d / 2 / C
    return [
        ("B", 0.0, 0.0, z1),
        ("N", 1 / 3, 2 / 3, z1),
        ("B", f1 % 1, f2 % 1, z2),
        ("N", (1 / 3 + f1) % 1, (2 / 3 + f2) % 1, z2),
    ]


def deck(
    lam: float, d: float = 3.30, calculation: str = "relax", prefix: str = "hbn", pseudo_dir: str = "./pseudo"
) -> str:
    """A pw.x input: PBE-D3, the dipole correction's ramp from EMAXPOS to EMAXPOS + EOPREG, in-plane positions held."""
    flags = " 0 0 1" if calculation == "relax" else ""
    atoms = "\n".join(f"{el} {x:.10f} {y:.10f} {z:.10f}{flags}" for el, x, y, z in positions(lam, d))
    return f"""&control
  calculation = '{calculation}'
  prefix = '{prefix}'
  outdir = './tmp'
  pseudo_dir = '{pseudo_dir}'
  tprnfor = .true.
  tefield = .true.
  dipfield = .true.
  forc_conv_thr = 1.0d-4
  etot_conv_thr = 1.0d-6
/
&system
  ibrav = 4
  celldm(1) = {A / BOHR:.8f}
  celldm(3) = {C / A:.8f}
  nat = 4
  ntyp = 2
  ecutwfc = 45
  ecutrho = 360
  vdw_corr = 'dft-d3'
  edir = 3
  emaxpos = {EMAXPOS}
  eopreg = {EOPREG}
  eamp = 0.0
/
&electrons
  conv_thr = 1.0d-10
  mixing_beta = 0.5
/
&ions
/
ATOMIC_SPECIES
B 10.811 B.pbe-n-rrkjus_psl.1.0.0.UPF
N 14.007 N.pbe-n-rrkjus_psl.1.0.0.UPF
ATOMIC_POSITIONS crystal
{atoms}
K_POINTS automatic
12 12 1 0 0 0
"""


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    lam = float(args[0])
    d = float(args[1]) if len(args) > 1 else 3.30
    calc = args[2] if len(args) > 2 else "relax"
    prefix = args[3] if len(args) > 3 else "hbn"
    pseudo = args[4] if len(args) > 4 else "./pseudo"
    sys.stdout.write(deck(lam, d, calc, prefix, pseudo))
