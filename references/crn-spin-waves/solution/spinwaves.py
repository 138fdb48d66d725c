"""Oracle for crn-spin-waves: linear spin waves of AFM-[110]2 CrN from the linearised equations of motion.

Written independently of the reference script (a Holstein-Primakoff / Bogoliubov diagonalisation): here the
classical Landau-Lifshitz equations of the four Cr spins of the cell are linearised about the collinear order,
which gives the same harmonic spectrum. With TB2J's energy E = -sum_{i != j} J_ij e_i . e_j (ordered pairs, unit
vectors) and spins of length S, the transverse deviation m_i = m_x + i m_y of spin i obeys
hbar dm_i/dt = (2i/S) [s_i sum_j J_ij(k) m_j - (sum_j J_ij(0) s_j) m_i], so the magnon energies are the moduli of
the eigenvalues of (2/S) [diag(s) J(k) - diag(J(0) s)].
"""

from __future__ import annotations

import itertools
import json
import math
import sys
from pathlib import Path

import numpy as np

# model exchange constants of the prompt (TB2J convention, meV): (shell, parallel in the order) -> J
J_MODEL = {(0, False): -3.2, (0, True): 0.8, (1, True): 0.4, (1, False): -1.5}
SHELLS = [(2.85, 3.10), (4.10, 4.30)]  # nearest (2.89-3.03 A) and next-nearest (4.18-4.19 A) Cr-Cr shells
UP_DOWN = np.array([1.0, 1.0, -1.0, -1.0])  # Cr in POSCAR order
S = 2.47 / 2.0  # g mu_B S = 2.47 mu_B with g = 2
MEV_TO_THZ = 0.2417989242  # nu = E / h


def read_cr(path):
    """Cell rows (A) and fractional coordinates of the Cr (listed first) of a VASP 5 POSCAR."""
    lines = Path(path).read_text().splitlines()
    cell = np.array([[float(x) for x in ln.split()[:3]] for ln in lines[2:5]]) * float(lines[1])
    n = int(lines[6].split()[0])
    frac = np.array([[float(x) for x in ln.split()[:3]] for ln in lines[8 : 8 + n]])
    return cell, frac


def pair_list(cell, frac):
    """Ordered Cr-Cr pairs (i, j, r_j + R - r_i, J) of the two shells, over periodic images."""
    pairs = []
    for i, j in itertools.product(range(len(frac)), repeat=2):
        for t in itertools.product(range(-2, 3), repeat=3):
            d = (frac[j] + np.array(t, float) - frac[i]) @ cell
            r = np.linalg.norm(d)
            for shell, (lo, hi) in enumerate(SHELLS):
                if lo <= r <= hi:
                    pairs.append((i, j, d, J_MODEL[(shell, UP_DOWN[i] == UP_DOWN[j])]))
    return pairs


def spectrum(pairs, k):
    """Magnon energies (meV, ascending) at Cartesian k (1/A) from the linearised equations of motion."""
    n = len(UP_DOWN)
    jk = np.zeros((n, n), complex)
    j0 = np.zeros((n, n))
    for i, j, d, jij in pairs:
        jk[i, j] += jij * np.exp(1j * (k @ d))
        j0[i, j] += jij
    dyn = (2.0 / S) * (np.diag(UP_DOWN) @ jk - np.diag(j0 @ UP_DOWN))
    return np.sort(np.abs(np.linalg.eigvals(dyn)))


def main():
    """Write the answer for the POSCAR given on the command line to stdout."""
    cell, frac = read_cr(sys.argv[1] if len(sys.argv) > 1 else "POSCAR")
    pairs = pair_list(cell, frac)
    g = 2 * math.pi * np.linalg.inv(cell).T  # rows: reciprocal vectors of the cell (1/A)
    w_x = spectrum(pairs, 0.5 * g[0])
    w_g = spectrum(pairs, np.zeros(3))  # two Goldstone modes at 0, two finite ones
    w_z = spectrum(pairs, 0.5 * g[2])
    assert min(spectrum(pairs, 0.5 * (g[0] + g[1] + g[2]))) > 0  # no soft mode: the order is stable
    vel = []
    for ax in range(3):
        u = g[ax] / np.linalg.norm(g[ax])
        ks = np.array([2e-4, 4e-4, 8e-4])
        vel.append(float(np.polyfit(ks, [spectrum(pairs, kk * u)[0] for kk in ks], 1)[0]))
    ans = {
        "omega_X_lower_meV": float(w_x[0]),
        "omega_X_upper_meV": float(w_x[-1]),
        "splitting_X_THz": float((w_x[-1] - w_x[0]) * MEV_TO_THZ),
        "omega_Z_meV": float(w_z.mean()),
        "omega_Gamma_optical_meV": float(w_g[-1]),
        "velocity_x_meV_A": vel[0],
        "velocity_y_meV_A": vel[1],
        "velocity_z_meV_A": vel[2],
    }
    print(json.dumps(ans, indent=1))


if __name__ == "__main__":
    main()
