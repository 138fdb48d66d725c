"""LAMMPS and phonopy helpers for the classical quasi-harmonic approximation of fcc Cu (from the cu-qha oracle).

At seven lattice constants from -1.5% to +3% around the static equilibrium (the expanded side reaches past the
volume at 1000 K): the static energy per atom (LAMMPS) and the harmonic phonon free energy per atom (phonopy,
finite displacements in a 3x3x3 conventional supercell, forces from LAMMPS, one directory per run). PhonopyQHA
then minimises F(V, T) = E(V) + F_vib(V, T) with a Vinet EOS at each temperature.

Consistency that matters: both energies per the same cell (here the one-atom primitive cell, phonopy's
primitive_matrix "F"); phonopy's free energies are kJ/mol and its QHA expects them so, with E in eV and V in A^3.
phonopy's `thermal_expansion` is the VOLUMETRIC coefficient (1/V)(dV/dT); `bulk_modulus_temperature` is the
isothermal B_T(T) in GPa.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
from phonopy import Phonopy
from phonopy.structure.atoms import PhonopyAtoms

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
STRAINS = np.linspace(-0.015, 0.03, 7)  # relative change of the lattice constant
SUPERCELL = 3
MESH = 20
TEMPERATURES = np.arange(0.0, 1001.0, 10.0)
FCC = [[0, 0, 0], [0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0]]


def lammps(workdir: Path, script: str) -> str:
    """Run one LAMMPS input in its own directory; return its log."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "in.lmp").write_text(script)
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    return (workdir / "log.lammps").read_text()


def result(log: str) -> list[float]:
    """Numbers on the last RESULT line of a log."""
    return [float(v) for v in [ln for ln in log.splitlines() if ln.startswith("RESULT")][-1].split()[1:]]


def relaxed_lattice_constant(potential: Path, runs: Path) -> float:
    """Zero-pressure static lattice constant (box/relax of a 3x3x3 cell)."""
    guess = float(potential.read_text().splitlines()[1].split()[2])
    log = lammps(
        runs / "relax",
        f"units metal\natom_style atomic\nlattice fcc {guess}\nregion b block 0 3 0 3 0 3\ncreate_box 1 b\n"
        f"create_atoms 1 box\npair_style eam\npair_coeff 1 1 {potential}\n"
        "fix r all box/relax iso 0.0 vmax 0.001\nminimize 0 1e-12 10000 100000\n"
        'print "RESULT $(lx/3:%.10f)"\n',
    )
    return result(log)[0]


def energy_per_atom(a: float, potential: Path, workdir: Path) -> float:
    """Static energy per atom (eV) of the perfect crystal at lattice constant a."""
    log = lammps(
        workdir,
        f"units metal\natom_style atomic\nlattice fcc {a:.10f}\nregion b block 0 3 0 3 0 3\ncreate_box 1 b\n"
        f"create_atoms 1 box\npair_style eam\npair_coeff 1 1 {potential}\nrun 0\n"
        'print "RESULT $(pe/atoms:%.12f)"\n',
    )
    return result(log)[0]


def forces(cell: PhonopyAtoms, workdir: Path, potential: Path) -> np.ndarray:
    """LAMMPS forces (eV/A) on an orthorhombic supercell."""
    lx, ly, lz = np.diag(cell.cell)
    atoms = "\n".join(f"{i} 1 {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(cell.positions, 1))
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "cell.data").write_text(
        f"supercell\n\n{len(cell)} atoms\n1 atom types\n\n0 {lx:.12f} xlo xhi\n0 {ly:.12f} ylo yhi\n"
        f"0 {lz:.12f} zlo zhi\n\nMasses\n\n1 63.546\n\nAtoms # atomic\n\n{atoms}\n"
    )
    lammps(
        workdir,
        f"units metal\natom_style atomic\nread_data cell.data\npair_style eam\npair_coeff 1 1 {potential}\n"
        "dump f all custom 1 forces.dump id fx fy fz\ndump_modify f sort id format float %.15e\nrun 0\n",
    )
    rows = (workdir / "forces.dump").read_text().splitlines()[9:]
    return np.array([[float(v) for v in r.split()[1:4]] for r in rows])


def vibrational(a: float, potential: Path, runs: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CLASSICAL harmonic free energy (kJ/mol), entropy and Cv (J/K/mol) per primitive cell at lattice constant a."""
    unit = PhonopyAtoms(symbols=["Cu"] * 4, cell=np.eye(3) * a, scaled_positions=FCC)
    ph = Phonopy(unit, supercell_matrix=np.eye(3, dtype=int) * SUPERCELL, primitive_matrix="F")
    if len(ph.primitive) != 1:
        raise SystemExit("expected the one-atom fcc primitive cell")
    ph.generate_displacements(distance=0.01)
    ph.forces = [forces(sc, runs / f"disp{i}", potential) for i, sc in enumerate(ph.supercells_with_displacements)]
    ph.produce_force_constants()
    ph.symmetrize_force_constants()
    ph.run_mesh([MESH] * 3, is_gamma_center=True)
    ph.run_thermal_properties(temperatures=TEMPERATURES, classical=True)
    tp = ph.thermal_properties
    return tp.free_energy, tp.entropy, tp.heat_capacity
