"""Normal-incidence longitudinal phonon transmission across the abrupt Si/Ge(001) interface: the chain of (001)
atomic planes of interplanar_fc.json, by atomistic Green's functions.

At normal incidence the longitudinal displacements of the (001) planes decouple from the transverse ones, so the
interface is a one-dimensional chain of planes (mass per atom, interplanar force constants per atom) with
couplings to first- and second-neighbour planes. The on-site constant of each plane follows from translational
invariance, phi(i, i) = -sum_{j != i} phi(i, j). Principal layers hold two planes (the range of the couplings);
the leads are the bulk Si and strained-Ge chains. The scattering problem (agf.py: decimated lead Green's functions,
Bloch matrices, mode matching, flux normalisation with the layer periods) is solved at omega = 2 pi nu with
eta lowered until T + R = 1 within 1e-8. The Landauer conductance of the channel integrates h nu T dn/dT over a
grid clustered at the band edge, where T vanishes as a square root.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agf import EV_A2_AMU, scatter  # noqa: E402

H, KB = 6.62607015e-34, 1.380649e-23


class Chain:
    def __init__(self, doc: dict) -> None:
        self.si, self.ge = doc["lead_Si"], doc["lead_Ge"]
        self.m_dev = np.array(doc["device_masses_amu"])
        self.n = len(self.m_dev)  # device planes 0..n-1 (n even)
        # planes of the block system: one lead layer (two planes) on each side of the device
        self.planes = list(range(-2, self.n + 2))
        ext = list(range(-4, self.n + 4))  # two more planes on each side to complete the on-site sums
        idx = {p: k for k, p in enumerate(ext)}

        def lead_of(p: int) -> dict | None:
            return self.si if p < 0 else self.ge if p >= self.n else None

        phi = np.zeros((len(ext), len(ext)))
        for p in ext:
            for d, key in ((1, "phi_1"), (2, "phi_2")):
                q = p + d
                if q in idx and lead_of(p) is not None and lead_of(p) is lead_of(q):
                    phi[idx[p], idx[q]] = phi[idx[q], idx[p]] = lead_of(p)[key]
        for i, j, value in doc["couplings"]:
            phi[idx[i], idx[j]] = phi[idx[j], idx[i]] = value
        onsite = -phi.sum(axis=1)  # translational invariance: phi(i, i) = -sum_{j != i} phi(i, j)
        keep = [idx[p] for p in self.planes]
        d = phi[np.ix_(keep, keep)] + np.diag(onsite[keep])
        masses = np.array([lead_of(p)["mass_amu"] if lead_of(p) else self.m_dev[p] for p in self.planes])
        self.dyn = d / np.sqrt(np.outer(masses, masses)) * EV_A2_AMU

    def lead(self, lead: dict) -> tuple[np.ndarray, np.ndarray]:
        f0, f1, f2, m = -2 * (lead["phi_1"] + lead["phi_2"]), lead["phi_1"], lead["phi_2"], lead["mass_amu"]
        h00 = np.array([[f0, f1], [f1, f0]]) / m * EV_A2_AMU
        h01 = np.array([[f2, 0.0], [f1, f2]]) / m * EV_A2_AMU  # rows: planes of layer n, columns: layer n+1
        return h00, h01

    def transmission(self, nu_hz: float) -> float:
        b = [self.dyn[k : k + 2, k : k + 2] for k in range(0, len(self.planes), 2)]
        c = [self.dyn[k : k + 2, k + 2 : k + 4] for k in range(0, len(self.planes) - 2, 2)]
        onsite, coupling = b[1:-1], c
        for eta in (1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14):
            s = scatter(2 * np.pi * nu_hz, self.lead(self.si), self.lead(self.ge), onsite, coupling,
                        2 * self.si["plane_spacing_angstrom"] * 1e-10, 2 * self.ge["plane_spacing_angstrom"] * 1e-10,
                        eta_rel=eta)  # fmt: skip
            t, r = float(np.sum(np.abs(s.t) ** 2)), float(np.sum(np.abs(s.r) ** 2))
            if s.t.shape[1] == 0:
                return 0.0
            if abs(t + r - 1) < 1e-8:
                return t
        raise RuntimeError(f"{nu_hz / 1e12} THz: T + R - 1 = {t + r - 1:.2e}")

    def band_top_hz(self, lead: dict) -> float:
        return float(np.sqrt(-4 * lead["phi_1"] / lead["mass_amu"] * EV_A2_AMU) / (2 * np.pi))


def conductance(temperature: float, nus: np.ndarray, trans: np.ndarray) -> float:
    x = H * nus / (KB * temperature)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        w = np.where(x > 0, KB * x**2 * np.exp(x) / np.expm1(x) ** 2, KB)  # h nu dn/dT
    f = w * trans
    return float(np.sum(0.5 * (f[1:] + f[:-1]) * np.diff(nus)))


def main() -> None:
    chain = Chain(json.loads(Path(sys.argv[1] if len(sys.argv) > 1 else "interplanar_fc.json").read_text()))
    nu_c = min(chain.band_top_hz(chain.si), chain.band_top_hz(chain.ge))
    grid = np.round(np.arange(1, 101) * 0.1, 2)
    with Path("transmission.csv").open("w") as fh:
        fh.write("nu_THz,T\n")
        for nu in grid:
            fh.write(f"{nu:.2f},{chain.transmission(nu * 1e12):.8f}\n")
    s = np.linspace(0.0, 1.0, 2001)[1:]
    nus = nu_c * (1 - (1 - s) ** 2)  # clustered at the band top
    trans = np.array([chain.transmission(nu) for nu in nus])
    t_lw = chain.transmission(1e10)
    nus, trans = np.concatenate([[0.0], nus]), np.concatenate([[t_lw], trans])
    answer = {
        "T_2THz": chain.transmission(2e12),
        "T_5THz": chain.transmission(5e12),
        "T_8THz": chain.transmission(8e12),
        "T_9p5THz": chain.transmission(9.5e12),
        "T_long_wavelength": t_lw,
        "nu_c_THz": nu_c / 1e12,
        "G_50K_pW_per_K": conductance(50.0, nus, trans) * 1e12,
        "G_300K_pW_per_K": conductance(300.0, nus, trans) * 1e12,
    }
    json.dump({k: round(v, 6) for k, v in answer.items()}, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
