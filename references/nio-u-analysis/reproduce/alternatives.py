"""Other valid routes through the staged nio-u-analysis outputs, for the fairness record (fairness.yaml).

Usage: python3 alternatives.py WORKSPACE_DIR

  vinet      the equilibrium lattice constant of each series from a Vinet equation of state instead of
             Birch-Murnaghan
  cubic-in-a a cubic polynomial of E against a, minimised in a
  unoccupied-by-count  the band edges from the eigenvalues alone, counting 16 occupied bands per spin (32
             electrons, zero total magnetization), without the printed occupations

Prints the a0 (and gaps) of each route.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import curve_fit

BOHR_A = 0.529177210903


def vinet(v, e0, v0, b0, bp):
    x = (v / v0) ** (1 / 3)
    return e0 + 2 * b0 * v0 / (bp - 1) ** 2 * (2 - (5 + 3 * bp * (x - 1) - 3 * x) * np.exp(-1.5 * (bp - 1) * (x - 1)))


def points(ws: Path, series: str) -> np.ndarray:
    rows = []
    for path in sorted(ws.glob(f"{series}_a*.out")):
        text = path.read_text()
        v = float(re.search(r"unit-cell volume\s+=\s+(\S+)", text).group(1)) * BOHR_A**3
        e = float(re.findall(r"^!\s+total energy\s+=\s+(\S+)", text, re.M)[-1])
        rows.append((v, e))
    return np.array(sorted(rows))


def gap_by_count(text: str, nocc: int = 16) -> float:
    final = text[text.rindex("End of self-consistent calculation"):text.rindex("the Fermi energy")]
    vbm, cbm = -1e9, 1e9
    for block in final.split("bands (ev):")[1:]:
        eig = [float(x) for x in re.findall(r"-?\d+\.\d+", block.split("occupation numbers")[0])]
        vbm, cbm = max(vbm, eig[nocc - 1]), min(cbm, eig[nocc])
    return cbm - vbm


if __name__ == "__main__":
    ws = Path(sys.argv[1])
    out: dict[str, dict] = {"vinet": {}, "cubic-in-a": {}, "unoccupied-by-count": {}}
    for u in (0, 2, 4, 6, 8):
        s = f"nio_U{u}"
        v, e = points(ws, s).T
        c = np.polyfit(v, e, 2)
        v0 = -c[1] / (2 * c[0])
        p, _ = curve_fit(vinet, v, e, p0=(np.polyval(c, v0), v0, 2 * c[0] * v0, 4.5), maxfev=20000)
        out["vinet"][s] = round(float((2 * p[1]) ** (1 / 3)), 5)
        a = (2 * v) ** (1 / 3)
        ca = np.polyfit(a, e, 3)
        roots = np.roots(np.polyder(ca))
        roots = roots[np.isreal(roots)].real
        out["cubic-in-a"][s] = round(float(roots[(roots > a.min()) & (roots < a.max())][0]), 5)
    for u in (0, 2, 4, 6, 7, 8):
        text = (ws / f"nio_U{u}_a4.17.out").read_text()
        out["unoccupied-by-count"][f"nio_U{u}"] = round(gap_by_count(text), 4)
    print(json.dumps(out, indent=1))
