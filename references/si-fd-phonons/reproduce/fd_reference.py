"""Reference values of si-fd-phonons: finite displacements with phonopy's Quantum ESPRESSO units and pw.x forces.

Usage: fd_reference.py PSEUDO OUTDIR

A code path independent of the oracle's (solution/fd_phonons.py): the phonopy unit cell is the 2-atom primitive
cell of pw.x's ibrav = 2 in bohr, the supercell matrix builds the 8-atom cube from it, and phonopy works in its
Quantum ESPRESSO units (bohr, Ry/bohr, its own THz factor), so pw.x forces go in unconverted. Pinned settings:
a0 = 5.4755 A, displacement 0.02 bohr (phonopy's default for QE, 0.0106 A), ecutwfc 30 Ry, Gamma-centred 4x4x4
k mesh for the cube, conv_thr 1e-10, Cv on a Gamma-centred 20x20x20 q mesh.

  OUTDIR/runs/cube/disp-NNN/      pw.x runs of the pinned setting (one folder each)
  OUTDIR/values.json              gamma_optical_THz, X_TA_THz, X_LA_THz, X_TO_THz, Cv_300K_J_per_molK
Cross-checks, printed (skipped with CMB_REPRODUCE_QUICK=1): a 16-atom 2x2x2 supercell of the primitive cell
(Gamma and X are commensurate with it too) and the cube with a 6x6x6 k mesh.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
from phonopy import Phonopy
from phonopy.structure.atoms import PhonopyAtoms

BOHR_A = 0.529177210903
A0_BOHR = 5.4755 / BOHR_A
# pw.x's ibrav = 2 vectors, in units of a0: a1 = (-1,0,1)/2, a2 = (0,1,1)/2, a3 = (-1,1,0)/2.
PRIMITIVE = 0.5 * np.array([[-1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [-1.0, 1.0, 0.0]])
TO_CUBE = [[-1, 1, -1], [-1, 1, 1], [1, 1, -1]]  # TO_CUBE @ PRIMITIVE = identity
# Reciprocal basis of those vectors (2pi/a): b1 = (-1,-1,1), b2 = (1,1,1), b3 = (-1,1,-1); X = (0,0,1) = (b1+b2)/2.
Q_X = (0.5, 0.5, 0.0)
TEMPLATE = """&control
  calculation = 'scf', prefix = 'si', outdir = './out', pseudo_dir = './pseudo', tprnfor = .true.
/
&system
  ibrav = 0, nat = {nat}, ntyp = 1, ecutwfc = 30
/
&electrons
  conv_thr = 1.0d-10
/
ATOMIC_SPECIES
Si 28.0855 Si.pbe-rrkj.UPF
CELL_PARAMETERS bohr
{cell}
ATOMIC_POSITIONS crystal
{positions}
K_POINTS automatic
{k} {k} {k} 0 0 0
"""


def forces(cell: PhonopyAtoms, folder: Path, pseudo: Path, k: int) -> np.ndarray:
    """pw.x forces in Ry/bohr, one run in its own folder."""
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "pseudo").mkdir(parents=True)
    shutil.copyfile(pseudo, folder / "pseudo" / "Si.pbe-rrkj.UPF")
    (folder / "pw.in").write_text(
        TEMPLATE.format(
            nat=len(cell),
            k=k,
            cell="\n".join(" ".join(f"{x:.10f}" for x in row) for row in cell.cell),
            positions="\n".join("Si " + " ".join(f"{x:.10f}" for x in p) for p in cell.scaled_positions),
        )
    )
    with (folder / "pw.out").open("w") as fh:
        subprocess.run(
            ["pw.x", "-in", "pw.in"],
            cwd=folder,
            stdout=fh,
            stderr=subprocess.STDOUT,
            check=True,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
    text = (folder / "pw.out").read_text()
    assert "convergence has been achieved" in text, folder
    block = text.split("Forces acting on atoms")[1]
    rows = re.findall(r"atom\s+\d+\s+type\s+\d+\s+force\s+=\s+(\S+)\s+(\S+)\s+(\S+)", block)[: len(cell)]
    return np.array(rows, dtype=float)


def phonons(out: Path, pseudo: Path, supercell: list[list[int]], k: int) -> dict[str, float]:
    """Frequencies at Gamma and X (THz) and Cv(300 K) per mole of atoms for one setting."""
    unit = PhonopyAtoms(
        symbols=["Si", "Si"],
        cell=PRIMITIVE * A0_BOHR,
        scaled_positions=[[0, 0, 0], [0.25, 0.25, 0.25]],
        masses=[28.0855, 28.0855],
    )
    phonon = Phonopy(unit, supercell_matrix=supercell, primitive_matrix="P", calculator="qe")
    phonon.generate_displacements(distance=0.02)
    cells = phonon.supercells_with_displacements
    sets = [forces(c, out / f"disp-{i:03d}", pseudo, k) for i, c in enumerate(cells, start=1)]
    phonon.forces = np.array([f - f.mean(axis=0) for f in sets])
    phonon.produce_force_constants()
    phonon.run_qpoints([(0, 0, 0), Q_X])
    gamma, x = np.sort(phonon.qpoints.frequencies, axis=1)
    phonon.run_mesh([20, 20, 20], is_gamma_center=True)
    phonon.run_thermal_properties(temperatures=[300.0])
    cv = float(phonon.thermal_properties.heat_capacity[0]) / len(phonon.primitive)
    print(f"  {len(cells)} cell(s) of {len(cells[0])} atoms; Gamma {np.round(gamma, 4)}; X {np.round(x, 4)}")
    return {
        "gamma_optical_THz": round(float(gamma[3:].mean()), 4),
        "X_TA_THz": round(float(x[:2].mean()), 4),
        "X_LA_THz": round(float(x[2:4].mean()), 4),
        "X_TO_THz": round(float(x[4:].mean()), 4),
        "Cv_300K_J_per_molK": round(cv, 3),
    }


def main() -> None:
    """Pinned setting, then the cross-checks."""
    pseudo, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    pinned = phonons(out / "runs" / "cube", pseudo, TO_CUBE, 4)
    (out / "values.json").write_text(json.dumps(pinned, indent=2) + "\n")
    print("pinned: 8-atom cube, 4x4x4 k:", pinned, flush=True)
    if os.environ.get("CMB_REPRODUCE_QUICK") != "1":
        print("cube, 6x6x6 k:", phonons(out / "runs" / "cube-k6", pseudo, TO_CUBE, 6), flush=True)
        print(
            "16-atom 2x2x2 primitive supercell, 4x4x4 k:",
            phonons(out / "runs" / "prim222", pseudo, [[2, 0, 0], [0, 2, 0], [0, 0, 2]], 4),
            flush=True,
        )


if __name__ == "__main__":
    main()
