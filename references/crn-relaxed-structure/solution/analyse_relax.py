"""Oracle of crn-relaxed-structure: read a pw.x vc-relax output that stopped before it finished and report the
last completed SCF cycle (energy, pressure, total force, Cr moment), whether pw.x's thresholds were met, and the
latest geometry with the Cr-Cr exchange paths of its first two neighbour shells.

Usage: python3 analyse_relax.py relax.out > answer.json

A completed cycle ends with its '!' total energy; the forces, stress and the 'Magnetic moment per site' block of
that cycle come before the next geometry. The latest geometry is the last CELL_PARAMETERS (angstrom) /
ATOMIC_POSITIONS (crystal) pair of the file. Convergence: pw.x's own 'Energy error', 'Gradient error' and
'Cell gradient error' of the last completed cycle against its printed thresholds (the cell criterion is the
pressure against press_conv_thr).
"""

from __future__ import annotations

import itertools
import json
import re
import sys

import numpy as np

RY = 13.605693122994  # eV


def main(path: str) -> None:
    text = open(path).read()
    energies = [float(x) for x in re.findall(r"^!\s+total energy\s+=\s+(-?[\d.]+) Ry", text, re.M)]
    n_done = len(energies)
    upto = text[: [m.end() for m in re.finditer(r"^!\s+total energy.*$", text, re.M)][-1]]
    after = text[len(upto):]
    # forces, stress and the summary of the last completed cycle follow its '!' line
    force = float(re.search(r"Total force =\s+([\d.]+)", after)[1])
    pressure = float(re.search(r"P=\s*(-?[\d.]+)", after)[1])
    errors = {k: float(re.search(rf"{k}\s+=\s+([\d.E+-]+)", after)[1]) for k in ("Energy error", "Gradient error")}
    thr_e = float(re.search(r"energy convergence thresh\.\s*=\s*([\d.E+-]+)", text)[1])
    thr_f = float(re.search(r"force convergence thresh\.\s*=\s*([\d.E+-]+)", text)[1])
    thr_p = float(re.search(r"press convergence thresh\.\s*=\s*([\d.E+-]+)", text)[1])
    converged = errors["Energy error"] < thr_e and errors["Gradient error"] < thr_f and abs(pressure) < thr_p
    magn_block = upto.rsplit("Magnetic moment per site", 1)[1]
    magn = [float(x) for x in re.findall(r"magn:\s+(-?[\d.]+)", magn_block)]
    cell_rows = text.rsplit("CELL_PARAMETERS (angstrom)", 1)[1].strip().splitlines()[:3]
    cell = np.array([[float(x) for x in r.split()] for r in cell_rows])
    atoms = re.findall(r"^(\w+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s*$",
                       text.rsplit("ATOMIC_POSITIONS (crystal)", 1)[1].split("\n\n", 1)[0], re.M)
    labels = [a[0] for a in atoms]
    magn = magn[: len(labels)]
    frac = np.array([[float(x) for x in a[1:]] for a in atoms])
    cr = [i for i, lab in enumerate(labels) if lab.startswith("Cr")]
    n_fu = len(cr)
    b, c, a = sorted(np.linalg.norm(cell, axis=1))
    volume = abs(np.linalg.det(cell)) / n_fu
    cart = frac @ cell
    a0 = (4 * volume) ** (1 / 3)
    pairs: dict[str, list[float]] = {"NN_parallel": [], "NN_antiparallel": [], "NNN_parallel": [], "NNN_antiparallel": []}
    for i in cr:
        for j in cr:
            for R in itertools.product(range(-2, 3), repeat=3):
                if i == j and R == (0, 0, 0):
                    continue
                d = float(np.linalg.norm(cart[j] + np.array(R) @ cell - cart[i]))
                shell = "NN" if abs(d - a0 / 2**0.5) < 0.1 * a0 else "NNN" if abs(d - a0) < 0.1 * a0 else None
                if shell:
                    pairs[f"{shell}_{'parallel' if magn[i] * magn[j] > 0 else 'antiparallel'}"].append(d)
    answer = {
        "completed_scf_cycles": n_done,
        "converged": bool(converged),
        "energy_per_fu_eV": energies[-1] * RY / n_fu,
        "pressure_kbar": pressure,
        "total_force_Ry_bohr": force,
        "cr_moment_muB": float(np.mean([abs(magn[i]) for i in cr])),
        "a_angstrom": float(a),
        "b_angstrom": float(b),
        "c_angstrom": float(c),
        "volume_per_fu_A3": float(volume),
        "paths": {k: {"count_per_cr": len(v) // n_fu, "mean_distance_angstrom": float(np.mean(v))} for k, v in pairs.items()},
    }
    print(json.dumps(answer, indent=1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "relax.out")
