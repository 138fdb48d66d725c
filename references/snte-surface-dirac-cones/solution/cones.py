"""Surface Dirac cones of a SnTe(110) slab in a p-orbital tight-binding model (numpy and scipy only).

Builds the slab Hamiltonian (Sn and Te p orbitals with spin, nearest-neighbour Sn-Te and next-nearest Sn-Sn and
Te-Te sigma-type hoppings, on-site spin-orbit coupling), finds the Dirac point of the surface bands on the mirror
line Gamma-Y, its energy and its velocity across the line, and what an exchange field on the two outermost layers
of each surface does: along the mirror-plane normal [1-10] it moves the Dirac point along the line, normal to the
surface it opens a gap. Writes answer.json.

Usage: python3 cones.py [ANSWER_JSON] [--layers N] [--dk DK]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy.optimize import minimize, minimize_scalar

A = 6.32  # angstrom, cubic rock-salt cell
M, T12, T11, T22, LAM_SN, LAM_TE = 1.65, 0.90, 0.50, -0.50, 0.70, 0.70  # eV
EXCHANGE = 0.10  # eV, on each of the two outermost layers of both surfaces

EPS = np.zeros((3, 3, 3))
EPS[0, 1, 2] = EPS[1, 2, 0] = EPS[2, 0, 1] = 1
EPS[0, 2, 1] = EPS[2, 1, 0] = EPS[1, 0, 2] = -1
L_OP = [-1j * EPS[:, b, :] for b in range(3)]  # (L_b)_{ac} = -i eps_{abc} in (px, py, pz)
SIGMA = [np.array([[0, 1], [1, 0]]), np.array([[0, -1j], [1j, 0]]), np.array([[1, 0], [0, -1]])]
LS = sum(np.kron(L_OP[b], SIGMA[b]) for b in range(3)) / 2  # L.S with S = sigma/2; basis orbital x spin
U = np.array([1.0, -1.0, 0.0]) / np.sqrt(2)  # in-plane [1-10]
V = np.array([0.0, 0.0, 1.0])  # in-plane [001]
N_HAT = np.array([1.0, 1.0, 0.0]) / np.sqrt(2)  # surface normal [110]
A1, A2 = A / np.sqrt(2), A  # in-plane periods along U and V


def hop(d: np.ndarray, t: float) -> np.ndarray:
    """Sigma-type p-p hopping block t (d.r)(d.r') for bond direction d, spin diagonal."""
    dh = d / np.linalg.norm(d)
    return np.kron(t * np.outer(dh, dh), np.eye(2))


def onsite(species: str) -> np.ndarray:
    """On-site energy (+M on Sn, -M on Te) and spin-orbit coupling 2 lambda L.S."""
    if species == "Sn":
        return M * np.eye(6) + 2 * LAM_SN * LS
    return -M * np.eye(6) + 2 * LAM_TE * LS


class Slab:
    """A (110) slab of `layers` atomic layers, one Sn and one Te per layer and surface cell."""

    def __init__(self, layers: int) -> None:
        self.sites = []
        for j in range(layers):
            s = j % 2
            for sp, pv in (("Sn", s * A / 2), ("Te", (1 - s) * A / 2)):
                self.sites.append((sp, s * A / (2 * np.sqrt(2)) * U + pv * V + j * A / (2 * np.sqrt(2)) * N_HAT, j))
        n = len(self.sites)
        self.n = n
        self.h0 = np.zeros((6 * n, 6 * n), complex)
        for i, (sp, _, _) in enumerate(self.sites):
            self.h0[6 * i : 6 * i + 6, 6 * i : 6 * i + 6] = onsite(sp)
        rows, cols, ds, blocks = [], [], [], []
        for i, (si, ri, li) in enumerate(self.sites):
            for j, (sj, rj, lj) in enumerate(self.sites):
                if abs(li - lj) > 2:
                    continue
                for p in range(-1, 2):
                    for q in range(-1, 2):
                        d = rj + p * A1 * U + q * A2 * V - ri
                        dist = np.linalg.norm(d)
                        if si != sj and abs(dist - A / 2) < 1e-6:
                            t = T12
                        elif si == sj and abs(dist - A / np.sqrt(2)) < 1e-6:
                            t = T11 if si == "Sn" else T22
                        else:
                            continue
                        rows.append(i)
                        cols.append(j)
                        ds.append(d)
                        blocks.append(hop(d, t))
        self.rows, self.cols = np.array(rows), np.array(cols)
        self.ds, self.blocks = np.array(ds), np.array(blocks)
        self.layer = np.array([s[2] for s in self.sites])

    def hamiltonian(self, ku: float, kv: float, exchange: np.ndarray | None = None) -> np.ndarray:
        """H(k) for in-plane k = ku U + kv V (1/angstrom); exchange: field vector (eV) on the outer two layers."""
        k = ku * U + kv * V
        ph = np.exp(1j * self.ds @ k)
        h4 = np.zeros((self.n, self.n, 6, 6), complex)
        np.add.at(h4, (self.rows, self.cols), self.blocks * ph[:, None, None])
        h = self.h0 + h4.transpose(0, 2, 1, 3).reshape(6 * self.n, 6 * self.n)
        if exchange is not None:
            zeeman = np.kron(np.eye(3), sum(exchange[b] * SIGMA[b] for b in range(3)))
            top = self.layer.max()
            for i, (_, _, lay) in enumerate(self.sites):
                if lay <= 1 or lay >= top - 1:
                    h[6 * i : 6 * i + 6, 6 * i : 6 * i + 6] += zeeman
        return h

    def gap(self, ku: float, kv: float, exchange: np.ndarray | None = None) -> tuple[float, float]:
        """Direct gap at half filling and its mid-gap energy, in eV."""
        e = np.linalg.eigvalsh(self.hamiltonian(ku, kv, exchange))
        nocc = 3 * self.n
        return e[nocc] - e[nocc - 1], 0.5 * (e[nocc] + e[nocc - 1])


def dirac_point(slab: Slab, exchange: np.ndarray | None, kv0: float, window: float) -> tuple[float, float]:
    """The crossing on the mirror line k_u = 0 near kv0 (1/angstrom): its k_v and the gap there (eV)."""
    r = minimize_scalar(
        lambda kv: slab.gap(0.0, kv, exchange)[0],
        bounds=(kv0 - window, kv0 + window),
        method="bounded",
        options={"xatol": 1e-9},
    )
    return float(r.x), float(r.fun)


def min_gap(slab: Slab, exchange: np.ndarray, kv0: float) -> tuple[float, np.ndarray]:
    """Smallest direct gap (eV) in the plane near (0, kv0), from the best point on the mirror line."""
    kv, _ = dirac_point(slab, exchange, kv0, 0.05)
    simplex = [[0.003, kv], [-0.003, kv + 0.003], [0.0, kv - 0.003]]
    r = minimize(
        lambda x: slab.gap(x[0], x[1], exchange)[0],
        [0.0, kv],
        method="Nelder-Mead",
        options={"xatol": 1e-7, "fatol": 1e-9, "initial_simplex": simplex},
    )
    return float(r.fun), r.x


def main() -> None:
    """Locate the Dirac point, its velocity across the mirror line and the effect of two exchange fields."""
    ap = argparse.ArgumentParser()
    ap.add_argument("answer", nargs="?", default="answer.json")
    ap.add_argument("--layers", type=int, default=30)
    ap.add_argument("--dk", type=float, default=1e-3, help="finite-difference step for the velocity (1/angstrom)")
    args = ap.parse_args()
    slab = Slab(args.layers)
    unit = 2 * np.pi / A  # 1/angstrom per (2 pi/a)
    kd, gap0 = dirac_point(slab, None, 0.8 * np.pi / A, 0.1 * np.pi / A)
    _, ed = slab.gap(0.0, kd)
    nocc = 3 * slab.n
    e = np.linalg.eigvalsh(slab.hamiltonian(args.dk, kd))
    v_perp = (e[nocc] - e[nocc - 1]) / (2 * args.dk)  # each branch moves by v dk away from the crossing
    kd_u, gap_u = dirac_point(slab, EXCHANGE * U, kd, 0.05)
    gap_n, where_n = min_gap(slab, EXCHANGE * N_HAT, kd)
    answer = {
        "dirac_kv_2pi_over_a": round(kd / unit, 5),
        "dirac_energy_eV": round(float(ed), 4),
        "velocity_perp_eV_A": round(float(v_perp), 4),
        "gapless_with_field_1-10": bool(gap_u < 1e-4),
        "dirac_shift_field_1-10_2pi_over_a": round(abs(kd_u - kd) / unit, 5),
        "gap_with_field_normal_meV": round(gap_n * 1000, 4),
    }
    print(f"{args.layers} layers: gap at the Dirac point {gap0 * 1e3:.4f} meV; [1-10] field: {gap_u * 1e3:.5f} meV")
    print(f"normal field: smallest gap at k = {where_n} 1/A")
    Path(args.answer).write_text(json.dumps(answer, indent=2) + "\n")
    print(json.dumps(answer, indent=2))


if __name__ == "__main__":
    main()
