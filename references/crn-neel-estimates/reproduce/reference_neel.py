"""Reference values of crn-neel-estimates: mean-field and RPA (Tyablikov) Neel temperatures of the model.

The pairs are found in the staged POSCAR as in crn-spin-waves (72 ordered Cr-Cr pairs, four classes). The TB2J
constants J (ordered pairs, unit vectors) become couplings of classical spins of length S in the ferromagnetic-
positive convention E = -sum_{i<j} Jc_ij S_i . S_j with Jc = 2 J / S^2. The mean-field temperature of a collinear
order p (p_i = +-1 on the four sublattices of the cell) is k_B T = S^2 Jc_p / 3 with Jc_p = sum_j Jc_ij p_i p_j,
the eigenvalue of the Fourier-transformed coupling Jc(q = 0) with eigenvector p. The RPA (Tyablikov) value is
taken here in Rusz's multi-sublattice Green's-function form: with N(q) = diag(Jc(0) p) - diag(p) Jc(q),
k_B T_RPA = S(S+1)/3 / < p_0 [N(q)^-1]_00 >_BZ on sublattice 0 (the oracle uses the Hermitian trace form). The
zone average has a 1/n error on an n x n x n midpoint grid (1/q^2 singularity at Gamma); it is extrapolated from
n = 48 and n = 96.
"""

from __future__ import annotations

import itertools
import json
import math
import sys
from pathlib import Path

import numpy as np

J_MODEL = {(0, False): -3.2, (0, True): 0.8, (1, True): 0.4, (1, False): -1.5}
SHELLS = [(2.85, 3.10), (4.10, 4.30)]
ORDER = np.array([1.0, 1.0, -1.0, -1.0])  # AFM-[110]2, Cr in POSCAR order
FM = np.ones(4)
AFM1 = np.array([1.0, -1.0, 1.0, -1.0])  # single-layer order: alternate (110) = alternate (001) planes
S = 2.47 / 2.0
KB_MEV = 0.08617333262  # meV/K


def read_poscar(path):
    """Cell rows (A) and fractional coordinates of the Cr (listed first) of a VASP 5 POSCAR."""
    lines = Path(path).read_text().splitlines()
    cell = np.array([[float(x) for x in ln.split()[:3]] for ln in lines[2:5]]) * float(lines[1])
    n = int(lines[6].split()[0])
    frac = np.array([[float(x) for x in ln.split()[:3]] for ln in lines[8 : 8 + n]])
    return cell, frac


def bonds(cell, frac):
    """Ordered Cr-Cr pairs (i, j, d, J_TB2J) of the two shells over the periodic images."""
    out = []
    for i, j in itertools.product(range(len(frac)), repeat=2):
        for t in itertools.product(range(-2, 3), repeat=3):
            d = (frac[j] + np.array(t, float) - frac[i]) @ cell
            r = float(np.linalg.norm(d))
            for shell, (lo, hi) in enumerate(SHELLS):
                if lo <= r <= hi:
                    out.append((i, j, d, J_MODEL[(shell, ORDER[i] == ORDER[j])]))
    return out


def coupling_q(blist, qs, scale):
    """Fourier-transformed couplings sum_R scale*J_ij e^{i q.d}, shape (nq, 4, 4)."""
    ii = np.array([b[0] for b in blist])
    jj = np.array([b[1] for b in blist])
    dd = np.array([b[2] for b in blist])
    jv = np.array([b[3] for b in blist]) * scale
    ph = np.exp(1j * qs @ dd.T) * jv  # (nq, npairs)
    out = np.zeros((len(qs), 4, 4), complex)
    for p in range(len(jv)):
        out[:, ii[p], jj[p]] += ph[:, p]
    return out


def midpoint_grid(cell, n):
    """Cartesian q (1/A) of an n x n x n grid shifted by half a step (Gamma excluded)."""
    g = 2 * math.pi * np.linalg.inv(cell).T
    f = (np.arange(n) + 0.5) / n
    red = np.array(list(itertools.product(f, f, f)))
    return red @ g


def rpa_average(blist, cell, n, s, batch=20000):
    """< p_0 [N(q)^-1]_00 > over the midpoint grid, N = diag(Jc(0) p) - diag(p) Jc(q), Jc = 2J/S^2 (1/meV)."""
    sc = 2.0 / s**2
    j0 = coupling_q(blist, np.zeros((1, 3)), sc)[0].real
    diag0 = np.diag(j0 @ ORDER)
    qs = midpoint_grid(cell, n)
    acc = 0.0
    for a in range(0, len(qs), batch):
        jq = coupling_q(blist, qs[a : a + batch], sc)
        nmat = diag0[None] - ORDER[None, :, None] * jq
        acc += float(np.sum(ORDER[0] * np.linalg.inv(nmat)[:, 0, 0].real))
    return acc / len(qs)


def values(poscar, s=S, n_pair=(48, 96), scale=1.0):
    """All graded quantities (K), plus diagnostics."""
    cell, frac = read_poscar(poscar)
    blist = bonds(cell, frac)
    blist = [(i, j, d, jt * scale) for i, j, d, jt in blist]
    jc0 = coupling_q(blist, np.zeros((1, 3)), 2.0 / s**2)[0].real

    def t_mf(p):
        lam = (jc0 @ p) * p
        assert np.allclose(lam, lam[0])  # p is an eigenvector of Jc(0)
        return s**2 * lam[0] / 3.0 / KB_MEV

    a1, a2 = (rpa_average(blist, cell, n, s) for n in n_pair)
    n1, n2 = n_pair
    a_inf = (n2 * a2 - n1 * a1) / (n2 - n1)  # the 1/n term removed
    t_rpa = s * (s + 1) / 3.0 / a_inf / KB_MEV
    return {
        "T_MF_afm2_K": float(t_mf(ORDER)),
        "T_RPA_afm2_K": float(t_rpa),
        "T_MF_fm_K": float(t_mf(FM)),
        "T_MF_afm1_K": float(t_mf(AFM1)),
        "eigenvalues_Jc0_meV": [float(x) for x in np.linalg.eigvalsh(jc0)],
        "T_RPA_grid_K": {str(n): float(s * (s + 1) / 3.0 / a / KB_MEV) for n, a in zip(n_pair, (a1, a2), strict=True)},
    }


if __name__ == "__main__":
    print(json.dumps(values(sys.argv[1]), indent=1))
