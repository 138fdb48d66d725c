"""Alternative routes and common errors of bas-near-field-heat-flux, run on the staged data (fairness.yaml).

Valid: the k integral in closed form, J = (Im r)^2 / Im(r^2) Im Li2(r^2) (mpmath), on the oracle's grid; h as a
centred finite difference of the flux q(T + 1 K, T - 1 K) / 2 K; a numerical k integral (trapezoid on a
logarithmic k grid with the gap as length); a wider frequency window with a finer grid.
Errors: omega_TO or omega_LO as the peak; the ph.x Gamma phonon (699.741 cm^-1) with Lyddane-Sachs-Teller in
place of the force-constant TO mode; the classical mean energy kB T (omega in cm^-1 put into hbar omega / kB T makes
the Bose factor classical); Theta / T in place of dTheta/dT; the flux to a body at 0 K reported as h; a 1/d
scaling from 10 nm to 100 nm; gamma read as a half width (1 cm^-1) and nearly undamped (0.1 cm^-1).
Usage: alternatives.py WORKSPACE
"""

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
import bas_disorder as bd  # noqa: E402
import bas_isotope as bi  # noqa: E402
import nearfield as nf  # noqa: E402

C = bd.CM1_RAD_S


def theta(omega_cm1, temp):
    y = nf.HBAR * omega_cm1 * C / (nf.KB * temp)
    return nf.HBAR * omega_cm1 * C / np.expm1(y)


def result(spec, omega, d10=10e-9):
    total = np.trapezoid(spec, omega * C)
    return {
        "peak_cm1": round(float(omega[np.argmax(spec)]), 2),
        "h_10nm_W_m2K": float(f"{total / d10**2:.5g}"),
        "h_100nm_W_m2K": float(f"{total / 1e-14:.5g}"),
    }


def main():
    ws = Path(sys.argv[1])
    cr = bi.Crystal(ws, 1)
    w, s = cr.pure(bd.M11)
    om = nf.OMEGA
    eps = bi.lorentz_eps(np.array([w]), np.array([s]), cr.eps_inf, om, 2.0)
    r = (eps - 1) / (eps + 1)
    jq = nf.k_integral(r)
    routes = {"oracle": result(nf.dtheta_dt(om, 300) * jq / (4 * np.pi**2), om)}

    from mpmath import polylog

    band = (om > 650) & (om < 750)
    jc = jq.copy()
    jc[band] = [(z.imag**2 / (z**2).imag) * float(polylog(2, complex(z**2)).imag) for z in r[band]]
    routes["closed-form-polylog"] = result(nf.dtheta_dt(om, 300) * jc / (4 * np.pi**2), om)

    flux = (theta(om, 301.0) - theta(om, 299.0)) / 2.0 * jq / (4 * np.pi**2)
    routes["finite-difference-flux"] = result(flux, om)

    d = 10e-9
    k = np.geomspace(1e3, 60 / (2 * d), 4000)
    sel = np.arange(len(om))[::5]  # 0.05 cm^-1 grid for the explicit k integral
    rr = r[sel, None]
    e2 = np.exp(-2 * k * d)
    xi = 4 * rr.imag**2 * e2 / np.abs(1 - rr**2 * e2) ** 2
    jk = np.trapezoid(xi * k, k, axis=1) / (2 * np.pi)  # int k dk/(2 pi) xi, in m^-2
    spec_k = nf.dtheta_dt(om[sel], 300) * jk / (2 * np.pi)
    routes["explicit-k-integral"] = result(spec_k * d**2, om[sel])

    wide = np.arange(400.0, 1000.0, 0.005)
    e_w = bi.lorentz_eps(np.array([w]), np.array([s]), cr.eps_inf, wide, 2.0)
    routes["wide-fine-grid"] = result(nf.spectral_h(e_w, wide), wide)

    w_dfpt, s_dfpt = 699.741, 9.5478 - cr.eps_inf
    e_d = bi.lorentz_eps(np.array([w_dfpt]), np.array([s_dfpt]), cr.eps_inf, om, 2.0)
    routes["dfpt-phonon-lst"] = result(nf.spectral_h(e_d), om)

    routes["omega-TO"] = round(w, 2)
    routes["omega-LO"] = round(w * np.sqrt((cr.eps_inf + s) / cr.eps_inf), 2)
    routes["classical-bose"] = result(nf.KB * jq / (4 * np.pi**2), om)
    routes["theta-over-T"] = result(theta(om, 300) / 300 * jq / (4 * np.pi**2), om)
    routes["flux-to-0K"] = result(theta(om, 300) * jq / (4 * np.pi**2), om)
    for g in (1.0, 0.1):
        grid = np.arange(600.0, 800.0, 0.001)
        e_g = bi.lorentz_eps(np.array([w]), np.array([s]), cr.eps_inf, grid, g)
        routes[f"gamma-{g}"] = result(nf.spectral_h(e_g, grid), grid)
    print(json.dumps(routes, indent=2))


if __name__ == "__main__":
    main()
