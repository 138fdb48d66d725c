"""Reference values of crn-spin-waves: linear spin-wave theory of AFM-[110]2 CrN in the staged 8-atom cell.

The model exchange constants are in TB2J's convention, E = -sum_{i != j} J_ij e_i . e_j (unit vectors, ordered
pairs, positive ferromagnetic). With spins of length S (g mu_B S = the Cr moment), the spin Hamiltonian is
H = (1/2) sum_{i != j} K_ij S_i . S_j with K_ij = -2 J_ij / S^2 (antiferromagnetic positive). Holstein-Primakoff
bosons on the four Cr sublattices of the cell (up, up, down, down), kept to quadratic order, give the 8 x 8
bosonic problem; its physical energies are the eigenvalues of sigma_z M(k) with positive para-norm (Colpa).

Usage: reference_lswt.py POSCAR [--variant NAME] -> JSON on stdout.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from pathlib import Path

import numpy as np

J_TB2J = {(0, False): -3.2, (0, True): 0.8, (1, True): 0.4, (1, False): -1.5}  # meV, (shell, parallel)
WINDOWS = [(2.85, 3.10), (4.10, 4.30)]
SPINS = np.array([1, 1, -1, -1])
MOMENT = 2.47  # mu_B, g = 2
H_MEV_PS = 4.135667696  # h in meV * ps  (1 meV = 0.2417989 THz)


def read_poscar(path: str):
    """Cell (rows, A) and fractional Cr coordinates of a VASP 5 POSCAR with Cr first."""
    lines = Path(path).read_text().splitlines()
    cell = np.array([[float(x) for x in ln.split()[:3]] for ln in lines[2:5]]) * float(lines[1])
    n_cr = int(lines[6].split()[0])
    frac = np.array([[float(x) for x in ln.split()[:3]] for ln in lines[8 : 8 + n_cr]])
    return cell, frac


def bonds(cell, frac, jtab=J_TB2J, spins=SPINS):
    """Every ordered Cr-Cr pair (i, j, d) of the two shells with its TB2J constant; d = r_j + R - r_i (A)."""
    out = []
    for i, j in itertools.product(range(len(frac)), repeat=2):
        for image in itertools.product((-2, -1, 0, 1, 2), repeat=3):
            d = (frac[j] + np.array(image) - frac[i]) @ cell
            r = float(np.linalg.norm(d))
            for shell, (lo, hi) in enumerate(WINDOWS):
                if lo <= r <= hi:
                    out.append((i, j, d, jtab[(shell, bool(spins[i] == spins[j]))]))
    return out


def energies(blist, s, k, spins=SPINS, pair_factor=2.0):
    """Magnon energies (meV, ascending) at Cartesian k (1/A). K_ij = -pair_factor J / S^2."""
    n = len(spins)
    kmat0 = np.zeros((n, n), complex)
    kmat = np.zeros((n, n), complex)
    for i, j, d, jt in blist:
        kk = -pair_factor * jt / s**2
        kmat0[i, j] += kk
        kmat[i, j] += kk * np.exp(1j * np.dot(k, d))
    a = np.zeros((n, n), complex)
    b = np.zeros((n, n), complex)
    for i in range(n):
        a[i, i] = s * sum((-spins[i] * spins[m]) * kmat0[i, m].real for m in range(n))
        for j in range(n):
            if spins[i] == spins[j]:
                a[i, j] += s * kmat[i, j]
            else:
                b[i, j] += s * kmat[i, j]
    # Nambu basis (alpha_k, alpha_{-k}^dagger): M = [[A(k), B(k)], [B(k)^H, A(-k)^T]]. A(k) is Hermitian and
    # A(-k) = A(k)^*, so A(-k)^T = A(k); B(k) = B(-k)^T holds bond by bond.
    m = np.block([[a, b], [b.conj().T, a]])
    sz = np.diag([1.0] * n + [-1.0] * n)
    w, v = np.linalg.eig(sz @ m)
    norms = np.einsum("ij,ij->j", v.conj(), sz @ v).real
    pos = np.sort(w.real[norms > 0])
    return pos


MEV_TO_THZ = 1.0 / H_MEV_PS  # nu = E / h


def values(poscar: str, s: float = MOMENT / 2.0, pair_factor: float = 2.0, dk: float = 1e-4) -> dict:
    """The graded quantities of the spectrum.

    Energies at X (lower, upper pair), Z and the optical mode at Gamma, the X splitting as a frequency
    nu = dE / h, and the acoustic-mode slopes along the three cell axes (meV A).
    """
    cell, frac = read_poscar(poscar)
    blist = bonds(cell, frac)
    g = 2 * math.pi * np.linalg.inv(cell).T
    w_x = energies(blist, s, 0.5 * g[0], pair_factor=pair_factor)
    w_z = energies(blist, s, 0.5 * g[2], pair_factor=pair_factor)
    w_g = energies(blist, s, 1e-7 * g[0] / np.linalg.norm(g[0]), pair_factor=pair_factor)
    out = {
        "omega_X_lower_meV": float(w_x[0]),
        "omega_X_upper_meV": float(w_x[-1]),
        "splitting_X_THz": float((w_x[-1] - w_x[0]) * MEV_TO_THZ),
        "omega_Z_meV": float(w_z.mean()),
        "omega_Gamma_optical_meV": float(w_g[-1]),
    }
    for ax, name in enumerate("xyz"):
        u = g[ax] / np.linalg.norm(g[ax])
        out[f"velocity_{name}_meV_A"] = float(energies(blist, s, dk * u, pair_factor=pair_factor)[0] / dk)
    out["spread_X_meV"] = float(w_x[1] - w_x[0]) + float(w_x[3] - w_x[2])
    out["spread_Z_meV"] = float(w_z[-1] - w_z[0])
    return out


def main() -> None:
    """Print the graded values for the POSCAR given on the command line."""
    p = argparse.ArgumentParser()
    p.add_argument("poscar")
    p.add_argument("--spin", type=float, default=MOMENT / 2.0)
    p.add_argument("--pair-factor", type=float, default=2.0)
    args = p.parse_args()
    print(json.dumps(values(args.poscar, args.spin, args.pair_factor), indent=1))


if __name__ == "__main__":
    main()
