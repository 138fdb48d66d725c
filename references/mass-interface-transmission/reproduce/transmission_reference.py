"""Reference values of mass-interface-transmission: the analytic result, checked by an independent AGF.

Analytic (plane-wave matching at the junction; springs k everywhere, masses m_L | m_R):
  cos q_i = 1 - m_i omega^2 / (2k),   T(omega) = sin q_L sin q_R / sin^2((q_L + q_R) / 2)
for omega below both band tops, and T = 0 above the band top of the heavier chain, 2 sqrt(k/m_R).
Long-wavelength limit: 4 sqrt(m_L m_R) / (sqrt m_L + sqrt m_R)^2 (acoustic impedance mismatch).
AGF cross-check: closed-form lead surface Green's functions (the decaying root of k^2 g^2 - (z m - 2k) g + 1 = 0,
z = omega^2 + i 0+) with a 2-atom device, no decimation, no eta scan.
Conductance: G(T) = int_0^nu_c h nu T(nu) dn/dT dnu by adaptive quadrature (scipy) of the analytic T.
Writes OUTDIR/values.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from scipy.integrate import quad

AMU = 1.66053906660e-27
H = 6.62607015e-34
KB = 1.380649e-23
K = 40.0
ML = 28.0855 * AMU
MR = 72.63 * AMU


def analytic(nu: float) -> float:
    """Exact transmission at frequency nu (Hz)."""
    w2 = (2 * np.pi * nu) ** 2
    cl, cr = 1 - ML * w2 / (2 * K), 1 - MR * w2 / (2 * K)
    if abs(cl) >= 1 or abs(cr) >= 1:
        return 0.0
    ql, qr = np.arccos(cl), np.arccos(cr)
    return float(np.sin(ql) * np.sin(qr) / np.sin((ql + qr) / 2) ** 2)


def surface_closed_form(mass: float, w2: float) -> complex:
    """Retarded surface Green's function of a semi-infinite chain, closed form."""
    z = w2 * (1 + 1e-12j)
    b = z * mass - 2 * K
    roots = (b + np.array([1, -1]) * np.sqrt(complex(b * b - 4 * K * K))) / (2 * K * K)
    # retarded: Im g <= 0; inside the band both roots have |k g| = 1, outside pick the decaying one (|k g| < 1)
    inside = abs(b) < 2 * K
    pick = [r for r in roots if (r.imag < 0 if inside else abs(K * r) < 1)]
    return complex(pick[0])


def agf(nu: float) -> float:
    """T from a 2-atom device (one atom of each mass) between the closed-form leads."""
    w2 = (2 * np.pi * nu) ** 2
    s_l = K * K * surface_closed_form(ML, w2)
    s_r = K * K * surface_closed_form(MR, w2)
    a = np.array([[w2 * ML - 2 * K - s_l, K], [K, w2 * MR - 2 * K - s_r]], dtype=complex)
    g = np.linalg.inv(a)
    gam_l, gam_r = -2 * s_l.imag, -2 * s_r.imag
    return float(gam_l * gam_r * abs(g[0, 1]) ** 2)


def conductance(temperature: float, nu_c: float) -> float:
    """Landauer conductance (W/K) from the analytic T."""

    def integrand(nu: float) -> float:
        x = H * nu / (KB * temperature)
        if x < 1e-8:
            return KB * analytic(nu)
        return H * nu * analytic(nu) * x / temperature * np.exp(x) / np.expm1(x) ** 2

    value, _ = quad(integrand, 0.0, nu_c, limit=500, epsabs=0.0, epsrel=1e-11)
    return value


def main() -> None:
    """Analytic values, AGF cross-check, values.json."""
    out = Path(sys.argv[1]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    nu_c = np.sqrt(4 * K / MR) / (2 * np.pi)
    grid = np.round(np.arange(1, 131) * 0.05, 2)
    curve = [analytic(nu * 1e12) for nu in grid]
    cross = [agf(nu * 1e12) for nu in grid]
    print(
        f"AGF (closed-form leads) vs analytic on the 130-point grid: max |dT| = "
        f"{max(abs(a - b) for a, b in zip(curve, cross, strict=True)):.2e}"
    )
    values = {
        "T_1THz": analytic(1e12),
        "T_3THz": analytic(3e12),
        "T_5THz": analytic(5e12),
        "T_5p7THz": analytic(5.7e12),
        "T_long_wavelength": 4 * np.sqrt(ML * MR) / (np.sqrt(ML) + np.sqrt(MR)) ** 2,
        "nu_c_THz": nu_c / 1e12,
        "G_50K_pW_per_K": conductance(50.0, nu_c) * 1e12,
        "G_300K_pW_per_K": conductance(300.0, nu_c) * 1e12,
        "transmission_curve": [round(t, 6) for t in curve],
    }
    for key, value in values.items():
        if key != "transmission_curve":
            extra = (
                f"   AGF {agf(float(key[2:-3].replace('p', '.')) * 1e12):.8f}"
                if key.endswith("THz") and key.startswith("T_")
                else ""
            )
            print(f"{key:20s} {value:.8f}{extra}")
    classical = quad(lambda nu: KB * analytic(nu), 0, nu_c, limit=500)[0] * 1e12
    print(f"classical-limit conductance (a trap): {classical:.4f} pW/K")
    (out / "values.json").write_text(
        json.dumps({k: (float(v) if not isinstance(v, list) else v) for k, v in values.items()}, indent=2) + "\n"
    )


if __name__ == "__main__":
    main()
