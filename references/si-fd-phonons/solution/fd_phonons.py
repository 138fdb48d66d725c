"""Finite-displacement phonons of diamond Si with phonopy (Python API) and pw.x forces.

The phonopy unit cell is the 8-atom conventional cube at the given lattice constant, used as the supercell
itself (supercell matrix = identity) with the fcc primitive matrix given explicitly. Γ and X are commensurate
with the cube, so their frequencies are exact for these forces, whatever the range of the force constants.
pw.x runs each displaced cube in its own folder; its forces (Ry/bohr) are converted to phonopy's default units
(eV/Å). Writes answer.json: Γ optical and X TA/LA/TO frequencies in THz and Cv(300 K) per mole of atoms.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
from phonopy import Phonopy
from phonopy.structure.atoms import PhonopyAtoms

BOHR_A = 0.529177210903
RY_EV = 13.605693122994
RY_PER_BOHR_TO_EV_PER_A = RY_EV / BOHR_A  # 25.711 eV/Å per Ry/bohr
# Reduced coordinates in the reciprocal basis of phonopy's fcc primitive cell ("F": a(0,1/2,1/2), a(1/2,0,1/2),
# a(1/2,1/2,0)): X = (0, 0, 1) 2π/a = (b1 + b2)/2.
Q_GAMMA = (0.0, 0.0, 0.0)
Q_X = (0.5, 0.5, 0.0)
CUBE = [(0, 0, 0), (0, 0.5, 0.5), (0.5, 0, 0.5), (0.5, 0.5, 0)]
PW_IN = """&control
  calculation = 'scf'
  prefix = 'si'
  outdir = './out'
  pseudo_dir = './pseudo'
  tprnfor = .true.
/
&system
  ibrav = 0
  nat = {nat}
  ntyp = 1
  ecutwfc = {ecut}
/
&electrons
  conv_thr = 1.0d-10
/
ATOMIC_SPECIES
Si 28.0855 {pseudo}
CELL_PARAMETERS angstrom
{cell}
ATOMIC_POSITIONS crystal
{positions}
K_POINTS automatic
{k} {k} {k} 0 0 0
"""


def diamond_cube(a0: float) -> PhonopyAtoms:
    """The 8-atom conventional cell of diamond Si."""
    frac = [p for base in CUBE for p in (base, tuple(x + 0.25 for x in base))]
    return PhonopyAtoms(symbols=["Si"] * 8, cell=np.eye(3) * a0, scaled_positions=frac, masses=[28.0855] * 8)


def pw_forces(cell: PhonopyAtoms, folder: Path, pseudo: Path, ecut: float, k: int) -> np.ndarray:
    """Forces (eV/Å) on the atoms of one displaced cell from a pw.x SCF run in its own folder."""
    out = folder / "pw.out"
    if not (out.is_file() and "JOB DONE" in out.read_text()):
        shutil.rmtree(folder, ignore_errors=True)
        (folder / "pseudo").mkdir(parents=True)
        shutil.copyfile(pseudo, folder / "pseudo" / pseudo.name)
        text = PW_IN.format(
            nat=len(cell),
            ecut=ecut,
            k=k,
            pseudo=pseudo.name,
            cell="\n".join(" ".join(f"{x:.10f}" for x in row) for row in cell.cell),
            positions="\n".join("Si " + " ".join(f"{x:.10f}" for x in p) for p in cell.scaled_positions),
        )
        (folder / "pw.in").write_text(text)
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        with out.open("w") as fh:
            subprocess.run(
                ["pw.x", "-in", "pw.in"], cwd=folder, stdout=fh, stderr=subprocess.STDOUT, env=env, check=True
            )
    text = out.read_text()
    if "convergence has been achieved" not in text:
        raise SystemExit(f"{out}: SCF did not converge")
    block = text.split("Forces acting on atoms")[1]
    rows = re.findall(r"atom\s+\d+\s+type\s+\d+\s+force\s+=\s+(\S+)\s+(\S+)\s+(\S+)", block)[: len(cell)]
    return np.array(rows, dtype=float) * RY_PER_BOHR_TO_EV_PER_A


def main() -> None:
    """Displace, compute forces, build force constants, report frequencies and Cv."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--a0", type=float, required=True, help="cubic lattice constant in Å")
    ap.add_argument("--pseudo", type=Path, default=Path("pseudo/Si.pbe-rrkj.UPF"))
    ap.add_argument("--ecut", type=float, default=30.0)
    ap.add_argument("--k", type=int, default=4, help="Gamma-centred k mesh of the 8-atom cube")
    ap.add_argument("--distance", type=float, default=0.01, help="displacement amplitude in Å")
    ap.add_argument("--mesh", type=int, default=20, help="q mesh for the heat capacity")
    ap.add_argument("--workdir", type=Path, default=Path("fd_runs"))
    ap.add_argument("--answer", type=Path, default=Path("answer.json"))
    args = ap.parse_args()

    phonon = Phonopy(diamond_cube(args.a0), supercell_matrix=np.eye(3, dtype=int), primitive_matrix="F")
    phonon.generate_displacements(distance=args.distance)
    cells = phonon.supercells_with_displacements
    forces = []
    for i, cell in enumerate(cells, start=1):
        f = pw_forces(cell, args.workdir / f"disp-{i:03d}", args.pseudo.resolve(), args.ecut, args.k)
        forces.append(f - f.mean(axis=0))  # remove the tiny net force (drift) of the SCF
    phonon.forces = np.array(forces)
    phonon.produce_force_constants()

    phonon.run_qpoints([Q_GAMMA, Q_X])
    gamma, x = np.sort(phonon.qpoints.frequencies, axis=1)
    if abs(gamma[:3]).max() > 0.05:
        raise SystemExit(f"acoustic modes at Gamma are not zero: {gamma[:3]}")
    phonon.run_mesh([args.mesh] * 3, is_gamma_center=True)
    phonon.run_thermal_properties(temperatures=[300.0])
    cv_cell = float(phonon.thermal_properties.heat_capacity[0])  # J/(K mol) per mole of primitive cells
    n_prim = len(phonon.primitive)
    answer = {
        "gamma_optical_THz": round(float(gamma[3:].mean()), 4),
        "X_TA_THz": round(float(x[0:2].mean()), 4),
        "X_LA_THz": round(float(x[2:4].mean()), 4),
        "X_TO_THz": round(float(x[4:6].mean()), 4),
        "Cv_300K_J_per_molK": round(float(cv_cell / n_prim), 3),
    }
    args.answer.write_text(json.dumps(answer, indent=2) + "\n")
    print(f"{len(cells)} displaced cell(s) of {len(cells[0])} atoms; Gamma {np.round(gamma, 4)}; X {np.round(x, 4)}")
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
