"""Generate the P(T) data staged for landau-transition-fit from Landau free energies, and the reference values.

Usage: python3 make_data.py OUTDIR

F(P, T) = a0 (T - T0) P^2 + b P^4 + c P^6 (c > 0), P in C/m^2, F in J/m^3. For each temperature of the grid
(200 ... 480 K in steps of 2 K) the equilibrium P is the global minimum of F: the nonzero root
P^2 = [-b + sqrt(b^2 - 3 a c)] / (3 c), a = a0 (T - T0), when it exists and has F < 0, else 0.
  Sample A: b < 0, a first-order transition at Tc = T0 + b^2 / (4 a0 c), where P jumps from sqrt(-b / 2c) to 0.
  Sample B: b > 0, a second-order transition at Tc = T0, P -> 0 continuously.
Gaussian noise of 0.0005 C/m^2 (a fixed seed, picked so that fits of the staged data sit close to the truth) is
added to the nonzero values; the paraelectric points are 0.
The reference values are the generating parameters; a least-squares fit of the equilibrium condition to the
staged data is printed next to them, with the scatter of such fits over 2000 noise realisations (the basis of the
grader's tolerances). Writes OUTDIR/workspace/sample_{A,B}.csv and OUTDIR/values.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

SAMPLES = {
    "A": {"a0": 5.2e5, "T0": 382.3, "b": -4.0e8, "c": 1.2e10},
    "B": {"a0": 3.4e5, "T0": 447.6, "b": 3.9e8, "c": 6.5e9},
}
NOISE = 0.0005  # C/m^2
T_GRID = np.arange(200.0, 481.0, 2.0)
SEED = 210  # among 400 seeds, one whose staged data fit within 0.2 sigma of the generating values


def p_eq(t: np.ndarray, a0: float, T0: float, b: float, c: float) -> np.ndarray:
    """Equilibrium polarisation (global minimum of F) in C/m^2."""
    a = a0 * (t - T0)
    disc = b * b - 3 * a * c
    p2 = np.where(disc >= 0, (-b + np.sqrt(np.clip(disc, 0, None))) / (3 * c), 0.0)
    p2 = np.clip(p2, 0.0, None)
    f = a * p2 + b * p2**2 + c * p2**3
    return np.where((p2 > 0) & (f < 0), np.sqrt(p2), 0.0)


def fit(t: np.ndarray, p: np.ndarray, a0: float) -> dict[str, float]:
    """Least squares of T = T0 - (2b/a0) P^2 - (3c/a0) P^4 over the polar points."""
    m = p > 0
    x = np.stack([np.ones(m.sum()), p[m] ** 2, p[m] ** 4], axis=1)
    (t0, s1, s2), *_ = np.linalg.lstsq(x, t[m], rcond=None)
    b, c = -a0 * s1 / 2, -a0 * s2 / 3
    return {"T0": t0, "b": b, "c": c, "Tc": t0 + b * b / (4 * a0 * c) if b < 0 else t0}


def main(out: Path) -> None:
    """Write the CSV files and values.json."""
    rng = np.random.default_rng(SEED)
    ws = out / "workspace"
    ws.mkdir(parents=True, exist_ok=True)
    values: dict[str, object] = {}
    for name, par in SAMPLES.items():
        clean = p_eq(T_GRID, **par)
        noisy = np.where(clean > 0, np.abs(clean + rng.normal(0.0, NOISE, clean.size)), 0.0)
        lines = ["T_K,P_C_per_m2"] + [f"{t:.0f},{p:.5f}" for t, p in zip(T_GRID, noisy, strict=True)]
        (ws / f"sample_{name}.csv").write_text("\n".join(lines) + "\n")
        first = par["b"] < 0
        tc = par["T0"] + (par["b"] ** 2 / (4 * par["a0"] * par["c"]) if first else 0.0)
        values |= {
            f"{name}_T0_K": par["T0"],
            f"{name}_Tc_K": round(tc, 3),
            f"{name}_b": par["b"],
            f"{name}_c": par["c"],
            f"{name}_order": "first" if first else "second",
        }
        staged = fit(T_GRID, np.array([float(x.split(",")[1]) for x in lines[1:]]), par["a0"])
        spread = np.array(
            [
                list(
                    fit(
                        T_GRID, np.where(clean > 0, np.abs(clean + r.normal(0, NOISE, clean.size)), 0), par["a0"]
                    ).values()
                )
                for r in (np.random.default_rng(i) for i in range(2000))
            ]
        )
        print(f"sample {name}: Tc = {tc:.3f} K, P just below Tc = {clean[clean > 0].min():.4f} C/m^2")
        for j, key in enumerate(("T0", "b", "c", "Tc")):
            true = par[key] if key != "Tc" else tc
            print(
                f"  {key}: generating {true:.6g}, fit of the staged data {staged[key]:.6g} "
                f"({(staged[key] - true) / abs(true):+.2%}), fits over noise: std {spread[:, j].std() / abs(true):.2%}"
            )
    (out / "values.json").write_text(json.dumps(values, indent=2) + "\n")
    print(json.dumps(values, indent=2))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
