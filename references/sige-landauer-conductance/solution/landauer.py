"""Landauer interface conductance of the intermixed Si/Ge(001) interface of sige_device.h5.

Usage: landauer.py SIGE_DEVICE_H5 [DNU_THZ] > answer.json

The total transmission Xi(nu) at zero transverse wave vector of the 2 x 2 cross-section comes from the Caroli
formula Tr[Gamma_L G_1N Gamma_R G_1N^+], with the corner block G_1N of the device Green's function from a
recursive (block-tridiagonal) solve and the lead self-energies from Lopez Sancho decimation, at
z = omega^2 + i eta, eta = 1e-10 of the largest block entry. Xi is evaluated at the midpoints of a uniform grid of
spacing DNU (default 0.1 THz) from 0 to 12 THz (above the top of the strained-Ge spectrum at this wave vector
nothing is transmitted), and the conductance per unit area of the cross-section is the midpoint sum

    G(T) = (1/A) sum_nu h nu Xi(nu) dn/dT(nu, T) dnu,      dn/dT = (h nu / k_B T^2) e^x / (e^x - 1)^2,  x = h nu / k_B T

(the integral over omega / 2 pi is an integral over the ordinary frequency nu), with its classical limit
(k_B / A) sum Xi dnu.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import h5py
import numpy as np

EV_A2_AMU = 1.602176634e-19 / 1e-20 / 1.66053906660e-27  # eV/A^2/amu -> s^-2
H = 6.62607015e-34
KB = 1.380649e-23
TEMPERATURES_K = [50.0, 100.0, 300.0]
NU_MAX_THZ = 12.0


def weighted(b, mr, mc):
    return b / np.sqrt(np.repeat(mr, 3)[:, None] * np.repeat(mc, 3)[None, :]) * EV_A2_AMU


def load(path):
    with h5py.File(path) as h5:
        ms, mg, dm = h5["lead_Si/masses"][()], h5["lead_Ge/masses"][()], h5["device/masses"][()]
        lead_l = (weighted(h5["lead_Si/onsite"][()], ms, ms), weighted(h5["lead_Si/coupling"][()], ms, ms))
        lead_r = (weighted(h5["lead_Ge/onsite"][()], mg, mg), weighted(h5["lead_Ge/coupling"][()], mg, mg))
        nl = int(h5["device"].attrs["n_layers"])
        on = [weighted(h5["device/onsite"][k], dm[k], dm[k]) for k in range(nl)]
        masses = [ms, *dm, mg]
        cp = [weighted(h5["device/coupling"][k], masses[k], masses[k + 1]) for k in range(nl + 1)]
        cell = h5.attrs["transverse_cell_angstrom"][()]
    area = abs(np.linalg.det(cell)) * 1e-20
    return lead_l, lead_r, [lead_l[0], *on, lead_r[0]], cp, area


def surface(z, h00, h01, side):
    """Surface Green's function of a semi-infinite lead (Lopez Sancho decimation)."""
    n = len(h00)
    a, b = (h01, h01.T) if side == "right" else (h01.T, h01)
    a, b = a.astype(complex), b.astype(complex)
    es = e = h00.astype(complex)
    small = 1e-15 * np.abs(h00).max()
    for _ in range(200):
        g = np.linalg.inv(z * np.eye(n) - e)
        agb, bga = a @ g @ b, b @ g @ a
        es, e = es + agb, e + agb + bga
        a, b = a @ g @ a, b @ g @ b
        if max(np.abs(a).max(), np.abs(b).max()) < small:
            return np.linalg.inv(z * np.eye(n) - es)
    raise RuntimeError("decimation did not converge")


def xi(nu_thz, lead_l, lead_r, blocks, cp, eta=1e-10):
    """Caroli transmission at nu (THz); eta raised tenfold where the decimation overflows (at a band edge)."""
    for e in (eta, 10 * eta, 100 * eta, 1000 * eta):
        try:
            with np.errstate(over="raise", invalid="raise"):
                return _xi(nu_thz, lead_l, lead_r, blocks, cp, e)
        except (FloatingPointError, RuntimeError, np.linalg.LinAlgError):
            continue
    raise RuntimeError(f"no converged Green's function at {nu_thz} THz")


def _xi(nu_thz, lead_l, lead_r, blocks, cp, eta):
    """Caroli transmission at nu (THz) by the recursive Green's function of the block-tridiagonal chain."""
    scale = max(np.abs(lead_l[0]).max(), np.abs(lead_r[0]).max())
    z = (2 * np.pi * nu_thz * 1e12) ** 2 + 1j * eta * scale
    sl = lead_l[1].T @ surface(z, *lead_l, "left") @ lead_l[1]
    sr = lead_r[1] @ surface(z, *lead_r, "right") @ lead_r[1].T
    n = len(blocks)
    eye = np.eye(len(blocks[0]))
    # right-connected Green's functions gR_k of layers k..n-1, from the right end
    g = np.linalg.inv(z * eye - blocks[-1] - sr)
    right = [None] * n
    right[-1] = g
    for k in range(n - 2, 0, -1):
        g = np.linalg.inv(z * eye - blocks[k] - cp[k] @ right[k + 1] @ cp[k].T)
        right[k] = g
    g1n = np.linalg.inv(z * eye - blocks[0] - sl - cp[0] @ right[1] @ cp[0].T)
    for k in range(1, n):
        g1n = g1n @ cp[k - 1] @ right[k]
    gl, gr = 1j * (sl - sl.conj().T), 1j * (sr - sr.conj().T)
    return float(np.real(np.trace(gl @ g1n @ gr @ g1n.conj().T)))


def dndt(nu_hz, t):
    x = H * nu_hz / (KB * t)
    return KB * x**2 * np.exp(-x) / (-np.expm1(-x)) ** 2 / (H * nu_hz)  # dn/dT, per K


def conductance(nu_thz, xis, dnu_thz, area):
    nu = np.asarray(nu_thz) * 1e12
    w = np.asarray(xis) * dnu_thz * 1e12
    out = {f"G_{int(t)}K_MW_per_m2_K": float(np.sum(H * nu * w * dndt(nu, t)) / area / 1e6) for t in TEMPERATURES_K}
    out["G_classical_MW_per_m2_K"] = float(KB * np.sum(w) / area / 1e6)
    return out


def main():
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "sige_device.h5")
    dnu = float(sys.argv[2]) if len(sys.argv) > 2 else 0.1
    lead_l, lead_r, blocks, cp, area = load(path)
    nu = (np.arange(int(round(NU_MAX_THZ / dnu))) + 0.5) * dnu
    xs = [xi(v, lead_l, lead_r, blocks, cp) for v in nu]
    out = {"temperatures_K": TEMPERATURES_K, **conductance(nu, xs, dnu, area)}
    json.dump(out, sys.stdout, indent=1)
    print()
    np.savetxt(sys.stderr, np.column_stack([nu, xs])[:: max(1, int(0.25 / dnu))], fmt="%.4f")


if __name__ == "__main__":
    main()
