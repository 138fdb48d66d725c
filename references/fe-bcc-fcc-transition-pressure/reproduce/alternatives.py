"""Other routes through the staged outputs of fe-bcc-fcc-transition-pressure, for the fairness record.

Usage: python3 alternatives.py WORKSPACE_DIR

Valid routes (must pass):
  bm3-least-squares  third-order Birch-Murnaghan fitted in its four parameters (scipy), enthalpy crossing
  vinet              Vinet equation of state, four parameters
  murnaghan          Murnaghan equation of state, four parameters
  common-tangent     the reference's fits, the transition from the common tangent (equal slope and intercept)
  bm4                fourth-order Birch-Murnaghan (a quartic in V^(-2/3)), not asked for but close
  compressed-side-7  third-order Birch-Murnaghan over the seven most compressed runs of each curve only
Traps (must fail):
  window-7, window-9 fits over 7 or 9 runs centred on each curve's lowest energy (the compressed runs left out)
  parabola           a parabola E(V) over all eleven runs
  energy-crossing    the volume where the two fitted E(V) curves cross, with the bcc pressure there
  crude-slope        (E0(fcc) - E0(bcc)) / (V0(bcc) - V0(fcc)) from the two fitted minima
  units              the reference pressure left in eV/A^3 and in kbar
Prints one answer.json-shaped object per route.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.optimize import brentq, curve_fit, fsolve

sys.path.insert(0, str(Path(__file__).parent))
from values import EV_A3_GPA, birch_murnaghan, minimum, read_curve, transition  # noqa: E402

Curve = Callable[[float], float]


def bm3(v, e0, v0, b0, bp):
    eta = (v0 / v) ** (2 / 3) - 1
    return e0 + 9 * v0 * b0 / 16 * (eta**3 * bp + eta**2 * (6 - 4 * (v0 / v) ** (2 / 3)))


def vinet(v, e0, v0, b0, bp):
    x = (v / v0) ** (1 / 3)
    eta = 1.5 * (bp - 1)
    return e0 + 2 * b0 * v0 / (bp - 1) ** 2 * (2 - (5 + 3 * bp * (x - 1) - 3 * x) * np.exp(-eta * (x - 1)))


def murnaghan(v, e0, v0, b0, bp):
    return e0 + b0 * v / bp * ((v0 / v) ** bp / (bp - 1) + 1) - v0 * b0 / (bp - 1)


def least_squares(form) -> Callable[[np.ndarray, np.ndarray], tuple[Curve, Curve]]:
    def fit(v: np.ndarray, e: np.ndarray) -> tuple[Curve, Curve]:
        c = np.polyfit(v, e, 2)
        v0 = -c[1] / (2 * c[0])
        p, _ = curve_fit(form, v, e, p0=(np.polyval(c, v0), v0, 2 * c[0] * v0, 4.5), maxfev=40000)

        def energy(x: float) -> float:
            return float(form(x, *p))

        def pressure(x: float, h: float = 1e-5) -> float:
            return -(energy(x + h) - energy(x - h)) / (2 * h)

        return energy, pressure

    return fit


def bm4(v: np.ndarray, e: np.ndarray) -> tuple[Curve, Curve]:
    return birch_murnaghan(v, e, order=4)


def parabola(v: np.ndarray, e: np.ndarray) -> tuple[Curve, Curve]:
    c = np.polyfit(v, e, 2)
    return (lambda x: float(np.polyval(c, x))), (lambda x: float(-np.polyval(np.polyder(c), x)))


def window(c: np.ndarray, n: int) -> np.ndarray:
    i = int(np.argmin(c[:, 1]))
    lo = max(0, min(i - n // 2, len(c) - n))
    return c[lo : lo + n]


def answer(fm, fcc, lfm, lfcc, p_gpa, vb, vf, lda_dh) -> dict:
    return {
        "pbe": {
            "P_transition_GPa": round(p_gpa, 2),
            "V_bcc_fm_A3": round(vb, 4),
            "V_fcc_nm_A3": round(vf, 4),
            "dV_fcc_minus_bcc_A3": round(vf - vb, 4),
            "moment_bcc_fm_muB": round(float(np.interp(vb, fm[:, 0], fm[:, 2])), 4),
        },
        "lda": {"dH0_fcc_minus_bcc_meV": round(lda_dh, 2)},
    }


def route(ws: Path, fit, select=lambda c: c, vlo=7.0, vhi=14.0, plo=0.0, phi=1.0) -> dict:
    fm, fcc = read_curve(ws, "pbe", "bcc_fm"), read_curve(ws, "pbe", "fcc_nm")
    lfm, lfcc = read_curve(ws, "lda", "bcc_fm"), read_curve(ws, "lda", "fcc_nm")
    a, b = select(fm), select(fcc)
    bcc_curve, fcc_curve = fit(a[:, 0], a[:, 1]), fit(b[:, 0], b[:, 1])
    p, vb, vf = transition(bcc_curve, fcc_curve, vlo, vhi, plo, phi)
    la, lb = select(lfm), select(lfcc)
    lda_dh = (minimum(*fit(lb[:, 0], lb[:, 1]), 8.0, 13.0)[1] - minimum(*fit(la[:, 0], la[:, 1]), 8.0, 13.0)[1]) * 1000
    return answer(fm, fcc, lfm, lfcc, p * EV_A3_GPA, vb, vf, lda_dh)


def common_tangent(ws: Path) -> dict:
    fm, fcc = read_curve(ws, "pbe", "bcc_fm"), read_curve(ws, "pbe", "fcc_nm")
    (eb, pb), (ef, pf) = birch_murnaghan(fm[:, 0], fm[:, 1]), birch_murnaghan(fcc[:, 0], fcc[:, 1])

    def equations(x):
        vb, vf = x
        return [pb(vb) - pf(vf), (ef(vf) - eb(vb)) + pb(vb) * (vf - vb)]

    vb, vf = fsolve(equations, [float(fm[0, 0]), float(fcc[0, 0])], xtol=1e-13)
    base = route(ws, birch_murnaghan)
    out = answer(fm, fcc, None, None, pb(vb) * EV_A3_GPA, float(vb), float(vf), 0.0)
    out["lda"] = base["lda"]
    return out


def energy_crossing(ws: Path) -> dict:
    fm, fcc = read_curve(ws, "pbe", "bcc_fm"), read_curve(ws, "pbe", "fcc_nm")
    (eb, pb), (ef, _) = birch_murnaghan(fm[:, 0], fm[:, 1]), birch_murnaghan(fcc[:, 0], fcc[:, 1])
    vx = brentq(lambda v: ef(v) - eb(v), 7.0, float(fm[0, 0]))
    base = route(ws, birch_murnaghan)
    out = answer(fm, fcc, None, None, pb(vx) * EV_A3_GPA, vx, vx, 0.0)
    out["lda"] = base["lda"]
    return out


def crude_slope(ws: Path) -> dict:
    fm, fcc = read_curve(ws, "pbe", "bcc_fm"), read_curve(ws, "pbe", "fcc_nm")
    vb, eb = minimum(*birch_murnaghan(fm[:, 0], fm[:, 1]), 8.0, 13.0)
    vf, ef = minimum(*birch_murnaghan(fcc[:, 0], fcc[:, 1]), 8.0, 13.0)
    base = route(ws, birch_murnaghan)
    out = answer(fm, fcc, None, None, (ef - eb) / (vb - vf) * EV_A3_GPA, vb, vf, 0.0)
    out["lda"] = base["lda"]
    return out


if __name__ == "__main__":
    ws = Path(sys.argv[1])
    routes = {
        "bm3-least-squares": lambda: route(ws, least_squares(bm3)),
        "vinet": lambda: route(ws, least_squares(vinet)),
        "murnaghan": lambda: route(ws, least_squares(murnaghan)),
        "common-tangent": lambda: common_tangent(ws),
        # the quartic's pressure turns over below 8.4 A^3: keep the searches on its monotonic branch
        "bm4": lambda: route(ws, bm4, vlo=8.6, vhi=12.4, plo=0.2, phi=0.42),
        "compressed-side-7": lambda: route(ws, birch_murnaghan, select=lambda c: c[:7]),
        "window-7": lambda: route(ws, birch_murnaghan, select=lambda c: window(c, 7), phi=0.6),
        "window-9": lambda: route(ws, birch_murnaghan, select=lambda c: window(c, 9), phi=0.6),
        "parabola": lambda: route(ws, parabola, vlo=5.0, vhi=20.0, plo=0.0, phi=0.5),
        "energy-crossing": lambda: energy_crossing(ws),
        "crude-slope": lambda: crude_slope(ws),
    }
    for name, make in routes.items():
        print(name, json.dumps(make()))
    ref = route(ws, birch_murnaghan)["pbe"]["P_transition_GPa"]
    print("units", json.dumps({"eV_per_A3": round(ref / EV_A3_GPA, 4), "kbar": round(ref * 10, 1)}))
