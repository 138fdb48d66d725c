"""Oracle for fe-eos-analysis: Birch-Murnaghan fits of the 66 staged pw.x outputs, read as they are.

For each output: the volume per atom (unit-cell volume, bohr^3, over the number of atoms), the converged total
energy per atom ('!' line, Ry) and, for the ferromagnetic runs, the last total magnetization per atom. For each of
the six curves a least-squares fit of the third-order Birch-Murnaghan energy in its four parameters (scipy), started
from a parabola; from the bcc ferromagnet a0 = (2 V0)^(1/3), B0 and the moment interpolated linearly at V0; the phase
energy differences between the fitted minima. A different route from the reference's (a cubic in V^(-2/3)).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
from scipy.optimize import curve_fit

RY_EV = 13.605693123
BOHR_A = 0.529177210903
EV_A3_GPA = 160.21766208


def read(path: Path) -> tuple[float, float, float]:
    text = path.read_text()
    nat = int(re.search(r"number of atoms/cell\s+=\s+(\d+)", text).group(1))
    volume = float(re.search(r"unit-cell volume\s+=\s+([\d.]+)\s+\(a\.u\.\)\^3", text).group(1)) * BOHR_A**3
    if "convergence has been achieved" not in text:
        raise SystemExit(f"{path.name}: not converged")
    energy = float(re.findall(r"^!\s+total energy\s+=\s+(-?[\d.]+)\s+Ry", text, re.M)[-1]) * RY_EV
    mags = re.findall(r"total magnetization\s+=\s+(-?[\d.]+)\s+Bohr mag/cell", text)
    return volume / nat, energy / nat, (float(mags[-1]) / nat if mags else 0.0)


def bm3(v, e0, v0, b0, bp):
    eta = (v0 / v) ** (2 / 3) - 1
    return e0 + 9 * v0 * b0 / 16 * (eta**3 * bp + eta**2 * (6 - 4 * (v0 / v) ** (2 / 3)))


def fit(v: np.ndarray, e: np.ndarray) -> tuple[float, float, float]:
    c = np.polyfit(v, e, 2)
    v0 = -c[1] / (2 * c[0])
    start = (float(np.polyval(c, v0)), float(v0), float(2 * c[0] * v0), 4.5)
    (e0, v0, b0, _), _ = curve_fit(bm3, v, e, p0=start, maxfev=20000)
    return float(e0), float(v0), float(b0)


answer: dict[str, dict[str, float]] = {}
for xc in ("pbe", "lda"):
    curves = {}
    for state in ("bcc_fm", "bcc_nm", "fcc_nm"):
        pts = sorted(read(p) for p in Path(".").glob(f"fe_{xc}_{state}_*.out"))
        if len(pts) != 11:
            raise SystemExit(f"{xc} {state}: {len(pts)} outputs, expected 11")
        curves[state] = np.array(pts)
    e_fm, v_fm, b_fm = fit(curves["bcc_fm"][:, 0], curves["bcc_fm"][:, 1])
    e_fcc = fit(curves["fcc_nm"][:, 0], curves["fcc_nm"][:, 1])[0]
    e_nm = fit(curves["bcc_nm"][:, 0], curves["bcc_nm"][:, 1])[0]
    answer[xc] = {
        "a0_bcc_fm_angstrom": round((2 * v_fm) ** (1 / 3), 5),
        "B0_bcc_fm_GPa": round(b_fm * EV_A3_GPA, 2),
        "moment_at_V0_muB": round(float(np.interp(v_fm, curves["bcc_fm"][:, 0], curves["bcc_fm"][:, 2])), 4),
        "dE_fcc_nm_meV": round((e_fcc - e_fm) * 1000, 2),
        "dE_bcc_nm_meV": round((e_nm - e_fm) * 1000, 2),
    }
Path("answer.json").write_text(json.dumps(answer, indent=1) + "\n")
print(json.dumps(answer, indent=1))
