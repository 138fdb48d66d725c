"""Reference phonon frequencies at X and heat capacities of fcc Cu (Foiles u3 EAM) at a = 3.615 A.

Finite displacements with phonopy (API), forces from LAMMPS (`run 0`, one directory per displaced supercell).
Reference: 4x4x4 conventional supercell (256 atoms), displacement 0.01 A, 40x40x40 Gamma-centred mesh.
Printed for the record: the 2x2x2 and 3x3x3 supercells and meshes from 4^3 to 40^3 (convergence), and an
independent estimate of the X frequencies from ASE's own EAM code and ASE's Phonons class.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from phonopy import Phonopy
from phonopy.structure.atoms import PhonopyAtoms

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
A0 = 3.615
TEMPERATURES = [20.0, 300.0]


def forces(cell: PhonopyAtoms, workdir: Path, potential: Path) -> np.ndarray:
    """LAMMPS forces on an orthorhombic supercell, in its own directory."""
    workdir.mkdir(parents=True, exist_ok=True)
    lx, ly, lz = np.diag(cell.cell)
    atoms = "\n".join(f"{i} 1 {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(cell.positions, 1))
    (workdir / "cell.data").write_text(
        f"phonopy supercell\n\n{len(cell)} atoms\n1 atom types\n\n0 {lx:.12f} xlo xhi\n0 {ly:.12f} ylo yhi\n"
        f"0 {lz:.12f} zlo zhi\n\nMasses\n\n1 63.546\n\nAtoms # atomic\n\n{atoms}\n"
    )
    (workdir / "in.lmp").write_text(
        "units metal\natom_style atomic\nboundary p p p\nread_data cell.data\n"
        f"pair_style eam\npair_coeff 1 1 {potential}\n"
        "dump f all custom 1 forces.dump id fx fy fz\ndump_modify f sort id format float %.15e\nrun 0\n"
    )
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    rows = (workdir / "forces.dump").read_text().splitlines()[9:]
    return np.array([[float(v) for v in r.split()[1:4]] for r in rows])


def phonopy_run(potential: Path, n: int, runs: Path) -> Phonopy:
    """Force constants from an n x n x n conventional supercell."""
    unit = PhonopyAtoms(
        symbols=["Cu"] * 4,
        cell=np.eye(3) * A0,
        scaled_positions=[[0, 0, 0], [0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0]],
    )
    ph = Phonopy(unit, supercell_matrix=np.eye(3, dtype=int) * n, primitive_matrix="F")
    ph.generate_displacements(distance=0.01)
    ph.forces = [
        forces(sc, runs / f"sc{n}-disp-{i:03d}", potential) for i, sc in enumerate(ph.supercells_with_displacements)
    ]
    ph.produce_force_constants()
    ph.symmetrize_force_constants()
    return ph


def observables(ph: Phonopy, mesh: int) -> dict[str, float]:
    """X frequencies (THz) and Cv per mole of atoms (J/K/mol)."""
    q = ph.primitive.cell @ (np.array([1.0, 0.0, 0.0]) / A0)
    ph.run_qpoints([q])
    f = np.sort(ph.qpoints.frequencies[0])
    ph.run_mesh([mesh] * 3, is_gamma_center=True)
    ph.run_thermal_properties(temperatures=TEMPERATURES)
    cv = ph.thermal_properties.heat_capacity / len(ph.primitive)
    return {
        "nu_X_TA_THz": float(f[0]),
        "nu_X_LA_THz": float(f[2]),
        "Cv_20K_J_per_K_mol": float(cv[0]),
        "Cv_300K_J_per_K_mol": float(cv[1]),
    }


def ase_cross_check(potential: Path) -> list[float]:
    """X frequencies from ASE's EAM calculator and ASE's Phonons (4x4x4 primitive supercell)."""
    from ase.build import bulk
    from ase.calculators.eam import EAM
    from ase.phonons import Phonons

    prim = bulk("Cu", "fcc", a=A0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            ph = Phonons(prim, EAM(potential=str(potential)), supercell=(4, 4, 4), delta=0.01, name=f"{tmp}/ph")
            ph.run()
            ph.read(acoustic=True)
            x = np.array([0.0, 0.5, 0.5])  # X in ASE's reduced coordinates of the primitive reciprocal cell
            energies = ph.band_structure([x])[0]  # eV
    return sorted(float(e) / 4.135667696e-3 for e in energies)  # eV -> THz (h = 4.135667696e-3 eV/THz)


def main() -> None:
    """Print convergence and cross-checks to stderr, the reference values as JSON to stdout."""
    warnings.simplefilter("ignore")
    potential, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    runs = out / "runs"
    for n in (2, 3, 4):
        t0 = time.perf_counter()
        ph = phonopy_run(potential, n, runs)
        obs = observables(ph, 40)
        print(f"{n}x{n}x{n} ({4 * n**3} atoms, {time.perf_counter() - t0:.1f} s): {obs}", file=sys.stderr)
    for mesh in (4, 8, 12, 16, 24, 40):
        print(f"  4x4x4, mesh {mesh}^3: {observables(ph, mesh)}", file=sys.stderr)
    reference = observables(ph, 40)
    try:
        print(f"ASE EAM + ase.phonons, X (THz): {ase_cross_check(potential)}", file=sys.stderr)
    except ImportError:
        print("ASE not available: cross-check skipped", file=sys.stderr)
    json.dump({k: round(v, 4) for k, v in reference.items()}, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
