"""Valid analysis routes and traps of graphite-interlayer-stiffness, from the staged PBE-D3 scan.

Usage: alternatives.py WORKSPACE       prints JSON: {case: {d2E_dc2_eV_per_A2, omega_B2g_cm1, gruneisen_B2g}}
Every case is one full answer computed from the staged files. Valid routes: other polynomial degrees and windows,
a Morse form and two equations of state written in c (Vinet, third-order Birch-Murnaghan), derivatives at the
lowest grid point. Traps (`trap:`): unit and counting slips in the curvature, wrong mode models, the Grueneisen
parameter without its 1/2 or its sign, the pressure derivative of C33 in its place, a parabola (no third
derivative) and finite differences of the raw grid. `info:` cases are measured and not failing cases.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.optimize import curve_fit, minimize_scalar

sys.path.insert(0, str(Path(__file__).resolve().parent))
from values import RY_EV, answer, omega_cm1, poly_fit, scan, values  # noqa: E402


def derivs(f: Callable[[float], float], lo: float, hi: float) -> tuple[float, float, float]:
    """(minimum, f'', f''') of a smooth fitted function, by central differences of the fit (h = 0.01 A)."""
    x0 = float(minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-9}).x)
    h = 0.01
    e2 = (f(x0 + h) - 2 * f(x0) + f(x0 - h)) / h**2
    e3 = (f(x0 + 2 * h) - 2 * f(x0 + h) + 2 * f(x0 - h) - f(x0 - 2 * h)) / (2 * h**3)
    return x0, e2, e3


def morse(x, d, k, x0, e0):  # noqa: ANN001, ANN201
    """Morse well of depth d, width 1/k, minimum x0 and offset e0."""
    return d * (1 - np.exp(-k * (x - x0))) ** 2 + e0


def vinet(x, e0, b0, bp, x0):  # noqa: ANN001, ANN201
    """Vinet energy with c in the place of the volume."""
    eta = (x / x0) ** (1 / 3)
    decay = np.exp(-1.5 * (bp - 1) * (eta - 1))
    return e0 + 2 * b0 * x0 / (bp - 1) ** 2 * (2 - (5 + 3 * bp * (eta - 1) - 3 * eta) * decay)


def birch(x, e0, b0, bp, x0):  # noqa: ANN001, ANN201
    """Third-order Birch-Murnaghan energy with c in the place of the volume."""
    f = (x0 / x) ** (2 / 3) - 1
    return e0 + 9 * x0 * b0 / 16 * (f**3 * bp + f**2 * (6 - 4 * (x0 / x) ** (2 / 3)))


def form_fit(form, p0, c: np.ndarray, e: np.ndarray, half: float | None) -> tuple[float, float, float]:  # noqa: ANN001
    """(c_eq, E'', E''') of a fitted form over the runs within `half` A of the lowest one (all when None)."""
    low = c[np.argmin(e)]
    sel = np.ones_like(c, bool) if half is None else np.abs(c - low) <= half + 1e-3
    p, _ = curve_fit(form, c[sel], e[sel], p0=p0, maxfev=20000)
    return derivs(lambda x: float(form(x, *p)), c[sel].min(), c[sel].max())


def alternatives(ws: Path) -> dict[str, dict[str, float]]:
    """Every case as a full answer: the reference, the valid routes, the traps, info and recall."""
    c, e, nat, mass, _ = scan(ws)
    ref = values(ws)
    c0, e2, e3 = ref["c_eq_angstrom"], ref["d2E_dc2_eV_per_A2"], ref["d3E_dc3_eV_per_A3"]
    base = answer(c0, e2, e3, mass, nat)
    out: dict[str, dict[str, float]] = {"reference": base}
    # --- valid routes
    for deg, half in ((3, 0.4), (3, 0.5), (3, 0.6), (4, 0.4), (4, 0.6), (5, 0.9), (6, 0.4), (6, 0.8), (6, 0.9)):
        out[f"degree-{deg}-within-{half}"] = answer(*poly_fit(c, e, deg, half), mass, nat)
    out["morse-within-0.6"] = answer(*form_fit(morse, [0.17, 1.0, 7.0, 0.0], c, e, 0.6), mass, nat)
    out["morse-whole-scan"] = answer(*form_fit(morse, [0.17, 1.0, 7.0, 0.0], c, e, None), mass, nat)
    out["vinet-in-c"] = answer(*form_fit(vinet, [0.0, 0.8, 14.0, 7.0], c, e, None), mass, nat)
    out["birch-murnaghan-in-c-within-0.6"] = answer(*form_fit(birch, [0.0, 0.8, 14.0, 7.0], c, e, 0.6), mass, nat)
    low = c[np.argmin(e)]
    coef = np.polyfit(c[np.abs(c - low) <= 0.6 + 1e-3] - low, e[np.abs(c - low) <= 0.6 + 1e-3], 5)
    out["derivatives-at-lowest-run"] = answer(
        low, float(np.polyval(np.polyder(coef, 2), 0.0)), float(np.polyval(np.polyder(coef, 3), 0.0)), mass, nat
    )
    # --- traps
    w = base["omega_B2g_cm1"]
    g = base["gruneisen_B2g"]
    out["trap:curvature-per-atom"] = base | {"d2E_dc2_eV_per_A2": e2 / nat, "omega_B2g_cm1": omega_cm1(e2 / nat, mass)}
    out["trap:curvature-per-layer"] = base | {"d2E_dc2_eV_per_A2": e2 / 2, "omega_B2g_cm1": omega_cm1(e2 / 2, mass)}
    out["trap:curvature-against-d"] = base | {"d2E_dc2_eV_per_A2": 4 * e2, "omega_B2g_cm1": omega_cm1(4 * e2, mass)}
    e2_ry = e2 / RY_EV
    out["trap:curvature-in-rydberg"] = base | {"d2E_dc2_eV_per_A2": e2_ry, "omega_B2g_cm1": omega_cm1(e2_ry, mass)}
    # one spring per cell (an isolated bilayer: omega^2 = 2k/M), or the cell's four atoms as the layer mass
    out["trap:isolated-bilayer"] = base | {"omega_B2g_cm1": w / np.sqrt(2)}
    # the cell curvature as the force constant of one two-body oscillator of reduced mass M/2
    out["trap:two-body-cell-curvature"] = base | {"omega_B2g_cm1": w / 2}
    out["trap:angular-frequency"] = base | {"omega_B2g_cm1": w * 2 * np.pi}
    out["trap:gruneisen-without-half"] = base | {"gruneisen_B2g": 2 * g}
    out["trap:gruneisen-sign"] = base | {"gruneisen_B2g": -g}
    out["trap:pressure-derivative-of-C33"] = base | {"gruneisen_B2g": 2 * g - 1}
    out["trap:parabola-within-0.4"] = answer(*poly_fit(c, e, 2, 0.4), mass, nat)
    i = int(np.argmin(e))
    h = float(c[i + 1] - c[i])
    fd2 = (e[i + 1] - 2 * e[i] + e[i - 1]) / h**2
    fd3 = (e[i + 2] - 2 * e[i + 1] + 2 * e[i - 1] - e[i - 2]) / (2 * h**3)
    out["trap:finite-differences-of-the-grid"] = answer(float(c[i]), float(fd2), float(fd3), mass, nat)
    # measured, not failing: gamma from C33(c) = (c/A) E'' with the density and spacing held at c_eq
    out["info:gamma-from-C33-at-fixed-density"] = base | {"gruneisen_B2g": g - 0.5}
    out["recall-literature"] = {"d2E_dc2_eV_per_A2": 0.1893, "omega_B2g_cm1": 127.0, "gruneisen_B2g": 5.5}
    return out


def main() -> None:
    """Print every case as JSON."""
    print(json.dumps(alternatives(Path(sys.argv[1])), indent=2))


if __name__ == "__main__":
    main()
