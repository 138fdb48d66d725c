"""Values behind the fairness cases of crn-relaxed-structure (references/crn-relaxed-structure/fairness.yaml).

Usage: python3 alternatives.py relax.out

  pymatgen-route     pass: pymatgen's Structure and get_all_neighbors on the latest geometry, shells taken within
                     5% (instead of 10%) of a0/sqrt2 and a0, the energy with ASE's Ry
  completed-cycle-geometry  fail: the cell and paths of the geometry at which the last completed cycle ran (the
                     block before the latest one) instead of the latest geometry
  previous-cycle     fail: energy, pressure, force and moment of the fifth cycle (the last one with a geometry
                     block after it counted as incomplete)
  starting-cell      fail: the ideal rock-salt starting cell (crystal axes at the top of the file)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from ase.units import Ry
from pymatgen.core import Lattice, Structure

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_values import parse  # noqa: E402


def paths(cell, names, frac, magn, window):
    s = Structure(Lattice(cell), [n.rstrip("0123456789") for n in names], frac)
    cr = [i for i, site in enumerate(s) if site.specie.symbol == "Cr"]
    v = s.volume / len(cr)
    a0 = (4 * v) ** (1 / 3)
    out = {k: [] for k in ("NN_parallel", "NN_antiparallel", "NNN_parallel", "NNN_antiparallel")}
    for i in cr:
        for nb in s.get_neighbors(s[i], 1.1 * a0):
            if nb.index not in cr:
                continue
            d = nb.nn_distance
            shell = "NN" if abs(d - a0 / 2**0.5) < window * a0 else "NNN" if abs(d - a0) < window * a0 else None
            if shell:
                out[f"{shell}_{'parallel' if magn[i] * magn[nb.index] > 0 else 'antiparallel'}"].append(d)
    b, c, a = sorted(s.lattice.abc)
    res = {"a_angstrom": round(a, 5), "b_angstrom": round(b, 5), "c_angstrom": round(c, 5),
           "volume_per_fu_A3": round(v, 4)}
    for k, ds in out.items():
        res[f"paths.{k}.count_per_cr"] = len(ds) // len(cr)
        res[f"paths.{k}.mean_distance_angstrom"] = round(float(np.mean(ds)), 5)
    return res


def main(path: str) -> None:
    cycles, geoms, _ = parse(path)
    last = cycles[-1]
    magn = last["magn"][:8]
    out = {}
    alt = paths(*geoms[-1], magn, 0.05)
    alt.update({"energy_per_fu_eV": round(last["energy_Ry"] * Ry / 4, 5), "cr_moment_muB": float(np.mean(np.abs(magn[:4])))})
    out["pymatgen-route"] = alt
    out["completed-cycle-geometry"] = paths(*geoms[-2], magn, 0.1)
    prev = cycles[-2]
    out["previous-cycle"] = {"completed_scf_cycles": len(cycles) - 1, "energy_per_fu_eV": round(prev["energy_Ry"] * Ry / 4, 5),
                             "pressure_kbar": prev["pressure"], "total_force_Ry_bohr": prev["force"]}
    text = Path(path).read_text()
    alat = float(text.split("lattice parameter (alat)  =")[1].split()[0]) * 0.529177210903
    start = np.diag([1.0, 0.5, 2**-0.5]) * alat
    frac0 = np.array([[0, 0, 0], [0.5, 0, 0], [0.25, 0.5, 0.5], [0.75, 0.5, 0.5]] + [[0.25, 0.5, 0], [0, 0, 0.5], [0.5, 0, 0.5], [0.75, 0.5, 0]])
    out["starting-cell"] = paths(start, ["Cr1", "Cr2", "Cr1", "Cr2", "N", "N", "N", "N"], frac0, [1, -1, 1, -1], 0.1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
