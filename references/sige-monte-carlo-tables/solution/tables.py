"""Interface scattering tables of the intermixed Si/Ge(001) interface of sige_device.h5 for phonon Monte Carlo.

Usage: tables.py SIGE_DEVICE_H5 [DNU_THZ] > answer.json

At each named frequency (ordinary frequency nu, omega = 2 pi nu) the flux-normalised transmission matrix is solved
twice by mode matching (agf.py): for the channels incident from Si (the file's chain as given) and for the channels
incident from Ge (the chain reversed: layers in the opposite order, every coupling block transposed, the Ge lead on
the left). The Monte Carlo transmission probability of a channel incident from one side is the sum of |t_lm|^2 over
the outgoing channels; its average over the incident channels of that side is

    T_SiGe = Xi_SiGe / n_Si,     T_GeSi = Xi_GeSi / n_Ge,

and detailed balance (reciprocity) requires Xi_SiGe = Xi_GeSi, i.e. n_Si T_SiGe = n_Ge T_GeSi.

The spectral average for a side, weighted by the heat flux its incident channels carry at temperature T,

    tau_side(T) = int dnu h nu dn/dT Xi(nu) / int dnu h nu dn/dT M_side(nu),

takes Xi(nu) from the Caroli formula at the midpoints of a uniform grid of spacing DNU (default 0.1 THz) from 0 to
11.5 THz (above the top of the strained-Ge spectrum nothing is transmitted), and the channel integral
int dnu w(nu) M_side(nu) from the bands of the perfect lead (NK wave vectors across its zone): M counts the bands
rising through nu, so the integral is the sum of w over the rising parts of every band.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import h5py
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agf import EV_A2_AMU, scatter, surface_green  # noqa: E402

FREQUENCIES_THZ = [1.5, 4.0, 5.2, 6.5, 8.6, 10.5]
TEMPERATURES_K = [100.0, 300.0]
XI_MAX_THZ = 11.5
NK = 1024
H = 6.62607015e-34
KB = 1.380649e-23


def weighted(block, m_rows, m_cols):
    return block / np.sqrt(np.repeat(m_rows, 3)[:, None] * np.repeat(m_cols, 3)[None, :]) * EV_A2_AMU


def load(path) -> dict:
    with h5py.File(path) as h5:
        ms, mg = h5["lead_Si/masses"][()], h5["lead_Ge/masses"][()]
        dm = h5["device/masses"][()]
        n = int(h5["device"].attrs["n_layers"])
        masses = [ms, *dm, mg]
        return {
            "lead_l": (weighted(h5["lead_Si/onsite"][()], ms, ms), weighted(h5["lead_Si/coupling"][()], ms, ms)),
            "lead_r": (weighted(h5["lead_Ge/onsite"][()], mg, mg), weighted(h5["lead_Ge/coupling"][()], mg, mg)),
            "onsite": [weighted(h5["device/onsite"][k], dm[k], dm[k]) for k in range(n)],
            "coupling": [weighted(h5["device/coupling"][k], masses[k], masses[k + 1]) for k in range(n + 1)],
            "period_l": float(h5["lead_Si"].attrs["period_angstrom"]) * 1e-10,
            "period_r": float(h5["lead_Ge"].attrs["period_angstrom"]) * 1e-10,
            "area_m2": abs(np.linalg.det(h5.attrs["transverse_cell_angstrom"][()])) * 1e-20,
        }


def reversed_chain(dev: dict) -> dict:
    """The same interface seen from the Ge side: +z now runs from Ge to Si."""
    return {
        "lead_l": (dev["lead_r"][0], dev["lead_r"][1].T),
        "lead_r": (dev["lead_l"][0], dev["lead_l"][1].T),
        "onsite": dev["onsite"][::-1],
        "coupling": [c.T for c in dev["coupling"][::-1]],
        "period_l": dev["period_r"],
        "period_r": dev["period_l"],
        "area_m2": dev["area_m2"],
    }


def solve(dev: dict, nu_thz: float):
    """Scattering of the channels incident from the left lead.

    eta is lowered until T + R = 1 within 1e-6 for every incident channel; otherwise the best of the tries is
    kept, which must conserve flux within 1e-4.
    """
    best, err = None, np.inf
    for eta in (1e-7, 1e-8, 1e-9, 1e-10, 1e-11):
        s = scatter(2 * np.pi * nu_thz * 1e12, dev["lead_l"], dev["lead_r"], dev["onsite"], dev["coupling"],
                    dev["period_l"], dev["period_r"], eta_rel=eta)  # fmt: skip
        total = np.sum(np.abs(s.t) ** 2, axis=1) + np.sum(np.abs(s.r) ** 2, axis=1)
        e = float(np.max(np.abs(total - 1))) if len(total) else 0.0
        if e < err:
            best, err = s, e
        if err < 1e-6:
            break
    if err > 1e-4:
        raise RuntimeError(f"{nu_thz} THz: flux not conserved (max error {err:.1e})")
    return best


def _caroli(z, lead_l, lead_r, blocks, cp):
    sl = lead_l[1].T @ surface_green(z, *lead_l, "left") @ lead_l[1]
    sr = lead_r[1] @ surface_green(z, *lead_r, "right") @ lead_r[1].T
    n = len(blocks)
    eye = np.eye(len(blocks[0]))
    if n == 1:
        g1n = np.linalg.inv(z * eye - blocks[0] - sl - sr)
    else:
        right = [None] * n
        right[-1] = np.linalg.inv(z * eye - blocks[-1] - sr)
        for k in range(n - 2, 0, -1):
            right[k] = np.linalg.inv(z * eye - blocks[k] - cp[k] @ right[k + 1] @ cp[k].T)
        g1n = np.linalg.inv(z * eye - blocks[0] - sl - cp[0] @ right[1] @ cp[0].T)
        for k in range(1, n):
            g1n = g1n @ cp[k - 1] @ right[k]
    gl, gr = 1j * (sl - sl.conj().T), 1j * (sr - sr.conj().T)
    return float(np.real(np.trace(gl @ g1n @ gr @ g1n.conj().T)))


def caroli(nu_thz, lead_l, lead_r, blocks, cp, eta=1e-10):
    """Caroli transmission at nu (THz); eta raised tenfold where the decimation fails (at a band edge)."""
    scale = max(np.abs(lead_l[0]).max(), np.abs(lead_r[0]).max())
    for e in (eta, 10 * eta, 100 * eta, 1000 * eta):
        try:
            with np.errstate(over="raise", invalid="raise"):
                return _caroli((2 * np.pi * nu_thz * 1e12) ** 2 + 1j * e * scale, lead_l, lead_r, blocks, cp)
        except (FloatingPointError, RuntimeError, np.linalg.LinAlgError):
            continue
    raise RuntimeError(f"no converged Green's function at {nu_thz} THz")


def xi_spectrum(dev: dict, dnu: float):
    """Caroli Xi(nu) at the midpoints of a uniform grid from 0 to XI_MAX (nothing is transmitted above)."""
    nu = (np.arange(int(round(XI_MAX_THZ / dnu))) + 0.5) * dnu
    blocks = [dev["lead_l"][0], *dev["onsite"], dev["lead_r"][0]]
    return nu, np.array([caroli(v, dev["lead_l"], dev["lead_r"], blocks, dev["coupling"]) for v in nu])


def lead_bands(lead, nk: int = NK):
    """Frequencies (THz) of the lead's bands at nk wave vectors k a over [0, 2 pi] (both ends included)."""
    h00, h01 = lead
    ka = np.linspace(0.0, 2 * np.pi, nk + 1)
    w2 = np.array([np.linalg.eigvalsh(h00 + h01 * np.exp(1j * x) + h01.T * np.exp(-1j * x)) for x in ka])
    return np.sqrt(np.clip(w2, 0.0, None)) / (2 * np.pi * 1e12)


