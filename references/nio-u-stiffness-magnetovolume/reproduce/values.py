"""Reference values of nio-u-stiffness-magnetovolume from the staged pw.x outputs.

Per six-run series: B0 of a nonlinear third-order Birch-Murnaghan fit (scipy curve_fit, four free parameters) of
E (eV) against V (A^3) of the 4-atom cell; the slope of the least-squares line of the mean |magn| of the two Ni
(last 'Magnetic moment per site' block) against ln V. Then the slope of B0 against U over the five series.

Usage: values.py WORKSPACE_DIR [OUT_JSON]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import curve_fit

BOHR_A = 0.529177210903
RY_EV = 13.605693122994
EV_A3_GPA = 160.21766208
SERIES = {"nio_U0": 0.0, "nio_U2": 2.0, "nio_U4": 4.0, "nio_U6": 6.0, "nio_U8": 8.0}
LATTICE = ["4.09", "4.13", "4.17", "4.21", "4.25", "4.29"]


def bm3(v, e0, v0, b0, bp):
    """Third-order Birch-Murnaghan energy."""
    eta = (v0 / v) ** (2 / 3) - 1
    return e0 + 9 * v0 * b0 / 16 * (eta**3 * bp + eta**2 * (6 - 4 * (v0 / v) ** (2 / 3)))


def vinet(v, e0, v0, b0, bp):
    """Vinet energy."""
    x = (v / v0) ** (1 / 3)
    eta = 1.5 * (bp - 1)
    return e0 + 2 * b0 * v0 / (bp - 1) ** 2 * (2 - (5 + 3 * x * (bp - 1) - 3 * bp) * np.exp(-eta * (x - 1)))


def read_run(path: Path) -> tuple[float, float, float, float]:
    """Volume (A^3), energy (eV), Ni moment (muB) and absolute magnetization (muB/cell) of one output."""
    text = path.read_text()
    assert "convergence has been achieved" in text, path
    v = float(re.search(r"unit-cell volume\s+=\s+([\d.]+)", text).group(1)) * BOHR_A**3
    e = float(re.findall(r"^!\s+total energy\s+=\s+(-?[\d.]+)\s+Ry", text, re.M)[-1]) * RY_EV
    block = text[text.rindex("Magnetic moment per site") :]
    magn = [abs(float(x)) for x in re.findall(r"magn:\s+(\S+)", block)[:2]]  # atoms 1, 2 are the Ni
    absm = float(re.findall(r"absolute magnetization\s+=\s+(\S+)", text)[-1])
    return v, e, float(np.mean(magn)), absm


def series_data(ws: Path) -> dict[str, np.ndarray]:
    """Rows (V, E, m, |M|) of the six runs of each series."""
    return {s: np.array([read_run(ws / f"{s}_a{a}.out") for a in LATTICE]) for s in SERIES}


def fit(v, e, model=bm3, fixed_bp=None):
    """EOS fit; returns (V0, B0 in GPa, B0').

    Energies are fitted relative to their minimum: on the raw totals (about -3204 eV, differences of meV) the
    least-squares problem is so ill-conditioned that B0 moved by 0.005 GPa with the start and the machine."""
    e = e - e.min()
    c = np.polyfit(v, e, 2)
    v0 = -c[1] / (2 * c[0])
    p0 = (np.polyval(c, v0), v0, 2 * c[0] * v0, 4.0)
    if fixed_bp is not None:
        p, _ = curve_fit(lambda vv, e0, vv0, b0: model(vv, e0, vv0, b0, fixed_bp), v, e, p0=p0[:3], maxfev=20000)
        return p[1], p[2] * EV_A3_GPA, fixed_bp
    p, _ = curve_fit(model, v, e, p0=p0, maxfev=20000)
    return p[1], p[2] * EV_A3_GPA, p[3]


def values(ws: Path) -> dict:
    """The reference values (keys of reference.yaml) and cross-checks."""
    data = series_data(ws)
    out: dict = {}
    b0s = []
    for name, rows in data.items():
        v, e, m = rows[:, 0], rows[:, 1], rows[:, 2]
        v0, b0, bp = fit(v, e)
        b0s.append(b0)
        key = name.removeprefix("nio_")
        out[f"B0_{key}"] = b0
        out[f"dm_dlnV_{key}"] = float(np.polyfit(np.log(v), m, 1)[0])
        out[f"Bprime_{key}"] = bp
        out[f"a0_{key}"] = (2 * v0) ** (1 / 3)
    out["dB0_dU"] = float(np.polyfit(list(SERIES.values()), b0s, 1)[0])
    return out


if __name__ == "__main__":
    vals = values(Path(sys.argv[1]))
    text = json.dumps(vals, indent=1)
    if len(sys.argv) > 2:
        Path(sys.argv[2]).write_text(text + "\n")
    print(text)
