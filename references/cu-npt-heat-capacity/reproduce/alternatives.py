"""Alternative analyses of the staged NPT logs of cu-npt-heat-capacity, for the fairness record.

Usage: alternatives.py npt_100K.log ... npt_500K.log
Prints one JSON object: the spread of C_p and of the excess over windows, fit degrees and finite differences
("spread"), the enthalpy-fluctuation estimate of each run ("fluctuation"), and the answers of the fairness cases
("cases", keyed by case id), valid routes and traps alike.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from values import BAR_A3_TO_EV, EV_PER_K_TO_J_PER_MOL_K, K_B, R3, answer, cp_fit, excess, read_logs  # noqa: E402


def main() -> None:
    """Print the spread, the fluctuation estimates and the fairness answers as JSON."""
    t, n, runs = read_logs(sys.argv[1:])
    prod = [r[-1] for r in runs]
    time = prod[0]["Time"] - prod[0]["Time"][0]

    def window(lo: float) -> np.ndarray:
        return np.array([p["TotEng"][time >= lo - 1e-9].mean() for p in prod])

    h = window(0.0)
    temps = np.array([p["Temp"].mean() for p in prod])
    routes = {
        "production, quadratic (reference)": (cp_fit(t, h, n, 2, 300), cp_fit(t, h, n, 2, 500)),
        "production, cubic": (cp_fit(t, h, n, 3, 300), cp_fit(t, h, n, 3, 500)),
        "production, quadratic against the measured <T>": (cp_fit(temps, h, n, 2, 300), cp_fit(temps, h, n, 2, 500)),
        "production, cubic against the measured <T>": (cp_fit(temps, h, n, 3, 300), cp_fit(temps, h, n, 3, 500)),
        "production, central 200-400 K / backward 400-500 K": (
            (h[3] - h[1]) / 200 / n * EV_PER_K_TO_J_PER_MOL_K,
            (h[4] - h[3]) / 100 / n * EV_PER_K_TO_J_PER_MOL_K,
        ),
        "production, one-sided 300-400 K and 200-300 K at 300 K": (
            (h[3] - h[2]) / 100 / n * EV_PER_K_TO_J_PER_MOL_K,
            (h[2] - h[1]) / 100 / n * EV_PER_K_TO_J_PER_MOL_K,
        ),
    }
    for lo in (5.0, 10.0, 20.0):
        hw = window(lo)
        routes[f"production minus its first {lo:.0f} ps, quadratic"] = (
            cp_fit(t, hw, n, 2, 300),
            cp_fit(t, hw, n, 2, 500),
        )
        routes[f"production minus its first {lo:.0f} ps, cubic"] = (cp_fit(t, hw, n, 3, 300), cp_fit(t, hw, n, 3, 500))
    eqp = np.array([np.r_[r[1]["TotEng"], r[2]["TotEng"]].mean() for r in runs])
    routes["NPT equilibration + production, quadratic"] = (cp_fit(t, eqp, n, 2, 300), cp_fit(t, eqp, n, 2, 500))
    routes["NPT equilibration + production, cubic"] = (cp_fit(t, eqp, n, 3, 300), cp_fit(t, eqp, n, 3, 500))
    for name, sl in (("first", slice(0, 61)), ("second", slice(60, None))):
        hh = np.array([p["TotEng"][sl].mean() for p in prod])
        routes[f"{name} 30 ps of production only, quadratic (statistics probe)"] = (
            cp_fit(t, hh, n, 2, 300),
            cp_fit(t, hh, n, 2, 500),
        )
    every = np.array([np.concatenate([b["TotEng"] for b in r]).mean() for r in runs])
    pe = np.array([p["PotEng"].mean() for p in prod])
    pv = np.array([(p["TotEng"] + p["Press"] * p["Volume"] * BAR_A3_TO_EV).mean() for p in prod])
    traps = {
        "every row": (cp_fit(t, every, n, 2, 300), cp_fit(t, every, n, 2, 500)),
        "PotEng only": (cp_fit(t, pe, n, 2, 300), cp_fit(t, pe, n, 2, 500)),
        "TotEng + instantaneous Press x Volume": (cp_fit(t, pv, n, 2, 300), cp_fit(t, pv, n, 2, 500)),
        "straight line through all five (one C_p)": (cp_fit(t, h, n, 1, 300), cp_fit(t, h, n, 1, 500)),
    }
    spread = {k: [round(v[0], 3), round(v[1], 3), round(excess(v[0]), 4), round(excess(v[1]), 4)]
              for k, v in {**routes, **traps}.items()}  # fmt: skip
    fluct = {
        f"{ti:.0f} K": round(p["TotEng"].var(ddof=1) / (K_B * ti**2) / n * EV_PER_K_TO_J_PER_MOL_K, 2)
        for ti, p in zip(t, prod, strict=True)
    }
    ref = answer(*routes["production, quadratic (reference)"])
    cases = {
        "cubic-fit": answer(*routes["production, cubic"]),
        "neighbour-differences": answer(*routes["production, central 200-400 K / backward 400-500 K"]),
        "later-production-window": answer(*routes["production minus its first 20 ps, quadratic"]),
        "equilibration-and-production": answer(*routes["NPT equilibration + production, quadratic"]),
        "measured-temperatures": answer(*routes["production, quadratic against the measured <T>"]),
        "every-row-averaged": answer(*traps["every row"]),
        "potential-energy-only": answer(*traps["PotEng only"]),
        "instantaneous-pressure-enthalpy": answer(*traps["TotEng + instantaneous Press x Volume"]),
        "dulong-petit": answer(R3, R3),
        "measured-copper-300K": {"Cp_300K_J_per_mol_K": 24.44, "Cp_excess_300K": round(excess(24.44), 4)},
        "per-atom-eV-per-K": {
            k: float(f"{ref[k] / EV_PER_K_TO_J_PER_MOL_K:.4e}") for k in ("Cp_300K_J_per_mol_K", "Cp_500K_J_per_mol_K")
        },
        "units-of-k_B": {k: round(ref[k] / (R3 / 3), 4) for k in ("Cp_300K_J_per_mol_K", "Cp_500K_J_per_mol_K")},
        "ratio-not-excess": {k: round(1 + ref[k], 4) for k in ("Cp_excess_300K", "Cp_excess_500K")},
        "excess-in-J-per-mol-K": {
            "Cp_excess_300K": round(ref["Cp_300K_J_per_mol_K"] - R3, 3),
            "Cp_excess_500K": round(ref["Cp_500K_J_per_mol_K"] - R3, 3),
        },
    }
    json.dump({"spread": spread, "fluctuation_J_per_mol_K": fluct, "cases": cases}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
