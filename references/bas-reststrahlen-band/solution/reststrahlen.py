"""Oracle of bas-reststrahlen-band: the band of negative Re eps (the reststrahlen band) and of Re eps < -1 (surface
phonon polaritons of a BAs-vacuum surface) of isotopically ordered 11BAs with the model width gamma = 2 cm^-1, and
the minimum of the configuration-averaged Re eps of 95 % 11B and of natural BAs (random boron isotopes in a
6x6x6 supercell, the lattice response from the Lanczos resolvent of the sparse dynamical matrix).
Usage (in the working folder): reststrahlen.py [--size L] [--seeds 0-1] [--out answer.json]
"""

import argparse
import json
from pathlib import Path

import numpy as np

import bas_disorder as bd
import bas_isotope as bi

OMEGA = np.arange(670.0, 750.0, 0.01)  # cm^-1
SAMPLES = {"B11_enriched": 0.05, "natural": 0.199}


def ordered_band(ws, m_boron, gamma=bi.GAMMA, cr=None):
    """Band edges of the single Lorentz oscillator of the ordered crystal (omega_TO and S from the force constants
    and Born charges)."""
    cr = cr or bi.Crystal(ws, 1)
    w, s = cr.pure(m_boron)
    eps = bi.lorentz_eps(np.array([w]), np.array([s]), cr.eps_inf, OMEGA, gamma)
    lo0, hi0 = bi.negative_band(OMEGA, eps.real, 0.0)
    lo1, hi1 = bi.negative_band(OMEGA, eps.real, -1.0)
    return {
        "reststrahlen_width_cm1": round(hi0 - lo0, 3),
        "spp_width_cm1": round(hi1 - lo1, 3),
        "min_Re_eps": round(float(eps.real.min()), 3),
    }


def disordered_eps(ws, x10, size=6, seeds=(0, 1), gamma=bi.GAMMA, ph=None, steps=400):
    """Configuration-averaged eps(OMEGA) of random boron isotopes (exact composition) in a size^3 supercell."""
    ph = ph or bd.phonopy_fc(ws)
    eps_inf, z = bd.dielectric(Path(ws) / "dfpt" / "ph.out")
    fc, is_b = bd.big_fc(ph, size, dense=False)
    volume = (ph.unitcell.cell[0, 0] * size * bd.BOHR_M) ** 3
    eps = np.zeros(len(OMEGA), complex)
    for seed in seeds:
        m_b = bd.exact_composition(int(is_b.sum()), x10, np.random.default_rng(seed))
        eps += bd.lattice_eps_resolvent(fc, is_b, m_b, z, volume, OMEGA, gamma, steps=steps)
    return eps_inf + eps / len(seeds)


def answer(ws=".", size=6, seeds=(0, 1)):
    ph = bd.phonopy_fc(ws)
    out = {"B11": ordered_band(ws, bd.M11, cr=bi.Crystal(ws, 1, ph=ph))}
    for key, x10 in SAMPLES.items():
        eps = disordered_eps(ws, x10, size, seeds, ph=ph)
        out[key] = {"min_Re_eps": round(float(eps.real.min()), 3)}
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=6)
    p.add_argument("--seeds", default="0-1")
    p.add_argument("--out", default="answer.json")
    a = p.parse_args()
    lo, hi = (int(v) for v in a.seeds.split("-"))
    ans = answer(".", a.size, tuple(range(lo, hi + 1)))
    Path(a.out).write_text(json.dumps(ans, indent=2) + "\n")
    print(json.dumps(ans))


if __name__ == "__main__":
    main()
