"""Reference values of graphite-c-scan from the runs of reproduce.sh, written to values.json.

Usage: fit_reference.py [--json VALUES_JSON] RUNS_DIR

E_b(c) per atom = E_layer/2 - E_bulk(c)/4 (positive = bound), each functional against its own layer in the 20 A
cell. The reference is a quartic polynomial fitted to the PBE-D3 points within 0.6 A of the lowest one: c_eq at
its minimum, E_b there. PBE alone is evaluated at that c_eq with a cubic spline through its own points. Also
printed: cubic and quadratic fits over narrower windows (the spread an agent's fit may have), the layer energy
against the cell height (what a reference layer too close to its images does to E_b), and the binding energy
that a large-c bulk point would give if taken as the separated limit.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
from scipy.interpolate import CubicSpline
from scipy.optimize import minimize_scalar

RY_MEV = 13605.693122994


def energy(path: Path) -> float:
    """Converged total energy (Ry) of one pw.x output."""
    text = path.read_text()
    if "convergence has been achieved" not in text:
        raise SystemExit(f"{path}: not converged")
    return float(re.findall(r"^!\s+total energy\s*=\s*(-?[\d.]+) Ry", text, re.M)[-1])


def fit_min(c: np.ndarray, e: np.ndarray, half_width: float, degree: int) -> tuple[float, float]:
    """Minimum (c, -E) of a polynomial fit of E(c) = -E_b(c) around the lowest point."""
    lowest = c[np.argmin(e)]
    sel = np.abs(c - lowest) <= half_width + 1e-9
    coef = np.polyfit(c[sel], e[sel], degree)
    res = minimize_scalar(lambda x: np.polyval(coef, x), bounds=(c[sel].min(), c[sel].max()), method="bounded")
    return float(res.x), float(-res.fun)


def main() -> None:
    """Fit and print; write values.json with --json."""
    args = sys.argv[1:]
    values_json = None
    if args[:1] == ["--json"]:
        values_json, args = Path(args[1]), args[2:]
    runs = Path(args[0])
    curves = {}
    for f in ("d3", "pbe"):
        e_layer = energy(runs / f"layer_{f}_h20" / "pw.out") / 2
        heights = {int(p.parent.name.split("_h")[1]): p for p in runs.glob(f"layer_{f}_h*/pw.out")}
        shifts = {h: (energy(p) / 2 - e_layer) * RY_MEV for h, p in sorted(heights.items())}
        print(
            f"{f}: layer energy per atom vs cell height (meV/atom, 20 A = 0): "
            + ", ".join(f"{h} A {s:+.2f}" for h, s in shifts.items())
        )
        pts = sorted((float(p.parent.name.split("_c")[1]), energy(p) / 4) for p in runs.glob(f"bulk_{f}_c*/pw.out"))
        c = np.array([p[0] for p in pts])
        eb = np.array([(e_layer - p[1]) * RY_MEV for p in pts])
        curves[f] = (c, eb)
    c, eb = curves["d3"]
    cp, ebp = curves["pbe"]
    for ci, e1, e2 in zip(c, eb, ebp, strict=True):
        print(f"  c = {ci:5.2f} A   E_b(PBE-D3) = {e1:8.3f}   E_b(PBE) = {e2:8.3f} meV/atom")
    c_eq, eb_eq = fit_min(c, -eb, 0.6, 4)
    print(f"reference quartic (+-0.6 A): c_eq = {c_eq:.4f} A, E_b = {eb_eq:.3f} meV/atom")
    for hw, deg in ((0.4, 3), (0.4, 4), (0.3, 2), (0.8, 5)):
        ci, ei = fit_min(c, -eb, hw, deg)
        print(
            f"  degree {deg} over +-{hw} A: c_eq = {ci:.4f} A ({(ci / c_eq - 1) * 100:+.2f}%), "
            f"E_b = {ei:.3f} ({(ei / eb_eq - 1) * 100:+.2f}%)"
        )
    eb_pbe = float(CubicSpline(cp, ebp)(c_eq))
    print(f"PBE alone at c_eq: E_b = {eb_pbe:.3f} meV/atom")
    if values_json is not None:
        values = {
            "c_eq_angstrom": round(c_eq, 4),
            "E_b_meV_per_atom": round(eb_eq, 3),
            "pbe_E_b_at_c_eq_meV_per_atom": round(eb_pbe, 3),
            "pbe_binds_at_c_eq": bool(eb_pbe > 0),
        }
        values_json.write_text(json.dumps(values, indent=2) + "\n")


if __name__ == "__main__":
    main()
