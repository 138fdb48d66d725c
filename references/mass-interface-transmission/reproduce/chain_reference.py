"""Reference values of mass-interface-transmission by a route independent of the oracle's.

Usage: chain_reference.py INTERPLANAR_FC_JSON OUTDIR     writes OUTDIR/values.json and OUTDIR/alternatives.json
Lead self-energies from the Bloch modes of the lead chain (roots of its characteristic polynomial, no decimation,
no broadening): with couplings to first and second neighbour planes a lead plane obeys
    m w^2 u_n = phi0 u_n + phi1 (u_{n+1} + u_{n-1}) + phi2 (u_{n+2} + u_{n-2}),
four Bloch factors lam at each w; the two that travel or decay to the right (|lam| < 1, or |lam| = 1 with
positive group velocity) span the right-going solutions, and the surface self-energy of a semi-infinite chain of
two-plane layers is Sigma = h01 F(+), F(+) = U diag(lam^2) U^-1 (two planes per layer). T = Tr[Gamma_L G Gamma_R
G^dagger] (Caroli). Conductances by adaptive quadrature (scipy.integrate.quad) up to the band top.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from scipy.integrate import quad

EV_A2_AMU = 1.602176634e-19 / 1e-20 / 1.66053906660e-27
H, KB = 6.62607015e-34, 1.380649e-23


def lead_layers(lead: dict) -> tuple[np.ndarray, np.ndarray]:
    f1, f2, m = lead["phi_1"], lead["phi_2"], lead["mass_amu"]
    f0 = -2 * (f1 + f2)
    h00 = np.array([[f0, f1], [f1, f0]]) / m * EV_A2_AMU
    h01 = np.array([[f2, 0.0], [f1, f2]]) / m * EV_A2_AMU
    return h00, h01


def right_going(lead: dict, w2: float, side: str) -> np.ndarray:
    """F with u_{layer+1} = F u_layer (side 'right') or u_{layer-1} = F u_layer (side 'left') for the lead."""
    f1, f2, m = lead["phi_1"], lead["phi_2"], lead["mass_amu"]
    f0 = -2 * (f1 + f2)
    # plane Bloch factor x: m w^2 = f0 + f1 (x + 1/x) + f2 (x^2 + 1/x^2), in eV/A^2 and amu
    c = w2 / EV_A2_AMU * m
    roots = np.roots([f2, f1, f0 - c, f1, f2])
    # group velocity sign of a propagating root x = e^{iqd}: d(w^2)/dq ~ -2 (f1 sin qd + 2 f2 sin 2qd) / m
    chosen = []
    for x in roots:
        if abs(abs(x) - 1) > 1e-9:
            going = abs(x) < 1 if side == "right" else abs(x) > 1
        else:
            q = np.angle(x)
            v = -(f1 * np.sin(q) + 2 * f2 * np.sin(2 * q))
            going = v > 0 if side == "right" else v < 0
        if going:
            chosen.append(x)
    assert len(chosen) == 2, (roots, side)
    # layer vectors (u_2n, u_2n+1) of the plane wave x^n: (1, x); the layer Bloch factor is x^2
    U = np.array([[1.0, 1.0], [chosen[0], chosen[1]]], dtype=complex)
    lam = np.array(chosen) ** 2
    if side == "left":  # u_{layer-1} = F u_layer: factor x^-2
        lam = 1 / lam
    return U @ np.diag(lam) @ np.linalg.inv(U)


def transmission(doc: dict, nu: float) -> float:
    si, ge = doc["lead_Si"], doc["lead_Ge"]
    n = len(doc["device_masses_amu"])
    planes = list(range(-4, n + 4))
    idx = {p: k for k, p in enumerate(planes)}

    def lead_of(p):
        return si if p < 0 else ge if p >= n else None

    phi = np.zeros((len(planes), len(planes)))
    for p in planes:
        for d, key in ((1, "phi_1"), (2, "phi_2")):
            q = p + d
            if q in idx and lead_of(p) is not None and lead_of(p) is lead_of(q):
                phi[idx[p], idx[q]] = phi[idx[q], idx[p]] = lead_of(p)[key]
    for i, j, v in doc["couplings"]:
        phi[idx[i], idx[j]] = phi[idx[j], idx[i]] = v
    d = phi + np.diag(-phi.sum(axis=1))
    keep = [idx[p] for p in range(-2, n + 2)]  # device plus one two-plane lead layer on each side
    masses = np.array([lead_of(p)["mass_amu"] if lead_of(p) else doc["device_masses_amu"][p] for p in range(-2, n + 2)])
    dyn = d[np.ix_(keep, keep)] / np.sqrt(np.outer(masses, masses)) * EV_A2_AMU
    w2 = (2 * np.pi * nu) ** 2
    h00l, h01l = lead_layers(si)
    h00r, h01r = lead_layers(ge)
    sig_l = h01l.T @ right_going(si, w2, "left")  # h10 F(-)^-1 on the left end layer
    sig_r = h01r @ right_going(ge, w2, "right")
    m = len(keep)
    sl, sr = np.zeros((m, m), complex), np.zeros((m, m), complex)
    sl[:2, :2], sr[-2:, -2:] = sig_l, sig_r
    # the end layers are lead layers: the block includes their own onsite terms (in dyn) plus the self-energy
    g = np.linalg.inv(w2 * np.eye(m) - dyn - sl - sr)
    gl, gr = 1j * (sl - sl.conj().T), 1j * (sr - sr.conj().T)
    return float(np.real(np.trace(gl @ g @ gr @ g.conj().T)))


def main() -> None:
    doc = json.loads(Path(sys.argv[1]).read_text())
    out = Path(sys.argv[2]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    si, ge = doc["lead_Si"], doc["lead_Ge"]
    tops = [np.sqrt(-4 * L["phi_1"] / L["mass_amu"] * EV_A2_AMU) / (2 * np.pi) for L in (si, ge)]
    nu_c = min(tops)

    def t(nu):
        return transmission(doc, nu) if nu < nu_c else 0.0

    z = {L: np.sqrt(L_["mass_amu"] * -(L_["phi_1"] + 4 * L_["phi_2"])) for L, L_ in (("Si", si), ("Ge", ge))}
    t_lw = 4 * z["Si"] * z["Ge"] / (z["Si"] + z["Ge"]) ** 2  # acoustic impedances per atom, sqrt(m K)

    def g(temp):
        def f(nu):
            x = H * nu / (KB * temp)
            w = KB if x < 1e-9 else KB * x * x * np.exp(x) / np.expm1(x) ** 2
            return w * (t(nu) if nu > 1e9 else t_lw)

        val, _ = quad(f, 0.0, nu_c, limit=400, epsabs=0.0, epsrel=1e-10, points=[0.999 * nu_c])
        return val

    grid = np.round(np.arange(1, 101) * 0.1, 2)
    values = {
        "T_2THz": t(2e12), "T_5THz": t(5e12), "T_8THz": t(8e12), "T_9p5THz": t(9.5e12),
        "T_long_wavelength": t_lw, "nu_c_THz": nu_c / 1e12,
        "G_50K_pW_per_K": g(50.0) * 1e12, "G_300K_pW_per_K": g(300.0) * 1e12,
        "transmission_curve": [round(t(nu * 1e12), 6) for nu in grid],
    }  # fmt: skip
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    alt = {"T_low_1GHz": t(1e9), "Si_band_top_THz": tops[0] / 1e12}
    # mass-only acoustic mismatch (impedances from the masses alone)
    ms, mg = si["mass_amu"], ge["mass_amu"]
    alt["T_long_wavelength_mass_only"] = 4 * np.sqrt(ms * mg) / (np.sqrt(ms) + np.sqrt(mg)) ** 2
    alt["nu_c_with_second_neighbours_THz"] = float(
        np.sqrt(-4 * (ge["phi_1"] + 4 * ge["phi_2"]) / mg * EV_A2_AMU) / (2 * np.pi) / 1e12)
    # classical (high-temperature) limit of the conductance
    alt["G_classical_pW_per_K"] = quad(lambda nu: KB * t(nu), 0, nu_c, limit=400, points=[0.999 * nu_c])[0] * 1e12
    (out / "alternatives.json").write_text(json.dumps(alt, indent=1) + "\n")
    print(json.dumps({k: v for k, v in values.items() if k != "transmission_curve"}, indent=1))
    print(json.dumps(alt, indent=1))


if __name__ == "__main__":
    main()