def channel_integral(bands, weight) -> float:
    """int dnu weight(nu) M(nu), M the number of right-going channels at nu: the rising parts of every band."""
    d = np.diff(bands, axis=0)
    mid = 0.5 * (bands[1:] + bands[:-1])
    up = d > 0
    return float(np.sum(weight(mid[up]) * d[up]))


def dndt(nu_hz, t):
    x = H * nu_hz / (KB * t)
    return KB * x**2 * np.exp(-x) / (-np.expm1(-x)) ** 2 / (H * nu_hz)


def heat_weight(t):
    """h nu dn/dT (J/K) as a function of nu in THz: the heat a channel carries per unit frequency and kelvin."""
    return lambda nu_thz: H * nu_thz * 1e12 * dndt(nu_thz * 1e12, t)


def tables(dev: dict, dnu: float = 0.1) -> tuple[dict, dict]:
    rev = reversed_chain(dev)
    out: dict = {"frequencies_THz": [], "n_Si": [], "n_Ge": [], "T_SiGe": [], "T_GeSi": []}
    for nu in FREQUENCIES_THZ:
        s, g = solve(dev, nu), solve(rev, nu)
        out["frequencies_THz"].append(nu)
        out["n_Si"].append(int(s.t.shape[0]))
        out["n_Ge"].append(int(g.t.shape[0]))
        out["T_SiGe"].append(round(float(np.sum(np.abs(s.t) ** 2)) / s.t.shape[0], 6))
        out["T_GeSi"].append(round(float(np.sum(np.abs(g.t) ** 2)) / g.t.shape[0], 6))
    nu, xi = xi_spectrum(dev, dnu)
    b_si, b_ge = lead_bands(dev["lead_l"]), lead_bands(dev["lead_r"])
    for t in TEMPERATURES_K:
        w = heat_weight(t)
        g = float(np.sum(w(nu) * xi) * dnu)
        out[f"tau_SiGe_{int(t)}K"] = round(g / channel_integral(b_si, w), 6)
        out[f"tau_GeSi_{int(t)}K"] = round(g / channel_integral(b_ge, w), 6)
    return out, {"nu": nu, "xi": xi}


def main() -> None:
    dev = load(Path(sys.argv[1] if len(sys.argv) > 1 else "sige_device.h5"))
    dnu = float(sys.argv[2]) if len(sys.argv) > 2 else 0.1
    out, spec = tables(dev, dnu)
    json.dump(out, sys.stdout, indent=1)
    print()
    np.savetxt(sys.stderr, np.column_stack([spec["nu"], spec["xi"]]), fmt="%.4f")


if __name__ == "__main__":
    main()
