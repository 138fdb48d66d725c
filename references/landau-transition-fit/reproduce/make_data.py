"""Generate the energy-polarisation paths staged for landau-transition-fit from a Landau-Devonshire model.

Usage: python3 make_data.py OUTDIR

Data made by a model script, standing in for the study's Berry-phase runs (which these machines could not afford
when the task was built): for two ordered cells, wurtzite ZnO (4 atoms, 2 formula units) and Zn3MgO4
(Zn0.75Mg0.25O, 8 atoms, 4 formula units), the energy along the clamped-cell path from the layered-hexagonal
reference (u = 1/2, P = 0) through the polar wurtzite minimum is

    F(P) = alpha P^2 + beta P^4 + gamma P^6     (F in J/m^3 relative to the reference, P in C/m^2)

times the cell volume, with Gaussian noise of 0.5 meV per cell on the energies (a fixed seed) and P rounded to
1e-4 C/m^2. The internal parameter u is listed for orientation (u = 1/2 - kappa P, kappa from the cell).
The reference values are the generating coefficients and the quantities derived from them: the spontaneous
polarisation Ps (the minimum of F), the double-well depth per formula unit, and the intrinsic (Landau) coercive
field, the largest |dF/dP| between 0 and Ps. A polynomial fit of the staged data is printed next to them, with the
scatter of such fits over 2000 noise realisations (the basis of the grader's tolerances), and the fits of the
alternatives the fairness record uses. Writes OUTDIR/workspace/path_ZnO.csv, path_Zn3MgO4.csv, OUTDIR/values.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

EV = 1.602176634e-19  # J
A3 = 1e-30  # m^3
CELLS = {
    # name: formula units, cell volume (A^3), kappa (du per C/m^2), coefficients (SI)
    "ZnO": {"fu": 2, "V": 47.63, "kappa": 0.128, "alpha": -2.6e9, "beta": 1.0e9, "gamma": 3.0e8},
    "Zn3MgO4": {"fu": 4, "V": 94.96, "kappa": 0.142, "alpha": -1.1e9, "beta": -0.25e9, "gamma": 7.5e8},
}
NOISE_EV = 0.0005  # per cell
SEED = 7


def derived(alpha: float, beta: float, gamma: float, V: float, fu: int) -> dict[str, float]:
    """Ps (C/m^2), well depth (meV per formula unit) and coercive field (MV/cm) of F = aP^2 + bP^4 + cP^6."""
    ps2 = (-beta + np.sqrt(beta * beta - 3 * alpha * gamma)) / (3 * gamma)
    ps = float(np.sqrt(ps2))
    fmin = alpha * ps2 + beta * ps2**2 + gamma * ps2**3
    depth = -fmin * V * A3 / EV / fu * 1e3
    p = np.linspace(0, ps, 20001)
    ec = float(np.max(-(2 * alpha * p + 4 * beta * p**3 + 6 * gamma * p**5))) / 1e8
    return {"Ps": ps, "depth": float(depth), "Ec": ec}


def grid(ps: float) -> np.ndarray:
    """P from 0 to 1.3 Ps in 15 points, as a path of images would be (none on Ps itself)."""
    return np.round(np.linspace(0.0, 1.3 * ps, 15), 4)


def energies(p: np.ndarray, c: dict) -> np.ndarray:
    """Model energies per cell in eV relative to the reference."""
    f = c["alpha"] * p**2 + c["beta"] * p**4 + c["gamma"] * p**6
    return f * c["V"] * A3 / EV


def fit(p: np.ndarray, e_ev: np.ndarray, c: dict, powers=(2, 4, 6)) -> dict[str, float]:
    """Least squares of the energy density on even powers of P (no constant: E(0) = 0 by construction)."""
    f = e_ev * EV / (c["V"] * A3)
    x = np.stack([p**k for k in powers], axis=1)
    coef, *_ = np.linalg.lstsq(x, f, rcond=None)
    a, b, g = (list(coef) + [0.0, 0.0])[:3]
    if len(powers) == 4:  # with a P^8 term: locate the minimum numerically
        pp = np.linspace(0, 1.3 * np.sqrt(-a / (2 * abs(b) + 1e-30)) + 1.5, 200001)
        ff = sum(cf * pp**k for cf, k in zip(coef, powers, strict=True))
        i = int(np.argmin(ff[pp < p.max()]))
        dff = -sum(k * cf * pp ** (k - 1) for cf, k in zip(coef, powers, strict=True))
        return {
            "alpha": a,
            "beta": b,
            "gamma": g,
            "Ps": pp[i],
            "depth": -ff[i] * c["V"] * A3 / EV / c["fu"] * 1e3,
            "Ec": float(np.max(dff[: i + 1])) / 1e8,
        }
    if g == 0.0:  # P^4 model
        ps = np.sqrt(-a / (2 * b))
        pp = np.linspace(0, ps, 20001)
        return {
            "alpha": a,
            "beta": b,
            "gamma": 0.0,
            "Ps": ps,
            "depth": a * a / (4 * b) * c["V"] * A3 / EV / c["fu"] * 1e3,
            "Ec": float(np.max(-(2 * a * pp + 4 * b * pp**3))) / 1e8,
        }
    return {"alpha": a, "beta": b, "gamma": g, **derived(a, b, g, c["V"], c["fu"])}


def main(out: Path) -> None:
    """Write the CSV files and values.json; print the fits."""
    rng = np.random.default_rng(SEED)
    ws = out / "workspace"
    ws.mkdir(parents=True, exist_ok=True)
    values: dict[str, object] = {}
    for name, c in CELLS.items():
        d = derived(c["alpha"], c["beta"], c["gamma"], c["V"], c["fu"])
        p = grid(d["Ps"])
        e = energies(p, c) + np.r_[0.0, rng.normal(0.0, NOISE_EV, p.size - 1)]
        u = 0.5 - c["kappa"] * p
        head = [
            f"# {name}: clamped-cell path from the layered-hexagonal reference (u = 1/2) towards wurtzite",
            f"# cell: {c['fu'] * 2} atoms ({c['fu']} formula units), volume {c['V']:.2f} A^3",
            "# P: polarisation along c relative to the reference; E: energy of the cell relative to the reference",
            "u,P_C_per_m2,E_eV_per_cell",
        ]
        rows = [f"{ui:.4f},{pi:.4f},{ei:.5f}" for ui, pi, ei in zip(u, p, e, strict=True)]
        (ws / f"path_{name}.csv").write_text("\n".join(head + rows) + "\n")
        e_staged = np.array([float(r.split(",")[2]) for r in rows])
        values |= {
            f"{name}_alpha": c["alpha"],
            f"{name}_beta": c["beta"],
            f"{name}_gamma": c["gamma"],
            f"{name}_Ps": round(d["Ps"], 5),
            f"{name}_depth_meV": round(d["depth"], 3),
            f"{name}_Ec_MV_per_cm": round(d["Ec"], 4),
            f"{name}_order": "second" if c["beta"] > 0 else "first",
        }
        print(name, "truth", {k: f"{v:.5g}" for k, v in {**c, **d}.items()})
        print(name, "staged fit", {k: f"{v:.5g}" for k, v in fit(p, e_staged, c).items()})
        print(name, "with P^8", {k: f"{v:.5g}" for k, v in fit(p, e_staged, c, (2, 4, 6, 8)).items()})
        print(name, "P^4 only", {k: f"{v:.5g}" for k, v in fit(p, e_staged, c, (2, 4)).items()})
        r = np.random.default_rng(1)
        runs = [fit(p, energies(p, c) + np.r_[0.0, r.normal(0, NOISE_EV, p.size - 1)], c) for _ in range(2000)]
        keys = ["alpha", "beta", "gamma", "Ps", "depth", "Ec"]
        arr = np.array([[run[k] for k in keys] for run in runs])
        print(name, "noise sd", {k: f"{s:.3g}" for k, s in zip(keys, arr.std(0), strict=True)})
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("landau-reproduce"))
