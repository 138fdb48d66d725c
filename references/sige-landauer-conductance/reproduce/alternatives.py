"""Reference values, valid alternative routes and common errors of sige-landauer-conductance.

Usage: alternatives.py SIGE_DEVICE_H5 OUTDIR      writes OUTDIR/values.json, OUTDIR/alternatives.json, OUTDIR/xi.dat

Reference: the Caroli transmission Xi(nu) (recursive Green's function, eta = 1e-10 of the largest block entry;
solution/landauer.py) at the midpoints of a 0.025 THz grid from 0 to 12 THz, integrated by the midpoint rule.
Alternatives that must pass: the same Xi on a 0.05 THz grid and on the 0.1 THz grid of the oracle; the trapezoid
rule on the nodes of the 0.05 THz grid (Xi at 0 taken from the first node); a fixed eta = 1e-8; the mode-matching
transmission of the upstream step's oracle (sige-agf-transmission/solution/agf.py, flux-normalised t) on a
0.1 THz grid. Errors that must fail: the classical dn/dT = k_B / h nu at every temperature, h nu written as
hbar nu (2 pi too small), the area of one cubic face (x4), Xi averaged again over the eight folded wave vectors
(/8), the nine frequencies of the upstream step integrated by the trapezoid rule from 1 to 11.5 THz, and the
spectrum cut below 1 THz.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "solution"))
import landauer as L  # noqa: E402

NINE = [1.0, 2.0, 3.5, 5.0, 6.0, 7.25, 8.5, 10.25, 11.5]


def grid(dnu: float) -> np.ndarray:
    return (np.arange(int(round(L.NU_MAX_THZ / dnu))) + 0.5) * dnu


def integrate(nu_thz, weights_thz, xis, area, dndt=L.dndt, prefactor=L.H):
    """G (MW/m^2/K) at the three temperatures and the classical limit for a quadrature (nodes, weights)."""
    nu = np.asarray(nu_thz) * 1e12
    w = np.asarray(xis) * np.asarray(weights_thz) * 1e12
    out = {f"G_{int(t)}K_MW_per_m2_K": float(np.sum(prefactor * nu * w * dndt(nu, t)) / area / 1e6)
           for t in L.TEMPERATURES_K}  # fmt: skip
    out["G_classical_MW_per_m2_K"] = float(L.KB * prefactor / L.H * np.sum(w) / area / 1e6)
    return out


def trapezoid_weights(x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return 0.5 * (np.diff(np.r_[x[0], x]) + np.diff(np.r_[x, x[-1]]))


def mode_matching(path: Path, nu_thz: np.ndarray) -> list[float]:
    sys.path.insert(0, str(HERE.parents[1] / "sige-agf-transmission" / "solution"))
    import transmission as tm  # noqa: PLC0415

    dev = tm.load(path)
    out = []
    for nu in nu_thz:
        try:
            s, _ = tm.solve(dev, float(nu))
        except RuntimeError:  # near a band edge flux holds only to a few 1e-6: keep the smallest eta
            s = tm.scatter(2 * np.pi * nu * 1e12, dev["lead_l"], dev["lead_r"], dev["onsite"], dev["coupling"],
                           dev["period_l"], dev["period_r"], eta_rel=1e-10)  # fmt: skip
        out.append(float(np.sum(np.abs(s.t) ** 2)))
    return out


def main() -> None:
    path, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    ll, lr, blocks, cp, area = L.load(path)
    xi = {}

    def xis(nus, eta=1e-10):
        return [xi.setdefault((round(float(v), 6), eta), L.xi(v, ll, lr, blocks, cp, eta)) for v in nus]

    g025, g05, g1 = grid(0.025), grid(0.05), grid(0.1)
    ref = integrate(g025, np.full(len(g025), 0.025), xis(g025), area)
    routes = {"midpoint_0.05THz": integrate(g05, np.full(len(g05), 0.05), xis(g05), area),
              "midpoint_0.1THz": integrate(g1, np.full(len(g1), 0.1), xis(g1), area),
              "eta_1e-8_0.05THz": integrate(g05, np.full(len(g05), 0.05), xis(g05, 1e-8), area)}  # fmt: skip
    nodes = np.arange(0, 12.0001, 0.05)
    x_nodes = xis(nodes[1:])
    x_nodes = [x_nodes[0], *x_nodes]  # Xi(0) from the first node: the long-wavelength limit is flat
    wts = np.full(len(nodes), 0.05)
    wts[[0, -1]] = 0.025
    nodes[0] = 1e-6  # the integrand is finite at 0 (its limit k_B Xi); avoid 0/0
    routes["trapezoid_nodes_0.05THz"] = integrate(nodes, wts, x_nodes, area)
    routes["mode_matching_0.1THz"] = integrate(g1, np.full(len(g1), 0.1), mode_matching(path, g1), area)

    x05 = np.array(xis(g05))
    w05 = np.full(len(g05), 0.05)
    traps = {
        "classical_dndt": integrate(g05, w05, x05, area, dndt=lambda nu, t: L.KB / (L.H * nu)),
        "hbar_times_nu": integrate(g05, w05, x05, area, prefactor=L.H / (2 * np.pi)),
        "one_cubic_face": integrate(g05, w05, x05, area / 4),
        "averaged_over_8_folded": integrate(g05, w05, x05 / 8, area),
        "nine_frequencies_trapezoid": integrate(NINE, trapezoid_weights(NINE), xis(NINE), area),
        "cut_below_1THz": integrate(g05[g05 > 1], w05[g05 > 1], x05[g05 > 1], area),
    }  # fmt: skip
    (out / "values.json").write_text(json.dumps(ref, indent=1) + "\n")
    (out / "alternatives.json").write_text(
        json.dumps({"reference": ref, "valid": routes, "traps": traps}, indent=1) + "\n"
    )
    np.savetxt(out / "xi.dat", np.column_stack([g025, xis(g025)]), fmt="%.4f %.6f", header="nu_THz Xi")
    for k, v in [("reference", ref), *routes.items(), *traps.items()]:
        rel = [v[f] / ref[f] - 1 for f in ref]
        print(f"{k:28s}", " ".join(f"{v[f]:9.3f}" for f in ref), " rel", " ".join(f"{r:+.4f}" for r in rel))


if __name__ == "__main__":
    main()
