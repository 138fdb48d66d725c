"""Gamma and X phonon frequencies of diamond Si with the Stillinger-Weber potential: LAMMPS forces, phonopy.

1. Relax the diamond cube at zero pressure with LAMMPS (box/relax): a0 of the potential, not experiment's.
2. Finite displacements (phonopy, 0.01 A) in a 3x3x3 supercell of the 8-atom cube (216 atoms); forces from
   one LAMMPS `rerun` over all displaced copies.
3. Dynamical matrix at Gamma and at X = (2 pi / a0)(1, 0, 0); frequencies in THz, as computed: the potential's
   frequencies, not corrected towards experiment.
4. The same at a0 (1 +- 1%): mode Grueneisen parameters -d ln nu / d ln V by central differences.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
from phonopy import Phonopy
from phonopy.structure.atoms import PhonopyAtoms

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lmp_forces import forces  # noqa: E402

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
MASS = 28.0855
CUBE = np.array(
    [
        [0, 0, 0],
        [0, 0.5, 0.5],
        [0.5, 0, 0.5],
        [0.5, 0.5, 0],
        [0.25, 0.25, 0.25],
        [0.25, 0.75, 0.75],
        [0.75, 0.25, 0.75],
        [0.75, 0.75, 0.25],
    ]
)


def relaxed_a0(workdir: Path, potential: Path) -> float:
    """Zero-pressure lattice constant of the diamond cube (3x3x3 cells)."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "in.lmp").write_text(
        "units metal\nboundary p p p\natom_style atomic\nlattice diamond 5.4\nregion box block 0 3 0 3 0 3\n"
        "create_box 1 box\ncreate_atoms 1 box\nmass 1 28.0855\n"
        f"pair_style sw\npair_coeff * * {potential} Si\nthermo_style custom step pe lx press\n"
        "fix r all box/relax iso 0.0 vmax 0.001\nminimize 1e-14 1e-10 10000 100000\nunfix r\n"
        "minimize 1e-14 1e-10 10000 100000\n"
        'print "RESULT $(lx/3:%.10f) $(press:%.6f)"\n'
    )
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    line = [ln for ln in (workdir / "log.lammps").read_text().splitlines() if ln.startswith("RESULT")][-1]
    return float(line.split()[1])


def frequencies(a0: float, potential: Path, runs: Path) -> tuple[np.ndarray, np.ndarray]:
    """Sorted frequencies (THz) at Gamma and at X = (2 pi / a0)(1, 0, 0) of the crystal with lattice constant a0."""
    unitcell = PhonopyAtoms(symbols=["Si"] * 8, cell=np.eye(3) * a0, scaled_positions=CUBE, masses=[MASS] * 8)
    # primitive_matrix "F": the fcc primitive cell (2 atoms), given explicitly rather than left to "auto"
    phonon = Phonopy(unitcell, supercell_matrix=np.eye(3, dtype=int) * 3, primitive_matrix="F")
    phonon.generate_displacements(distance=0.01)
    supercells = phonon.supercells_with_displacements
    phonon.forces = forces(runs / f"forces-a{a0:.6f}", supercells[0].cell, [s.positions for s in supercells], "sw",
                           potential)  # fmt: skip
    phonon.produce_force_constants()
    phonon.symmetrize_force_constants()
    # q in reduced coordinates of the primitive reciprocal lattice: q_red = A_prim . q_cart (phonopy: no 2 pi)
    prim = phonon.primitive.cell
    q_gamma = np.zeros(3)
    q_x = prim @ np.array([1.0 / a0, 0.0, 0.0])
    phonon.run_qpoints([q_gamma, q_x])
    nu_gamma, nu_x = np.sort(phonon.qpoints.frequencies, axis=1)
    return nu_gamma, nu_x


def main() -> None:
    """Relax, displace, compute forces, and print answer.json."""
    potential = Path("Si.sw").resolve()
    runs = Path("runs").resolve()
    # an optional first argument gives a0 already determined (the workflow passes the one of its first step)
    a0 = float(sys.argv[1]) if len(sys.argv) > 1 else relaxed_a0(runs / "relax", potential)
    nu_gamma, nu_x = frequencies(a0, potential, runs)
    # mode Grueneisen parameters from +-1% in a (V ~ a^3), central differences
    g_plus, x_plus = frequencies(a0 * 1.01, potential, runs)
    g_minus, x_minus = frequencies(a0 * 0.99, potential, runs)
    dlnv = 3 * np.log(1.01 / 0.99)
    gamma_opt = -np.log(g_plus[3:].mean() / g_minus[3:].mean()) / dlnv
    gamma_ta = -np.log(x_plus[:2].mean() / x_minus[:2].mean()) / dlnv
    print(
        f"a0 = {a0:.6f} A; Gamma: {np.round(nu_gamma, 4)} THz; X: {np.round(nu_x, 4)} THz; "
        f"gamma(Gamma opt) {gamma_opt:.4f}, gamma(X TA) {gamma_ta:.4f}",
        file=sys.stderr,
    )
    answer = {
        "a0_angstrom": round(a0, 6),
        "Gamma_optical_THz": round(float(nu_gamma[3:].mean()), 4),
        "X_TA_THz": round(float(nu_x[0:2].mean()), 4),
        "X_LA_THz": round(float(nu_x[2:4].mean()), 4),
        "X_TO_THz": round(float(nu_x[4:6].mean()), 4),
        "gamma_Gamma_optical": round(float(gamma_opt), 4),
        "gamma_X_TA": round(float(gamma_ta), 4),
    }
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
