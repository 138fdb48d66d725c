"""Alternative routes and common errors of bas-isotope-dielectric-shift, run on the staged data (fairness.yaml).

Prints one JSON answer per route: other seeds, a 5x5x5 cell, p^2 weights (S omega^2) instead of S, the
mean-mass (virtual) crystal with the right and with the natural boron mass, the pure isotopes.
Usage: alternatives.py WORKSPACE
"""

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
import bas_disorder as bd  # noqa: E402
import bas_isotope as bi  # noqa: E402
import enrich  # noqa: E402


def p2_weights(cr, seeds=(0, 1, 2, 3)):
    out = {}
    for key, x10 in enrich.SAMPLES.items():
        ms, sds = [], []
        for seed in seeds:
            wc, s = cr.oscillators(x10, seed)
            m, sd = bi.moments(wc, s * wc**2)
            ms.append(m)
            sds.append(sd)
        out[key] = {"omega_TO_mean_cm1": round(float(np.mean(ms)), 3), "sigma_TO_cm1": round(float(np.mean(sds)), 3)}
    out["enrichment_shift_cm1"] = round(
        out["B10_enriched"]["omega_TO_mean_cm1"] - out["B11_enriched"]["omega_TO_mean_cm1"], 3
    )
    return out


def ordered(cr, masses):
    out = {}
    for key, m in masses.items():
        w, _ = cr.pure(m)
        out[key] = {"omega_TO_mean_cm1": round(w, 3), "sigma_TO_cm1": 0.0}
    out["enrichment_shift_cm1"] = round(
        out["B10_enriched"]["omega_TO_mean_cm1"] - out["B11_enriched"]["omega_TO_mean_cm1"], 3
    )
    return out


def main():
    ws = Path(sys.argv[1])
    cr = bi.Crystal(ws, 4)
    routes = {
        "seeds-10-13": enrich.answer(ws, 4, (10, 11, 12, 13), cr=cr),
        "supercell-5x5x5": enrich.answer(ws, 5, (0, 1, 2, 3), cr=bi.Crystal(ws, 5, ph=cr.ph)),
        "p2-weights": p2_weights(cr),
        "virtual-crystal": ordered(cr, {k: x * bd.M10 + (1 - x) * bd.M11 for k, x in enrich.SAMPLES.items()}),
        "natural-mass": ordered(cr, {k: 0.199 * bd.M10 + 0.801 * bd.M11 for k in enrich.SAMPLES}),
        "pure-isotopes": ordered(
            cr, {"B11_enriched": bd.M11, "equal_mix": 0.5 * (bd.M10 + bd.M11), "B10_enriched": bd.M10}
        ),
        "one-conventional-cell": enrich.answer(ws, 1, (0, 1, 2, 3), cr=bi.Crystal(ws, 1, ph=cr.ph)),
    }
    print(json.dumps(routes, indent=2))


if __name__ == "__main__":
    main()
