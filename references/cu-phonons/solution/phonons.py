"""Harmonic phonons of fcc Cu by finite displacements: phonopy for the displacements, LAMMPS for the forces.

Prints answer.json: the frequencies at X = (2 pi / a)(1, 0, 0) in THz and the isochoric heat capacity at 20 K
and 300 K per mole of atoms. Each LAMMPS force evaluation runs in its own directory under runs/.

Units: LAMMPS `units metal` gives forces in eV/A; phonopy's default unit conversion (eV, A, amu) then yields
frequencies in THz (nu, not omega). phonopy's thermal properties are per mole of *primitive cells*, so they are
divided by the number of atoms of the primitive cell that phonopy used.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
from phonopy import Phonopy
from phonopy.structure.atoms import PhonopyAtoms

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
A0 = 3.615  # zero-temperature, zero-pressure lattice constant of the potential (given in the task)
SUPERCELL = 3  # 3x3x3 conventional cells = 108 atoms, 10.8 A > 2 x 4.95 A cutoff
MESH = 24
DISPLACEMENT = 0.01  # A


def lammps_forces(cell: PhonopyAtoms, workdir: Path, potential: Path) -> np.ndarray:
    """Forces (eV/A) on every atom of an orthorhombic supercell, from one LAMMPS `run 0` in its own folder."""
    lengths = np.diag(cell.cell)
    if not np.allclose(cell.cell, np.diag(lengths)):
        raise ValueError("this writer handles orthorhombic boxes only")
    workdir.mkdir(parents=True, exist_ok=True)
    lines = [
        "fcc Cu supercell from phonopy",
        "",
        f"{len(cell)} atoms",
        "1 atom types",
        "",
        *(f"0.0 {length:.12f} {lo}lo {lo}hi" for length, lo in zip(lengths, "xyz", strict=True)),
        "",
        "Masses",
        "",
        "1 63.546",
        "",
        "Atoms # atomic",
        "",
        *(f"{i} 1 {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(cell.positions, start=1)),
    ]
    (workdir / "cell.data").write_text("\n".join(lines) + "\n")
    (workdir / "in.lmp").write_text(
        "units metal\natom_style atomic\nboundary p p p\nread_data cell.data\n"
        f"pair_style eam\npair_coeff 1 1 {potential}\n"
        "dump f all custom 1 forces.dump id fx fy fz\ndump_modify f sort id format float %.15e\nrun 0\n"
    )
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    rows = (workdir / "forces.dump").read_text().splitlines()[9:]
    forces = np.array([[float(v) for v in row.split()[1:4]] for row in rows])
    if forces.shape != (len(cell), 3):
        raise SystemExit(f"{workdir}: expected {len(cell)} force rows, found {forces.shape}")
    return forces


def phonons(potential: Path, a: float, runs: Path) -> Phonopy:
    """Force constants of fcc Cu at lattice constant a (conventional cell in, fcc primitive cell used)."""
    unitcell = PhonopyAtoms(
        symbols=["Cu"] * 4,
        cell=np.eye(3) * a,
        scaled_positions=[[0, 0, 0], [0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0]],
    )
    ph = Phonopy(unitcell, supercell_matrix=np.eye(3, dtype=int) * SUPERCELL, primitive_matrix="F")
    ph.generate_displacements(distance=DISPLACEMENT)
    ph.forces = [
        lammps_forces(sc, runs / f"disp-{i:03d}", potential) for i, sc in enumerate(ph.supercells_with_displacements)
    ]
    ph.produce_force_constants()
    ph.symmetrize_force_constants()
    return ph


def main() -> None:
    """Compute and print the answer."""
    warnings.simplefilter("ignore")  # phonopy deprecation chatter
    potential = Path(sys.argv[1]).resolve()
    a = float(sys.argv[2]) if len(sys.argv) > 2 else A0  # a workflow passes the lattice constant it relaxed
    ph = phonons(potential, a, Path("runs").resolve())
    # X = (1/a)(1, 0, 0) in phonopy's convention (no 2 pi); reduced coordinates of the primitive reciprocal basis
    q_cart = np.array([1.0, 0.0, 0.0]) / a
    q_reduced = ph.primitive.cell @ q_cart  # (0, 1/2, 1/2) for the fcc primitive vectors phonopy uses
    ph.run_qpoints([q_reduced])
    freqs = np.sort(ph.qpoints.frequencies[0])
    ph.run_mesh([MESH] * 3, is_gamma_center=True)
    ph.run_thermal_properties(temperatures=[20.0, 300.0])
    per_atom = ph.thermal_properties.heat_capacity / len(ph.primitive)  # J/K per mole of atoms
    answer = {
        "nu_X_TA_THz": round(float(freqs[0]), 4),
        "nu_X_LA_THz": round(float(freqs[2]), 4),
        "Cv_20K_J_per_K_mol": round(float(per_atom[0]), 4),
        "Cv_300K_J_per_K_mol": round(float(per_atom[1]), 4),
    }
    print(f"X point reduced {q_reduced}, all frequencies {freqs}", file=sys.stderr)
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
