"""The wurtzite / layered-hexagonal boundary of Zn1-xMgxO from linearly interpolated Landau coefficients.

Usage: phase_boundary.py [--grid] landau_coefficients.json

alpha, beta, gamma are taken linear in the Mg fraction x through the two cells of the file. x_alpha_zero solves
alpha(x) = 0; the polar minimum Ps^2 = [-beta + sqrt(beta^2 - 3 alpha gamma)] / (3 gamma) exists until
beta^2 = 3 alpha gamma (x_spinodal); the boundary x_boundary solves F(Ps(x), x) = 0. Root finding by brentq;
--grid instead scans x on a 1e-4 grid and P on a fine grid (the fairness record's alternative). The order is
first when beta < 0 at the boundary. Writes answer.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import brentq


def main(argv: list[str]) -> None:
    """Solve the three conditions and write answer.json."""
    grid = "--grid" in argv
    data = json.loads(Path([a for a in argv if not a.startswith("--")][0]).read_text())
    c0, c1 = sorted((v for v in data.values() if isinstance(v, dict) and "x_Mg" in v), key=lambda c: c["x_Mg"])

    def coef(x: float, k: str) -> float:
        return c0[k] + (c1[k] - c0[k]) * (x - c0["x_Mg"]) / (c1["x_Mg"] - c0["x_Mg"])

    def disc(x: float) -> float:
        return coef(x, "beta") ** 2 - 3 * coef(x, "alpha") * coef(x, "gamma")

    def ps2(x: float) -> float:
        return (-coef(x, "beta") + np.sqrt(max(disc(x), 0.0))) / (3 * coef(x, "gamma"))

    def fmin(x: float) -> float:
        p2 = ps2(x)
        return coef(x, "alpha") * p2 + coef(x, "beta") * p2**2 + coef(x, "gamma") * p2**3

    if grid:
        xs = np.arange(0.0, 1.0, 1e-4)
        p = np.linspace(1e-4, 1.5, 15001)
        depth = []
        for x in xs:
            f = coef(x, "alpha") * p**2 + coef(x, "beta") * p**4 + coef(x, "gamma") * p**6
            df = np.gradient(f, p)
            minima = np.where((df[:-1] < 0) & (df[1:] >= 0))[0]
            depth.append(f[minima].min() if minima.size else np.nan)
        depth = np.array(depth)
        x_alpha = float(xs[np.argmax([coef(x, "alpha") >= 0 for x in xs])])
        x_b = float(xs[np.argmax(depth >= 0)])
        x_s = float(xs[np.argmax(np.isnan(depth) & (xs > x_alpha))])
    else:
        x_alpha = brentq(lambda x: coef(x, "alpha"), -1.0, 2.0)
        x_s = brentq(disc, x_alpha, 2.0)
        x_b = brentq(fmin, c1["x_Mg"], x_s)
    answer = {
        "x_alpha_zero": round(x_alpha, 5),
        "x_boundary": round(x_b, 5),
        "x_spinodal": round(x_s, 5),
        "Ps_at_boundary_C_per_m2": round(float(np.sqrt(ps2(x_b))), 5),
        "order": "first" if coef(x_b, "beta") < 0 else "second",
    }
    Path("answer.json").write_text(json.dumps(answer, indent=1) + "\n")
    print(json.dumps(answer))


if __name__ == "__main__":
    main(sys.argv[1:])
