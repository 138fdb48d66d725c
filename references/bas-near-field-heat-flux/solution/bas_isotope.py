"""Infrared response of BAs at any 10B fraction, from the staged force constants and Born charges.

Builds on bas_disorder.py (the supercell tool of bas-natural-dielectric): for a 10B fraction x10 it assigns exactly
round(x10 N_B) 10B masses at random on the boron sites of an L x L x L supercell of the conventional cube,
diagonalises the Gamma-point dynamical matrix and returns the infrared oscillator strengths. From them: the
S-weighted mean and spread of the TO frequencies, and the configuration-averaged eps(omega) with a model width.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import bas_disorder as bd

GAMMA = 2.0  # cm^-1, the model width of the prompts


class Crystal:
    """Force constants of one L x L x L supercell and the DFPT eps_inf, Z*, shared by every composition."""

    def __init__(self, ws=".", size=4, ph=None):
        self.ph = ph or bd.phonopy_fc(ws)
        self.eps_inf, self.z = bd.dielectric(Path(ws) / "dfpt" / "ph.out")
        self.size = size
        self.fc, self.is_b = bd.big_fc(self.ph, size)
        self.volume = (self.ph.unitcell.cell[0, 0] * size * bd.BOHR_M) ** 3
        self.n_boron = int(self.is_b.sum())

    def oscillators(self, x10, seed):
        """Optical Gamma modes of one configuration: frequencies (cm^-1) and oscillator strengths S_j."""
        m_b = bd.exact_composition(self.n_boron, x10, np.random.default_rng(seed))
        w, p2 = bd.modes(self.fc, self.is_b, m_b, self.z)
        keep = w > 100 * bd.CM1_RAD_S  # the acoustic triplet at Gamma
        s = p2[keep] * bd.E_C**2 / (bd.EPS_VAC * self.volume * w[keep] ** 2)
        return w[keep] / bd.CM1_RAD_S, s

    def pure(self, m_boron):
        """The one infrared-active TO mode of the ordered crystal with boron mass m_boron: (omega_TO, S)."""
        w, p2 = bd.modes(self.fc, self.is_b, np.full(self.n_boron, m_boron), self.z)
        s = p2 * bd.E_C**2 / (bd.EPS_VAC * self.volume * np.where(w > 0, w, 1.0) ** 2)
        j = np.argmax(np.where(w > 100 * bd.CM1_RAD_S, s, 0.0))
        return float(w[j] / bd.CM1_RAD_S), float(s[w > 100 * bd.CM1_RAD_S].sum())


def moments(wc, s):
    """S-weighted mean and standard deviation of the mode frequencies."""
    mean = float((s * wc).sum() / s.sum())
    return mean, float(np.sqrt((s * (wc - mean) ** 2).sum() / s.sum()))


def lorentz_eps(wc, s, eps_inf, omega, gamma=GAMMA):
    """eps(omega) = eps_inf + sum_j S_j w_j^2 / (w_j^2 - omega^2 - i gamma omega), all in cm^-1."""
    out = np.full(len(omega), complex(eps_inf))
    for k in range(0, len(wc), 128):  # blocks of modes keep the temporary arrays small
        w, sk = wc[k : k + 128, None], s[k : k + 128, None]
        out += (sk * w**2 / (w**2 - omega**2 - 1j * gamma * omega)).sum(0)
    return out


def response(cr: Crystal, x10, seeds=(0, 1, 2, 3), omega=None, gamma=GAMMA):
    """Configuration averages at one 10B fraction: mean and spread of the TO frequencies, eps_0 and, on the
    grid omega (cm^-1), the configuration-averaged eps(omega)."""
    means, sds, eps0 = [], [], []
    eps = None if omega is None else np.zeros(len(omega), complex)
    for seed in seeds:
        wc, s = cr.oscillators(x10, seed)
        m, sd = moments(wc, s)
        means.append(m)
        sds.append(sd)
        eps0.append(cr.eps_inf + s.sum())
        if omega is not None:
            eps += lorentz_eps(wc, s, 0.0, omega, gamma)
    out = {"mean": float(np.mean(means)), "sd": float(np.mean(sds)), "eps0": float(np.mean(eps0))}
    if omega is not None:
        out["eps"] = cr.eps_inf + eps / len(seeds)
    return out


def negative_band(omega, re_eps, level=0.0):
    """Edges (cm^-1, linearly interpolated) of the outermost crossings of Re eps = level, or None if Re eps
    never goes below the level on the grid."""
    below = np.flatnonzero(re_eps < level)
    if len(below) == 0:
        return None
    i, j = below[0], below[-1]

    def cross(a, b):
        return omega[a] + (level - re_eps[a]) * (omega[b] - omega[a]) / (re_eps[b] - re_eps[a])

    return float(cross(i - 1, i)), float(cross(j, j + 1))
