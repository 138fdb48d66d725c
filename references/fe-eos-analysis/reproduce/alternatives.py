"""Other valid routes through the staged fe-eos-analysis outputs, for the fairness record (fairness.yaml).

Usage: python3 alternatives.py WORKSPACE_DIR

  vinet        a Vinet equation of state fitted in its four parameters instead of Birch-Murnaghan
  bm4          a fourth-order Birch-Murnaghan (a quartic in V^(-2/3)) instead of the third-order form
  moment-cubic the moment at V0 from a cubic through the eleven moments instead of linear interpolation

Prints one answer.json-shaped object per route.
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
EV_A3_GPA = 160.21766208


def curve(ws: Path, xc: str, state: str) -> np.ndarray:
    rows = []
    for path in sorted(ws.glob(f"fe_{xc}_{state}_*.out")):
        text = path.read_text()
        v = float(re.search(r"unit-cell volume\s+=\s+(\S+)", text).group(1)) * BOHR_A**3
        e = float(re.findall(r"^!\s+total energy\s+=\s+(\S+)", text, re.M)[-1]) * RY_EV
        m = re.findall(r"total magnetization\s+=\s+(\S+)", text)
        rows.append((v, e, float(m[-1]) if m else 0.0))
    return np.array(sorted(rows))


def vinet(v, e0, v0, b0, bp):
    x = (v / v0) ** (1 / 3)
    eta = 1.5 * (bp - 1)
    return e0 + 2 * b0 * v0 / (bp - 1) ** 2 * (2 - (5 + 3 * bp * (x - 1) - 3 * x) * np.exp(-eta * (x - 1)))


def fit_vinet(v, e):
    c = np.polyfit(v, e, 2)
    v0 = -c[1] / (2 * c[0])
    p, _ = curve_fit(vinet, v, e, p0=(np.polyval(c, v0), v0, 2 * c[0] * v0, 4.5), maxfev=20000)
    return float(p[0]), float(p[1]), float(p[2])


def fit_bm4(v, e):
    x = v ** (-2 / 3)
    c = np.polyfit(x, e, 4)
    roots = np.roots(np.polyder(c))
    roots = roots[np.isreal(roots)].real
    x0 = roots[(np.polyval(np.polyder(c, 2), roots) > 0) & (roots > 0.8 * x.min()) & (roots < 1.2 * x.max())][0]
    v0 = x0 ** (-3 / 2)
    b0 = v0 * np.polyval(np.polyder(c, 2), x0) * (2 / 3 * v0 ** (-5 / 3)) ** 2
    return float(np.polyval(c, x0)), float(v0), float(b0)


def answer(ws: Path, fit, cubic_moment: bool = False) -> dict:
    out = {}
    for xc in ("pbe", "lda"):
        fm, nm, fcc = (curve(ws, xc, s) for s in ("bcc_fm", "bcc_nm", "fcc_nm"))
        e_fm, v_fm, b_fm = fit(fm[:, 0], fm[:, 1])
        moment = (np.polyval(np.polyfit(fm[:, 0], fm[:, 2], 3), v_fm) if cubic_moment
                  else np.interp(v_fm, fm[:, 0], fm[:, 2]))
        out[xc] = {"a0_bcc_fm_angstrom": round((2 * v_fm) ** (1 / 3), 5), "B0_bcc_fm_GPa": round(b_fm * EV_A3_GPA, 2),
                   "moment_at_V0_muB": round(float(moment), 4),
                   "dE_fcc_nm_meV": round((fit(fcc[:, 0], fcc[:, 1])[0] - e_fm) * 1000, 2),
                   "dE_bcc_nm_meV": round((fit(nm[:, 0], nm[:, 1])[0] - e_fm) * 1000, 2)}
    return out


if __name__ == "__main__":
    ws = Path(sys.argv[1])
    for name, fit, cubic in (("vinet", fit_vinet, False), ("bm4", fit_bm4, False), ("moment-cubic", fit_vinet, True)):
        print(name, json.dumps(answer(ws, fit, cubic)))
