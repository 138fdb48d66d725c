"""Reference values, valid alternative routes and common errors of sige-monte-carlo-tables.

Usage: alternatives.py SIGE_DEVICE_H5 OUTDIR      writes OUTDIR/values.json, OUTDIR/alternatives.json

Reference: the tables of solution/tables.py (mode matching from both sides at the six frequencies) with the
spectral averages from the Caroli Xi(nu) on a 0.025 THz midpoint grid and the channel integrals from 4096 lead
wave vectors. Alternatives that must pass: the oracle's 0.1 THz grid and 1024 wave vectors; an all-Caroli route
(T_side = Xi / n_side with Xi from the Caroli formula and n_side from the Caroli transmission of the perfect
lead, which is the channel count; the spectral averages with M(nu) from the perfect-lead Caroli on a 0.05 THz
midpoint grid). Errors that must fail: T_GeSi taken equal to T_SiGe (incidence direction ignored), T_GeSi as
1 - T_SiGe, the frequencies read as angular (the tables at nu / 2 pi), the two spectral averages swapped (each
side normalised by the other side's channels), the average of T_SiGe(nu) = Xi / M_Si weighted by h nu dn/dT
alone (channel count dropped from the weight), and the classical weight (k_B for every channel).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "solution"))
import tables as S  # noqa: E402


def perfect_lead_count(lead, nu):
    return S.caroli(nu, lead, lead, [lead[0]], [])


def main() -> None:
    h5, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    dev = S.load(h5)
    alts: dict[str, dict] = {}

    # reference: fine Xi grid, dense lead wave vectors
    ref, _ = S.tables(dev, 0.025)
    b_si, b_ge = S.lead_bands(dev["lead_l"], 4096), S.lead_bands(dev["lead_r"], 4096)
    nu_f, xi_f = S.xi_spectrum(dev, 0.025)
    for t in S.TEMPERATURES_K:
        w = S.heat_weight(t)
        g = float(np.sum(w(nu_f) * xi_f) * 0.025)
        ref[f"tau_SiGe_{int(t)}K"] = round(g / S.channel_integral(b_si, w), 6)
        ref[f"tau_GeSi_{int(t)}K"] = round(g / S.channel_integral(b_ge, w), 6)
    taus = [k for k in ref if k.startswith("tau_")]

    # oracle route
    alts["oracle-0p1-thz"] = S.tables(dev, 0.1)[0]

    # all-Caroli route
    blocks = [dev["lead_l"][0], *dev["onsite"], dev["lead_r"][0]]
    xi_n = [S.caroli(v, dev["lead_l"], dev["lead_r"], blocks, dev["coupling"]) for v in S.FREQUENCIES_THZ]
    n_si = [perfect_lead_count(dev["lead_l"], v) for v in S.FREQUENCIES_THZ]
    n_ge = [perfect_lead_count(dev["lead_r"], v) for v in S.FREQUENCIES_THZ]
    dnu = 0.05
    nu = (np.arange(int(round(17.0 / dnu))) + 0.5) * dnu
    xi = np.array([S.caroli(v, dev["lead_l"], dev["lead_r"], blocks, dev["coupling"]) if v < 11.5 else 0.0 for v in nu])
    m_si = np.array([perfect_lead_count(dev["lead_l"], v) for v in nu])
    m_ge = np.array([perfect_lead_count(dev["lead_r"], v) if v < 11.5 else 0.0 for v in nu])
    car = {
        "n_Si": [int(round(x)) for x in n_si],
        "n_Ge": [int(round(x)) for x in n_ge],
        "T_SiGe": [round(x / round(n), 6) for x, n in zip(xi_n, n_si, strict=True)],
        "T_GeSi": [round(x / round(n), 6) for x, n in zip(xi_n, n_ge, strict=True)],
    }
    for t in S.TEMPERATURES_K:
        w = S.heat_weight(t)(nu)
        car[f"tau_SiGe_{int(t)}K"] = round(float(np.sum(w * xi) / np.sum(w * m_si)), 6)
        car[f"tau_GeSi_{int(t)}K"] = round(float(np.sum(w * xi) / np.sum(w * m_ge)), 6)
    alts["all-caroli"] = car

    # errors
    alts["ge-si-equal-si-ge"] = {"T_GeSi": ref["T_SiGe"]}
    alts["ge-si-one-minus"] = {"T_GeSi": [round(1 - x, 6) for x in ref["T_SiGe"]]}
    saved = S.FREQUENCIES_THZ
    S.FREQUENCIES_THZ = [v / (2 * np.pi) for v in saved]
    ang, _ = S.tables(dev, 0.1)
    S.FREQUENCIES_THZ = saved
    alts["angular-read-as-thz"] = {k: ang[k] for k in ("n_Si", "n_Ge", "T_SiGe", "T_GeSi")}
    alts["averages-swapped"] = {
        "tau_SiGe_100K": ref["tau_GeSi_100K"], "tau_GeSi_100K": ref["tau_SiGe_100K"],
        "tau_SiGe_300K": ref["tau_GeSi_300K"], "tau_GeSi_300K": ref["tau_SiGe_300K"],
    }  # fmt: skip
    heat_only, classical = {}, {}
    for t in S.TEMPERATURES_K:
        w = S.heat_weight(t)(nu)
        for side, m in (("SiGe", m_si), ("GeSi", m_ge)):
            ok = m > 0.5
            heat_only[f"tau_{side}_{int(t)}K"] = round(float(np.sum(w[ok] * xi[ok] / m[ok]) / np.sum(w[ok])), 6)
            classical[f"tau_{side}_{int(t)}K"] = round(float(np.sum(xi) / np.sum(m)), 6)
    alts["heat-capacity-only-weight"] = heat_only
    alts["classical-weight"] = classical

    (out / "values.json").write_text(json.dumps(ref, indent=1) + "\n")
    (out / "alternatives.json").write_text(json.dumps(alts, indent=1) + "\n")
    print(json.dumps({"reference": {k: ref[k] for k in taus}, **alts}, indent=1))


if __name__ == "__main__":
    main()
