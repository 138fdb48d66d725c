"""Oracle analysis of fe-magnetovolume-coupling, reading the staged pw.x outputs of a folder.

Usage: magnetovolume.py WORKSPACE > answer.json
For each output: the volume per atom ('unit-cell volume', bohr^3, over the number of atoms), the converged total
energy per atom ('!' line, Ry) and, for the ferromagnetic runs, the last total magnetization per atom. Each curve
gets a least-squares fit of the third-order Birch-Murnaghan energy in its four parameters (scipy) over its eleven
runs. The expansion V0(FM) - V0(NM) and its percentage of V0(NM); the non-magnetic fit evaluated at V0(FM) minus
the ferromagnet's E0; for LDA the slope of a cubic in ln V fitted to the moments of the nine runs nearest V0(FM).
A different route from the reference's (a cubic in V^(-2/3); a quadratic through seven moments).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import curve_fit

RY_EV = 13.605693123
BOHR_A = 0.529177210903


def read(path: Path) -> tuple[float, float, float]:
    text = path.read_text()
    if "convergence has been achieved" not in text:
        raise SystemExit(f"{path.name}: not converged")
    nat = int(re.search(r"number of atoms/cell\s+=\s+(\d+)", text).group(1))
    volume = float(re.search(r"unit-cell volume\s+=\s+([\d.]+)\s+\(a\.u\.\)\^3", text).group(1)) * BOHR_A**3
    energy = float(re.findall(r"^!\s+total energy\s+=\s+(-?[\d.]+)\s+Ry", text, re.M)[-1]) * RY_EV
    mags = re.findall(r"total magnetization\s+=\s+(-?[\d.]+)\s+Bohr mag/cell", text)
    return volume / nat, energy / nat, (float(mags[-1]) / nat if mags else 0.0)


def bm3(v, e0, v0, b0, bp):
    eta = (v0 / v) ** (2 / 3)
    return e0 + 9 * v0 * b0 / 16 * ((eta - 1) ** 3 * bp + (eta - 1) ** 2 * (6 - 4 * eta))


def fit(curve: np.ndarray) -> np.ndarray:
    v, e = curve[:, 0], curve[:, 1]
    c = np.polyfit(v, e, 2)
    v0 = -c[1] / (2 * c[0])
    p, _ = curve_fit(bm3, v, e, p0=(np.polyval(c, v0), v0, 2 * c[0] * v0, 4.5), maxfev=40000)
    return p


def main() -> None:
    ws = Path(sys.argv[1])
    answer: dict[str, dict[str, float]] = {}
    for xc in ("pbe", "lda"):
        fm = np.array(sorted(read(p) for p in ws.glob(f"fe_{xc}_bcc_fm_*.out")))
        nm = np.array(sorted(read(p) for p in ws.glob(f"fe_{xc}_bcc_nm_*.out")))
        pf, pn = fit(fm), fit(nm)
        v_fm, v_nm = float(pf[1]), float(pn[1])
        answer[xc] = {
            "dV_fm_minus_nm_A3": v_fm - v_nm,
            "dV_percent": 100 * (v_fm - v_nm) / v_nm,
            "dE_nm_minus_fm_at_V0_meV": float(bm3(v_fm, *pn) - pf[0]) * 1000,
        }
        if xc == "lda":
            near = np.sort(np.argsort(np.abs(fm[:, 0] - v_fm))[:9])
            c = np.polyfit(np.log(fm[near, 0]), fm[near, 2], 3)
            answer[xc]["dmu_dlnV_muB"] = float(np.polyval(np.polyder(c), np.log(v_fm)))
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
