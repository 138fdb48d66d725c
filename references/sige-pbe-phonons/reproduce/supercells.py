"""The precomputed step of sige-pbe-phonons: PBE forces of displaced 16-atom supercells of Si and Ge (pw.x).

Usage: supercells.py OUTDIR [Si|Ge ...]
For each element: phonopy (4.10) builds the 2x2x2 supercell of the 2-atom fcc primitive cell at the PBE lattice
constant and its symmetry-independent displacements (0.02 A; one for the diamond structure); pw.x 6.7 computes
the forces of each displaced supercell. The supercell holds Gamma, X and L exactly. Writes OUTDIR/<El>/phonopy_disp.yaml (phonopy's default units: A, eV/A, amu),
OUTDIR/<El>/disp-NNN/{pw.in,pw.out}, and the measured CPU times.
Settings (pinned): Si  Si.pbe-rrkj.UPF (norm-conserving), ecutwfc 30 Ry, ecutrho 120 Ry, fixed occupations,
                       4x4x4 Monkhorst-Pack k mesh (Gamma included), a0 = 5.4754 A
                   Ge  Ge.pbe-kjpaw.UPF (PAW, 3d in the core), ecutwfc 45 Ry, ecutrho 360 Ry,
                       Marzari-Vanderbilt smearing 0.01 Ry (PBE closes the gap of Ge), 8x8x8 k mesh, a0 = 5.7757 A
                   conv_thr 1e-10 Ry per supercell, tprnfor
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from phonopy import Phonopy
from phonopy.structure.atoms import PhonopyAtoms

PSEUDO = os.environ.get("CMB_PSEUDO_DIR", "/usr/share/espresso/pseudo")
PRIM = np.array([[0.0, 0.5, 0.5], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0]])  # fcc primitive vectors / a
SETTINGS = {
    "Si": {"a0": 5.4754, "mass": 28.0855, "pp": "Si.pbe-rrkj.UPF", "ecutwfc": 30, "ecutrho": 120, "k": 4,
           "occ": ""},
    "Ge": {"a0": 5.7757, "mass": 72.63, "pp": "Ge.pbe-kjpaw.UPF", "ecutwfc": 45, "ecutrho": 360, "k": 8,
           "occ": "  occupations = 'smearing', smearing = 'mv', degauss = 0.01\n"},
}  # fmt: skip
DISTANCE = 0.02


def pw_input(el: str, cell: np.ndarray, positions: np.ndarray, prefix: str) -> str:
    s = SETTINGS[el]
    atoms = "\n".join(f"{el} {x:.12f} {y:.12f} {z:.12f}" for x, y, z in positions)
    rows = "\n".join(" ".join(f"{v:.12f}" for v in row) for row in cell)
    return (
        "&control\n  calculation = 'scf'\n  prefix = '" + prefix + "'\n  outdir = './tmp'\n"
        f"  pseudo_dir = '{PSEUDO}'\n  tprnfor = .true.\n  disk_io = 'none'\n/\n"
        f"&system\n  ibrav = 0\n  nat = {len(positions)}\n  ntyp = 1\n  ecutwfc = {s['ecutwfc']}\n"
        f"  ecutrho = {s['ecutrho']}\n{s['occ']}/\n&electrons\n  conv_thr = 1.0d-10\n  mixing_beta = 0.5\n/\n"
        f"ATOMIC_SPECIES\n{el} {s['mass']} {s['pp']}\nCELL_PARAMETERS angstrom\n{rows}\n"
        f"ATOMIC_POSITIONS angstrom\n{atoms}\nK_POINTS automatic\n{s['k']} {s['k']} {s['k']} 0 0 0\n"
    )


def run(el: str, out: Path) -> dict:
    s = SETTINGS[el]
    a = s["a0"]
    d = out / el
    d.mkdir(parents=True, exist_ok=True)
    unit = PhonopyAtoms(symbols=[el] * 2, cell=PRIM * a, scaled_positions=[[0, 0, 0], [0.25, 0.25, 0.25]],
                        masses=[s["mass"]] * 2)  # fmt: skip
    ph = Phonopy(unit, supercell_matrix=np.eye(3, dtype=int) * 2)
    ph.generate_displacements(distance=DISTANCE)
    ph.save(d / "phonopy_disp.yaml")
    times = []
    for i, sc in enumerate(ph.supercells_with_displacements, start=1):
        run_dir = d / f"disp-{i:03d}"
        run_dir.mkdir(exist_ok=True)
        (run_dir / "pw.in").write_text(pw_input(el, sc.cell, sc.positions, f"{el}{i}"))
        t0 = time.time()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with (run_dir / "pw.out").open("w") as fh:
            subprocess.run(["pw.x", "-in", "pw.in"], cwd=run_dir, stdout=fh, check=True,
                           env={**os.environ, "OMP_NUM_THREADS": "1"})  # fmt: skip
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        times.append({"run": f"{el}/disp-{i:03d}", "cpu_s": round(cpu, 1), "wall_s": round(time.time() - t0, 1)})
        print(json.dumps(times[-1]), flush=True)
    return {"element": el, "runs": times}


def main() -> None:
    out = Path(sys.argv[1]).resolve()
    elements = sys.argv[2:] or ["Si", "Ge"]
    record = [run(el, out) for el in elements]
    (out / f"timing-{'-'.join(elements)}.json").write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
