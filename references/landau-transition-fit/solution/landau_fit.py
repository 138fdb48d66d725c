"""Fit the Landau free energy F = a0 (T - T0) P^2 + b P^4 + c P^6 to measured P(T) and classify the transition.

Usage: landau_fit.py SAMPLE=CSV:A0 ...  (e.g. A=sample_A.csv:5.2e5)

Start from the equilibrium condition of the polar phase, dF/dP = 0 with P != 0:
    a0 (T - T0) + 2 b P^2 + 3 c P^4 = 0   <=>   T = T0 - (2b/a0) P^2 - (3c/a0) P^4,
which is linear in (T0, b, c) for a known a0: a least-squares fit over the polar points gives the start. Then
refine by nonlinear least squares on P itself (the measured quantity), with P(T) the global minimum of F. The sign
of b decides the order: b < 0 (with c > 0) is first order, with the transition where F(P_s) = F(0),
Tc = T0 + b^2 / (4 a0 c); b > 0 is second order with Tc = T0. Writes answer.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import least_squares


def p_model(t: np.ndarray, a0: float, t0: float, b: float, c: float) -> np.ndarray:
    """Equilibrium P (global minimum of F) at temperatures t."""
    a = a0 * (t - t0)
    disc = b * b - 3 * a * c
    p2 = np.where(disc >= 0, (-b + np.sqrt(np.clip(disc, 0, None))) / (3 * c), 0.0)
    p2 = np.clip(p2, 0, None)
    f = a * p2 + b * p2**2 + c * p2**3
    return np.where((p2 > 0) & (f < 0), np.sqrt(p2), 0.0)


def analyse(path: str, a0: float) -> dict[str, float | str]:
    """Coefficients, transition temperature and order of one sample."""
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    t, p = data[:, 0], data[:, 1]
    polar = p > 0
    x = np.stack([np.ones(polar.sum()), p[polar] ** 2, p[polar] ** 4], axis=1)
    (t0, s1, s2), *_ = np.linalg.lstsq(x, t[polar], rcond=None)
    start = np.array([t0, -a0 * s1 / 2 / 1e8, -a0 * s2 / 3 / 1e10])  # b in 1e8, c in 1e10 units

    def residual(q: np.ndarray) -> np.ndarray:
        return p_model(t[polar], a0, q[0], q[1] * 1e8, q[2] * 1e10) - p[polar]

    q = least_squares(residual, start, x_scale=[1.0, 0.1, 0.1]).x
    t0, b, c = float(q[0]), float(q[1] * 1e8), float(q[2] * 1e10)
    first = b < 0
    tc = t0 + b * b / (4 * a0 * c) if first else t0
    last_polar, first_para = t[polar].max(), t[~polar & (t > t[polar].max())].min()
    print(
        f"{path}: T0 = {t0:.2f} K, b = {b:.4g}, c = {c:.4g}, Tc = {tc:.2f} K "
        f"(data: polar up to {last_polar:.0f} K, zero from {first_para:.0f} K); linear start {start}"
    )
    return {"T0_K": round(t0, 3), "Tc_K": round(tc, 3), "b": b, "c": c, "order": "first" if first else "second"}


def main() -> None:
    """Analyse every SAMPLE=CSV:A0 argument and write answer.json."""
    answer = {}
    for arg in sys.argv[1:]:
        name, spec = arg.split("=", 1)
        path, a0 = spec.rsplit(":", 1)
        answer[name] = analyse(path, float(a0))
    Path("answer.json").write_text(json.dumps(answer, indent=2) + "\n")
    print(json.dumps(answer, indent=2))


if __name__ == "__main__":
    main()
