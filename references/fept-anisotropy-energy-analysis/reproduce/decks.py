"""pw.x inputs of the anisotropy-energy step of fept-anisotropy (QE 6.7).

Self-consistent spin-orbit runs of L1_0 FePt with the magnetisation started along [001] (theta = 0) and along [100]
(theta = 90), on the unshifted 8x8x6 and 12x12x9 meshes.

Usage: python3 decks.py OUTDIR      writes OUTDIR/fept_k{n}_t{theta:02d}.in

Same settings as the study's ground-state step (references/fept-moments/reproduce/moments.py): the 2-atom primitive
tetragonal cell at a = 3.853 A, c = 3.713 A of the face-centred cell (a_t = a / sqrt 2, ibrav 6), Fe at the origin,
Pt at the body centre; PBE, Fe.rel-pbe-spn-rrkjus_psl.0.2.1.UPF and Pt.rel-pbe-n-rrkjus.UPF, noncollinear spinors with
spin-orbit coupling, 45/450 Ry, Marzari-Vanderbilt 0.007 Ry,
conv_thr 1e-9 Ry (five orders below the anisotropy's 0.2 mRy). The starting moments of both sites point along
(sin theta, 0, cos theta).
"""

from __future__ import annotations

import sys
from pathlib import Path

BOHR_A = 0.529177210903
A_T, C = 3.853 / 2**0.5, 3.713
PSEUDOS = {"Fe": "Fe.rel-pbe-spn-rrkjus_psl.0.2.1.UPF", "Pt": "Pt.rel-pbe-n-rrkjus.UPF"}
MESHES = (8, 12)
THETAS = (0, 90)


def name(n: int, theta: int) -> str:
    """The run's file stem."""
    return f"fept_k{n:02d}_t{theta:02d}"


def pw_input(n: int, theta: int) -> str:
    """The spin-orbit SCF input with moments started at polar angle theta (degrees) in the xz plane."""
    return f"""&control
  calculation = 'scf', prefix = '{name(n, theta)}', outdir = './out', pseudo_dir = './pseudo'
/
&system
  ibrav = 6, celldm(1) = {A_T / BOHR_A:.6f}, celldm(3) = {C / A_T:.6f}, nat = 2, ntyp = 2,
  ecutwfc = 45.0, ecutrho = 450.0,
  occupations = 'smearing', smearing = 'mv', degauss = 0.007,
  noncolin = .true., lspinorb = .true.,
  starting_magnetization(1) = 0.6, starting_magnetization(2) = 0.1,
  angle1(1) = {theta:.1f}, angle2(1) = 0.0, angle1(2) = {theta:.1f}, angle2(2) = 0.0
/
&electrons
  conv_thr = 1.0d-9, mixing_beta = 0.3
/
ATOMIC_SPECIES
Fe 55.845 {PSEUDOS["Fe"]}
Pt 195.084 {PSEUDOS["Pt"]}
ATOMIC_POSITIONS crystal
Fe 0.0 0.0 0.0
Pt 0.5 0.5 0.5
K_POINTS automatic
{n} {n} {3 * n // 4} 0 0 0
"""


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for n in MESHES:
        for theta in THETAS:
            (out / f"{name(n, theta)}.in").write_text(pw_input(n, theta))
