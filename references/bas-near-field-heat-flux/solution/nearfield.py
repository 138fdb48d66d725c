"""Oracle of bas-near-field-heat-flux: near-field radiative heat transfer between two half-spaces of ordered 11BAs
at 300 K across vacuum gaps of 10 nm and 100 nm, in the quasi-static limit (p-polarised r = (eps - 1)/(eps + 1),
independent of the wave vector k). eps(omega) is the single Lorentz oscillator of bas-reststrahlen-band (TO mode
and oscillator strength from the phonopy force constants, Born charge and eps_inf of ph.out, gamma = 2 cm^-1).

  q = int_0^inf domega/(2 pi) [Theta(omega, T1) - Theta(omega, T2)] int_0^inf k dk/(2 pi) xi(omega, k),
  xi = 4 (Im r)^2 exp(-2 k d) / |1 - r^2 exp(-2 k d)|^2,  Theta = hbar omega / (exp(hbar omega / kB T) - 1),
  h = dq/dT1 at T1 = T2 = T.

With x = 2 k d the k integral is J(omega) / (2 pi d^2), J = int_0^inf x exp(-x) (Im r)^2 / |1 - r^2 exp(-x)|^2 dx
(Gauss-Laguerre here), so h = (1 / (4 pi^2 d^2)) int domega dTheta/dT J(omega): exactly 1/d^2.
Usage (in the working folder): nearfield.py [--gamma 2] [--out answer.json]
"""

import argparse
import json
from pathlib import Path

import numpy as np

import bas_disorder as bd
import bas_isotope as bi

HBAR = 1.054571817e-34  # J s
KB = 1.380649e-23  # J/K
OMEGA = np.arange(600.0, 800.0, 0.01)  # cm^-1
GAPS = {"h_10nm_W_m2K": 10e-9, "h_100nm_W_m2K": 100e-9}
T = 300.0


def k_integral(r, n=120):
    """J(omega) = int_0^inf x exp(-x) (Im r)^2 / |1 - r^2 exp(-x)|^2 dx by n-point Gauss-Laguerre."""
    x, wx = np.polynomial.laguerre.laggauss(n)
    out = np.empty(len(r))
    for i in range(0, len(r), 2000):
        rr = r[i : i + 2000, None]
        out[i : i + 2000] = (x * rr.imag**2 / np.abs(1 - rr**2 * np.exp(-x)) ** 2 * wx).sum(1)
    return out


def dtheta_dt(omega_cm1, temp):
    """d/dT of the Bose-Einstein mean energy hbar omega / (exp(hbar omega / kB T) - 1), omega in rad/s inside."""
    y = HBAR * omega_cm1 * bd.CM1_RAD_S / (KB * temp)
    return KB * y**2 * np.exp(y) / np.expm1(y) ** 2


def ordered_eps(ws=".", gamma=bi.GAMMA, omega=OMEGA):
    cr = bi.Crystal(ws, 1)
    w, s = cr.pure(bd.M11)
    return bi.lorentz_eps(np.array([w]), np.array([s]), cr.eps_inf, omega, gamma)


def spectral_h(eps, omega=OMEGA, temp=T):
    """h per unit angular frequency times d^2 (W K^-1 s), on the grid omega (cm^-1)."""
    r = (eps - 1) / (eps + 1)
    return dtheta_dt(omega, temp) * k_integral(r) / (4 * np.pi**2)


def answer(ws=".", gamma=bi.GAMMA):
    spec = spectral_h(ordered_eps(ws, gamma))
    total = np.trapezoid(spec, OMEGA * bd.CM1_RAD_S)
    out = {"peak_cm1": round(float(OMEGA[np.argmax(spec)]), 2)}
    for key, d in GAPS.items():
        out[key] = float(f"{total / d**2:.5g}")
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--gamma", type=float, default=bi.GAMMA)
    p.add_argument("--out", default="answer.json")
    a = p.parse_args()
    ans = answer(".", a.gamma)
    Path(a.out).write_text(json.dumps(ans, indent=2) + "\n")
    print(json.dumps(ans))


if __name__ == "__main__":
    main()
