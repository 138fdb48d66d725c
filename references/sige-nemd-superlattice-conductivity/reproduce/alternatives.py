"""Reference values, valid routes and traps of sige-nemd-superlattice-conductivity, from the staged NEMD outputs.

Usage: alternatives.py WORKSPACE [OUTDIR]    prints JSON {case: answer}; with OUTDIR also writes OUTDIR/values.json

The reference route: the bath temperatures are the means over the four planes of each thermostat slab of the
production-averaged chunk temperatures (temp_profile.dat, three degrees of freedom per atom); the flux J through
one cross-section is the mean of -slope(f_thot) and +slope(f_tcold) over 2 Lx Ly (values.py of
sige-nemd-conductance); the effective cross-plane conductivity of the cell between its baths is
kappa_eff = J d / (T_hot - T_cold) with d the distance between the slab centres (Lz / 2); the interface share is
the mean interface drop (straight-line fits that leave out four planes next to each slab, the reference route of
sige-nemd-conductance) over T_hot - T_cold.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "sige-nemd-conductance" / "reproduce"))
import values as V  # noqa: E402

HOT, COLD = list(V.HOT), list(V.COLD)


def answer(j: float, t_hot: float, t_cold: float, d_m: float, drop: float) -> dict[str, float]:
    dt = t_hot - t_cold
    return {"delta_T_baths_K": float(dt), "kappa_eff_W_per_m_K": float(j * d_m / dt),
            "interface_fraction": float(drop / dt)}  # fmt: skip


def alternatives(ws: Path) -> dict[str, dict[str, float]]:
    run = V.production(ws)
    lx, ly, lz, z = V.geometry(ws)
    _, temps = V.profile_blocks(ws)
    t = temps.mean(axis=0)
    j = V.flux_W_per_m2(V.heat_current_eV_per_ps(run), lx * ly)
    d = (z[COLD].mean() - z[HOT].mean()) * 1e-10
    drop = float(np.mean(V.interface_drops(t, z, lz)))
    th, tc = t[HOT].mean(), t[COLD].mean()
    out = {"reference": answer(j, th, tc, d, drop)}
    # --- valid routes
    for excl in (2, 3, 6):
        out[f"exclude-{excl}-planes"] = answer(j, th, tc, d, float(np.mean(V.interface_drops(t, z, lz, excl))))
    for which in ("hot", "cold"):
        out[f"{which}-tally-only"] = answer(V.flux_W_per_m2(V.heat_current_eV_per_ps(run, which), lx * ly),
                                            th, tc, d, drop)  # fmt: skip
    out["box-half-as-length"] = answer(j, th, tc, 0.5 * lz * 1e-10, drop)
    out["slab-middle-planes"] = answer(j, t[HOT[1:3]].mean(), t[COLD[1:3]].mean(), d, drop)
    out["dof-3N-minus-3"] = answer(j, th * 96 / 93, tc * 96 / 93, d, drop)
    for half, sl in (("first", slice(0, 16)), ("second", slice(16, 32))):
        th_h, tc_h = temps[sl][:, HOT].mean(), temps[sl][:, COLD].mean()
        sel = (run["Step"] <= 800000) if half == "first" else (run["Step"] >= 800000)
        j_h = V.flux_W_per_m2(V.heat_current_eV_per_ps({k: v[sel] for k, v in run.items()}), lx * ly)
        d_h = float(np.mean(V.interface_drops(temps[sl].mean(axis=0), z, lz)))
        out[f"{half}-half-of-production"] = answer(j_h, th_h, tc_h, d, d_h)
    # --- traps
    out["trap:set-points"] = answer(j, 330.0, 270.0, d, drop)
    out["trap:thermo-slab-temperatures"] = answer(j, run["c_Thot"].mean(), run["c_Tcold"].mean(), d, drop)
    out["trap:one-way-flux"] = answer(2 * j, th, tc, d, drop)
    out["trap:whole-box-length"] = answer(j, th, tc, 2 * d, drop)
    out["trap:inner-slab-edges"] = answer(j, th, tc, (z[COLD[0]] - z[HOT[-1]]) * 1e-10, drop)
    adj = float(np.mean([t[39] - t[40], t[0] - t[79]]))
    out["trap:adjacent-plane-jump"] = answer(j, th, tc, d, adj)
    out["trap:two-interfaces-per-path"] = answer(j, th, tc, d, 2 * drop)
    return out


def main() -> None:
    alt = alternatives(Path(sys.argv[1]))
    ref = alt["reference"]
    for k, v in alt.items():
        print(f"# {k:32s}", " ".join(f"{v[f]:9.4f} ({v[f] / ref[f] - 1:+.3f})" for f in ref), file=sys.stderr)
    print(json.dumps(alt, indent=1))
    if len(sys.argv) > 2:
        Path(sys.argv[2]).mkdir(parents=True, exist_ok=True)
        (Path(sys.argv[2]) / "values.json").write_text(json.dumps(ref, indent=1) + "\n")


if __name__ == "__main__":
    main()
