"""Reference values of crn-relaxed-structure, read independently of the oracle's regular expressions: one pass over
relax.out line by line collecting each completed SCF cycle (its '!' energy, total force, pressure, pw.x's
energy and gradient errors and its site moments) and every geometry block, then ASE's neighbour list on the
latest geometry.

Usage: python3 reference_values.py relax.out [N_CYCLES] > values.json

N_CYCLES (default: all completed) is the cycle the values are taken at, and the geometry is the one written
after it: the staged run was stopped by its time limit during its seventh cycle, so a reproduction that runs
longer gives the same values with N_CYCLES = 6.
"""

from __future__ import annotations

import json
import sys

import numpy as np
from ase import Atoms
from ase.neighborlist import neighbor_list

RY = 13.605693122994


def parse(path: str) -> tuple[list[dict], list[tuple[np.ndarray, list[str], np.ndarray]], dict]:
    lines = open(path).read().splitlines()
    cycles: list[dict] = []
    geoms: list[tuple[np.ndarray, list[str], np.ndarray]] = []
    thr: dict[str, float] = {}
    cur: dict = {}
    k = 0
    while k < len(lines):
        ln = lines[k]
        s = ln.strip()
        if "convergence thresh." in s and "=" in s:
            thr[s.split()[0]] = float(s.split("=")[1])
        elif s.startswith("Magnetic moment per site"):
            cur["magn"] = []
            k += 1
            while lines[k].strip().startswith("atom:"):
                cur["magn"].append(float(lines[k].split("magn:")[1].split()[0]))
                k += 1
            continue
        elif ln.startswith("!"):
            cur["energy_Ry"] = float(s.split("=")[1].split()[0])
            cycles.append(cur)
            cur = {"magn": cur.get("magn")}
        elif s.startswith("Total force =") and cycles:
            cycles[-1]["force"] = float(s.split("=")[1].split()[0])
        elif "P=" in s and cycles:
            cycles[-1]["pressure"] = float(s.split("P=")[1])
        elif s.startswith("Energy error") and cycles:
            cycles[-1]["de"] = float(s.split("=")[1])
        elif s.startswith("Gradient error") and cycles:
            cycles[-1]["df"] = float(s.split("=")[1])
        elif s == "CELL_PARAMETERS (angstrom)":
            cell = np.array([[float(x) for x in lines[k + i].split()] for i in (1, 2, 3)])
            k += 4
            while not lines[k].startswith("ATOMIC_POSITIONS"):
                k += 1
            names, frac = [], []
            k += 1
            while len(lines[k].split()) == 4:
                names.append(lines[k].split()[0])
                frac.append([float(x) for x in lines[k].split()[1:]])
                k += 1
            geoms.append((cell, names, np.array(frac)))
            for c in cycles:
                c.setdefault("geometry_after", len(geoms) - 1)
            continue
        k += 1
    return cycles, geoms, thr


def main(path: str, n_cycles: int | None) -> None:
    cycles, geoms, thr = parse(path)
    n = n_cycles or len(cycles)
    last = cycles[n - 1]
    cell, names, frac = geoms[n - 1]  # the geometry BFGS wrote after cycle n
    magn = np.array(last["magn"][: len(names)])
    atoms = Atoms([x.rstrip("0123456789") for x in names], scaled_positions=frac, cell=cell, pbc=True)
    cr = [i for i, s in enumerate(atoms.get_chemical_symbols()) if s == "Cr"]
    n_fu = len(cr)
    b, c, a = sorted(atoms.cell.lengths())
    volume = atoms.get_volume() / n_fu
    a0 = (4 * volume) ** (1 / 3)
    classes: dict[str, list[float]] = {k: [] for k in ("NN_parallel", "NN_antiparallel", "NNN_parallel", "NNN_antiparallel")}
    for i, j, d in zip(*neighbor_list("ijd", atoms, 1.1 * a0)):
        if i in cr and j in cr:
            shell = "NN" if abs(d - a0 / np.sqrt(2)) < 0.1 * a0 else "NNN" if abs(d - a0) < 0.1 * a0 else None
            if shell:
                classes[f"{shell}_{'parallel' if magn[i] * magn[j] > 0 else 'antiparallel'}"].append(float(d))
    converged = last["de"] < thr["energy"] and last["df"] < thr["force"] and abs(last["pressure"]) < thr["press"]
    values = {
        "completed_scf_cycles": n,
        "converged": bool(converged),
        "energy_per_fu_eV": round(last["energy_Ry"] * RY / n_fu, 5),
        "pressure_kbar": last["pressure"],
        "total_force_Ry_bohr": last["force"],
        "cr_moment_muB": round(float(np.mean(np.abs(magn[cr]))), 4),
        "a_angstrom": round(float(a), 5),
        "b_angstrom": round(float(b), 5),
        "c_angstrom": round(float(c), 5),
        "volume_per_fu_A3": round(float(volume), 4),
        "thresholds": thr,
        "errors_last_cycle": {"energy_Ry": last["de"], "gradient_Ry_bohr": last["df"]},
    }
    for key, ds in classes.items():
        values[f"{key}_count"] = len(ds) // n_fu
        values[f"{key}_distance_angstrom"] = round(float(np.mean(ds)), 5)
    print(json.dumps(values, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else None)
