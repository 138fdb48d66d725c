"""Valid routes and traps of fe-magnetovolume-coupling, from the staged pw.x outputs.

Usage: python3 alternatives.py WORKSPACE_DIR     prints JSON: {case: answer.json-shaped object}

Every case is one full answer computed from the staged files, so the fairness record and the test module can grade
it as it stands. Keys: valid routes by name, `trap:<name>` for errors that must fail, `info:<name>` for routes
measured for the QC record that are neither (outside the prompt's rules, or harmless).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import curve_fit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from values import BOHR_A, RY_EV, birch_murnaghan, coupling, dmu_dlnv, read_curve  # noqa: E402


def bm3(v, e0, v0, b0, bp):
    eta = (v0 / v) ** (2 / 3)
    return e0 + 9 * v0 * b0 / 16 * ((eta - 1) ** 3 * bp + (eta - 1) ** 2 * (6 - 4 * eta))


def vinet(v, e0, v0, b0, bp):
    x = (v / v0) ** (1 / 3)
    return e0 + 2 * b0 * v0 / (bp - 1) ** 2 * (2 - (5 + 3 * bp * (x - 1) - 3 * x) * np.exp(-1.5 * (bp - 1) * (x - 1)))


def murnaghan(v, e0, v0, b0, bp):
    return e0 + b0 * v / bp * ((v0 / v) ** bp / (bp - 1) + 1) - v0 * b0 / (bp - 1)


def least_squares(form) -> Callable:
    def fit(v: np.ndarray, e: np.ndarray) -> tuple[Callable[[float], float], float]:
        c = np.polyfit(v, e, 2)
        v0 = -c[1] / (2 * c[0])
        p, _ = curve_fit(form, v, e, p0=(np.polyval(c, v0), v0, 2 * c[0] * v0, 4.5), maxfev=40000)
        return (lambda x: float(form(x, *p))), float(p[1])

    return fit


def polynomial_in_v(order: int) -> Callable:
    def fit(v: np.ndarray, e: np.ndarray) -> tuple[Callable[[float], float], float]:
        c = np.polyfit(v, e, order)
        roots = np.roots(np.polyder(c))
        real = [r.real for r in roots if abs(r.imag) < 1e-9 and np.polyval(np.polyder(c, 2), r.real) > 0]
        v0 = min(real, key=lambda r: abs(r - v[np.argmin(e)]))
        return (lambda x: float(np.polyval(c, x))), float(v0)

    return fit


def window(n: int, inner: Callable) -> Callable:
    """`inner` over the n runs centred on the curve's lowest energy."""

    def fit(v: np.ndarray, e: np.ndarray):
        i = int(np.argmin(e))
        lo = max(0, min(i - n // 2, len(v) - n))
        return inner(v[lo : lo + n], e[lo : lo + n])

    return fit


def answer(pbe: dict[str, float], lda: dict[str, float], dmu: float | None = None) -> dict[str, Any]:
    keys = ("dV_fm_minus_nm_A3", "dV_percent", "dE_nm_minus_fm_at_V0_meV")
    return {
        "pbe": {k: pbe[k] for k in keys},
        "lda": {k: lda[k] for k in keys} | {"dmu_dlnV_muB": lda["dmu_dlnV_muB"] if dmu is None else dmu},
    }


def alternatives(ws: Path) -> dict[str, dict[str, Any]]:
    curves = {xc: (read_curve(ws, xc, "bcc_fm"), read_curve(ws, xc, "bcc_nm")) for xc in ("pbe", "lda")}

    def route(fit: Callable = birch_murnaghan) -> dict[str, dict[str, float]]:
        return {xc: coupling(*curves[xc], fit=fit) for xc in curves}

    ref = route()
    out: dict[str, dict[str, Any]] = {"reference": answer(ref["pbe"], ref["lda"])}
    fits = {
        "bm3-least-squares": least_squares(bm3),
        "vinet": least_squares(vinet),
        "murnaghan": least_squares(murnaghan),
        "bm4": lambda v, e: birch_murnaghan(v, e, 4),
        "cubic-in-V": polynomial_in_v(3),
        "quartic-in-V": polynomial_in_v(4),
        "window-9": window(9, birch_murnaghan),
        "window-7": window(7, birch_murnaghan),
        "vinet-window-7": window(7, least_squares(vinet)),
    }
    for name, fit in fits.items():
        r = route(fit)
        out[name] = answer(r["pbe"], r["lda"])

    # the non-magnetic energy at V0(FM) read off the two runs that bracket it, the ferromagnet's from its fit
    interp = {}
    for xc, (fm, nm) in curves.items():
        r = dict(ref[xc])
        e_fm, v0 = birch_murnaghan(fm[:, 0], fm[:, 1])
        r["dE_nm_minus_fm_at_V0_meV"] = (float(np.interp(v0, nm[:, 0], nm[:, 1])) - e_fm(v0)) * 1000
        interp[xc] = r
    out["nm-energy-between-runs"] = answer(interp["pbe"], interp["lda"])

    # the moment's slope: other local or global fits of mu against ln V (or V, times V0) over five or more runs
    lda_fm = curves["lda"][0]
    v, m, v0 = lda_fm[:, 0], lda_fm[:, 2], ref["lda"]["V0_fm_A3"]
    moment_routes = {
        "moment-line-5": dict(n=5, degree=1),
        "moment-line-all": dict(n=11, degree=1),
        "moment-quadratic-5": dict(n=5, degree=2),
        "moment-cubic-9": dict(n=9, degree=3),
        "moment-cubic-all": dict(n=11, degree=3),
        "moment-line-in-V-5": dict(n=5, degree=1, log=False),
        "moment-line-in-V-all": dict(n=11, degree=1, log=False),
        "moment-quadratic-in-V-all": dict(n=11, degree=2, log=False),
    }
    for name, kw in moment_routes.items():
        out[name] = answer(ref["pbe"], ref["lda"], dmu_dlnv(v, m, v0, **kw))

    # ------------------------------------------------------------------------------------------------ traps
    def edit(xc_keys: dict[str, dict[str, float]]) -> dict[str, Any]:
        doc = json.loads(json.dumps(out["reference"]))
        for xc, kv in xc_keys.items():
            doc[xc].update(kv)
        return doc

    def both(key: str, f: Callable[[str], float]) -> dict[str, dict[str, float]]:
        return {xc: {key: f(xc)} for xc in ("pbe", "lda")}

    dv = "dV_fm_minus_nm_A3"
    de = "dE_nm_minus_fm_at_V0_meV"
    pct = "dV_percent"
    out["trap:volumes-in-bohr3"] = edit(both(dv, lambda xc: ref[xc][dv] / BOHR_A**3))
    out["trap:conventional-cube"] = edit(both(dv, lambda xc: 2 * ref[xc][dv]))
    out["trap:volume-change-sign-flipped"] = edit(both(dv, lambda xc: -ref[xc][dv]))
    out["trap:percent-of-fm-volume"] = edit(both(pct, lambda xc: 100 * ref[xc][dv] / ref[xc]["V0_fm_A3"]))
    out["trap:fraction-not-percent"] = edit(both(pct, lambda xc: ref[xc][pct] / 100))
    out["trap:difference-of-minima"] = edit(both(de, lambda xc: ref[xc]["dE_between_minima_meV"]))
    at_nm = {}
    for xc, (fm, nm) in curves.items():
        (e_fm, _), (e_nm, v_nm) = birch_murnaghan(fm[:, 0], fm[:, 1]), birch_murnaghan(nm[:, 0], nm[:, 1])
        at_nm[xc] = (e_nm(v_nm) - e_fm(v_nm)) * 1000
    out["trap:energy-at-nm-volume"] = edit(both(de, lambda xc: at_nm[xc]))
    out["trap:energy-in-mry"] = edit(both(de, lambda xc: ref[xc][de] / RY_EV))
    out["trap:energy-sign-flipped"] = edit(both(de, lambda xc: -ref[xc][de]))
    parab = route(polynomial_in_v(2))
    out["trap:parabola-all-runs"] = answer(parab["pbe"], parab["lda"])
    mu = ref["lda"]["dmu_dlnV_muB"]
    lda_mu = ref["lda"]["moment_at_V0_muB"]
    out["trap:dmu-per-cubic-angstrom"] = edit({"lda": {"dmu_dlnV_muB": mu / v0}})
    out["trap:dlnmu-dlnV"] = edit({"lda": {"dmu_dlnV_muB": mu / lda_mu}})
    out["trap:log10-volume"] = edit({"lda": {"dmu_dlnV_muB": mu * np.log(10)}})
    out["trap:per-ln-lattice-constant"] = edit({"lda": {"dmu_dlnV_muB": 3 * mu}})

    # ------------------------------------------------------------------------------------------------ info
    i = int(np.searchsorted(v, v0))
    two_run = (m[i] - m[i - 1]) / (np.log(v[i]) - np.log(v[i - 1]))
    out["info:moment-two-bracketing-runs"] = edit({"lda": {"dmu_dlnV_muB": float(two_run)}})
    absolute = read_curve(ws, "lda", "bcc_fm", key="absolute")
    out["info:absolute-magnetization"] = edit({"lda": {"dmu_dlnV_muB": dmu_dlnv(v, absolute[:, 2], v0)}})
    p5 = route(window(5, polynomial_in_v(2)))
    out["info:parabola-5-runs"] = answer(p5["pbe"], p5["lda"])
    pbe_fm = curves["pbe"][0]
    pv0 = ref["pbe"]["V0_fm_A3"]
    out["info:pbe-dmu-dlnV-spread"] = {
        name: dmu_dlnv(pbe_fm[:, 0], pbe_fm[:, 2], pv0, **kw) for name, kw in moment_routes.items()
    } | {"reference-rule": ref["pbe"]["dmu_dlnV_muB"]}
    return out


if __name__ == "__main__":
    print(json.dumps(alternatives(Path(sys.argv[1])), indent=1))
