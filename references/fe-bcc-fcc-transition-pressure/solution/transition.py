"""Oracle for fe-bcc-fcc-transition-pressure, reading the staged pw.x outputs in the working folder.

For each output: the volume per atom ('unit-cell volume', bohr^3, over the number of atoms), the converged total
energy per atom ('!' line, Ry) and, for the ferromagnetic runs, the last total magnetization per atom. Each curve
gets a least-squares fit of the third-order Birch-Murnaghan energy in its four parameters (scipy) over its eleven
runs, with its analytic pressure. The PBE transition: the enthalpy difference H_fcc(P) - H_bcc(P), each phase at
the volume where its fitted pressure is P, bracketed on a grid of pressures and solved with brentq; the bcc
moment there interpolated linearly in volume. LDA: H(fcc) - H(bcc) at P = 0, the difference of the fitted E0.
A different route from the reference's (a cubic in V^(-2/3) with a continuous pressure search).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
from scipy.optimize import brentq, curve_fit

RY_EV = 13.605693123
BOHR_A = 0.529177210903
EV_A3_GPA = 160.21766208


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
    eta = (v0 / v) ** (2 / 3) - 1
    return e0 + 9 * v0 * b0 / 16 * (eta**3 * bp + eta**2 * (6 - 4 * (v0 / v) ** (2 / 3)))


def bm3_pressure(v, e0, v0, b0, bp):
    r = (v0 / v) ** (1 / 3)
    return 1.5 * b0 * (r**7 - r**5) * (1 + 0.75 * (bp - 4) * (r**2 - 1))


def fit(curve: np.ndarray) -> np.ndarray:
    v, e = curve[:, 0], curve[:, 1]
    c = np.polyfit(v, e, 2)
    v0 = -c[1] / (2 * c[0])
    p, _ = curve_fit(bm3, v, e, p0=(np.polyval(c, v0), v0, 2 * c[0] * v0, 4.5), maxfev=20000)
    return p


def volume_at(p: np.ndarray, pressure: float) -> float:
    return brentq(lambda v: bm3_pressure(v, *p) - pressure, 0.6 * p[1], 1.4 * p[1])


def enthalpy(p: np.ndarray, pressure: float) -> float:
    v = volume_at(p, pressure)
    return bm3(v, *p) + pressure * v


curves = {
    (xc, s): np.array(sorted(read(f) for f in Path().glob(f"fe_{xc}_{s}_*.out")))
    for xc in ("pbe", "lda")
    for s in ("bcc_fm", "fcc_nm")
}
for key, c in curves.items():
    if len(c) != 11:
        raise SystemExit(f"{key}: {len(c)} outputs, expected 11")
fits = {key: fit(c) for key, c in curves.items()}

bcc, fcc = fits["pbe", "bcc_fm"], fits["pbe", "fcc_nm"]
dh = lambda P: enthalpy(fcc, P) - enthalpy(bcc, P)  # noqa: E731
grid = np.linspace(0.0, 150.0, 151) / EV_A3_GPA
signs = np.sign([dh(P) for P in grid])
i = int(np.nonzero(signs[:-1] != signs[1:])[0][0])
pt = brentq(dh, grid[i], grid[i + 1], xtol=1e-12)
vb, vf = volume_at(bcc, pt), volume_at(fcc, pt)
fm = curves["pbe", "bcc_fm"]
answer = {
    "pbe": {
        "P_transition_GPa": round(pt * EV_A3_GPA, 2),
        "V_bcc_fm_A3": round(vb, 4),
        "V_fcc_nm_A3": round(vf, 4),
        "dV_fcc_minus_bcc_A3": round(vf - vb, 4),
        "moment_bcc_fm_muB": round(float(np.interp(vb, fm[:, 0], fm[:, 2])), 4),
    },
    "lda": {"dH0_fcc_minus_bcc_meV": round((fits["lda", "fcc_nm"][0] - fits["lda", "bcc_fm"][0]) * 1000, 2)},
}
Path("answer.json").write_text(json.dumps(answer, indent=1) + "\n")
print(json.dumps(answer, indent=1))
