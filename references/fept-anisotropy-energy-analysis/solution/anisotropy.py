"""Oracle analysis of fept-anisotropy-energy-analysis, reading the staged pw.x outputs of a folder.

Usage: anisotropy.py WORKSPACE > answer.json
For each of the four runs: the converged total energy (the last line starting with '!', Ry) and the last total
magnetization vector. The anisotropy energy E[100] - E[001] per formula unit (one Fe and one Pt per cell) on each
mesh; K over the primitive cell's volume, here rebuilt from the lattice in the output (celldm(1) and the third
lattice vector) rather than read from 'unit-cell volume'; the anisotropy field 2 dE / |m| with the moment of the
dense mesh's [001] run.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

RY_EV = 13.605693122994
BOHR_A = 0.529177210903
EV_J = 1.602176634e-19
MU_B_EV_T = 5.7883818060e-5


def read(path: Path) -> tuple[float, np.ndarray, float]:
    """Converged energy (Ry), last total magnetization (muB) and cell volume (A^3) of one output."""
    text = path.read_text()
    assert "convergence has been achieved" in text, path.name
    energy = float(re.findall(r"^!\s+total energy\s+=\s+(-?[\d.]+)\s+Ry", text, re.M)[-1])
    m = np.array(re.findall(r"total magnetization\s+=\s+(\S+)\s+(\S+)\s+(\S+)\s+Bohr", text)[-1], float)
    alat = float(re.search(r"lattice parameter \(alat\)\s+=\s+([\d.]+)", text).group(1))
    rows = [re.search(rf"a\({i}\) = \(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)", text).groups() for i in (1, 2, 3)]
    volume = abs(np.linalg.det(np.array(rows, float))) * (alat * BOHR_A) ** 3
    return energy, m, volume


def main(ws: Path) -> dict:
    """The answer from the four outputs of a folder."""
    runs = {stem: read(ws / f"fept_{stem}.out") for stem in ("k08_t00", "k08_t90", "k12_t00", "k12_t90")}
    mae = {k: (runs[f"{k}_t90"][0] - runs[f"{k}_t00"][0]) * RY_EV * 1e3 for k in ("k08", "k12")}
    _, m001, volume = runs["k12_t00"]
    k_mj = mae["k12"] * 1e-3 * EV_J / (volume * 1e-30) / 1e6
    field = 2 * mae["k12"] * 1e-3 / (float(np.linalg.norm(m001)) * MU_B_EV_T)
    return {
        "mae_meV_per_fu": round(mae["k12"], 4),
        "mae_k8_meV_per_fu": round(mae["k08"], 4),
        "mae_MJ_per_m3": round(k_mj, 3),
        "anisotropy_field_T": round(field, 2),
        "easy_axis": "001" if mae["k12"] > 0 else "100",
    }


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1])), indent=1))
