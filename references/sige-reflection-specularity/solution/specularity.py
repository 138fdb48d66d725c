"""Specularity of phonon reflection on the Si side of the intermixed Si/Ge(001) interface (sige_device.h5).

The scattering matrix comes from the same AGF calculation as sige-agf-transmission (transmission.py). The Si
lead is a perfect crystal, so the in-plane fcc translations t1 = (a/2)(1, 1, 0) and t2 = (a/2)(1, -1, 0) map it
onto itself: within each degenerate set of lead channels the velocity operator and the two translation
operators are diagonalised together, which gives every channel a definite in-plane wave vector (the eigenvalues
exp(-i k.t1), exp(-i k.t2)). Reflection into a channel of the incident in-plane wave vector is specular; into any
other, diffuse (the disorder of the interface supplies the missing momentum).
  p_all   = sum_i sum_{j: k_j = k_i} |r_ij|^2 / sum_i sum_j |r_ij|^2   over every incoming Si channel i,
  n_0, R_0, p_0: the same restricted to the incoming channels at normal incidence (k = 0): their number, their
                 mean reflectance sum_j |r_ij|^2, and their specularity.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from transmission import load, solve  # noqa: E402

FREQUENCIES_THZ = [5.0, 6.0, 7.25, 8.5, 10.25, 11.5]


def translation(positions: np.ndarray, cell: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Operator (P u)_j = u_i for the atom j at r_i + shift (displacement pattern moved by `shift`)."""
    n = len(positions)
    lx, ly = cell[0, 0], cell[1, 1]
    P = np.zeros((3 * n, 3 * n))
    for i, r in enumerate(positions):
        target = r[:2] + shift
        dxy = positions[:, :2] - target
        dxy[:, 0] -= lx * np.round(dxy[:, 0] / lx)
        dxy[:, 1] -= ly * np.round(dxy[:, 1] / ly)
        dist = np.hypot(dxy[:, 0], dxy[:, 1]) + np.abs(positions[:, 2] - r[2])
        j = int(np.argmin(dist))
        if dist[j] > 1e-3:
            raise RuntimeError("the lead layer is not invariant under the in-plane translation")
        P[3 * j : 3 * j + 3, 3 * i : 3 * i + 3] = np.eye(3)
    return P


def labels(vectors: np.ndarray, ops: list[np.ndarray]) -> list[tuple[int, ...]]:
    """In-plane wave-vector label of each channel: the phases of the translation eigenvalues in quarter turns."""
    out = []
    for u in vectors.T:
        lab = []
        for P in ops:
            value = u.conj() @ P @ u
            if abs(abs(value) - 1) > 1e-3:
                raise RuntimeError(f"channel is not a translation eigenvector (|<u|P|u>| = {abs(value):.3e})")
            lab.append(int(np.round(np.angle(value) / (np.pi / 2))) % 4)
        out.append(tuple(lab))
    return out


def main() -> None:
    dev = load(Path(sys.argv[1] if len(sys.argv) > 1 else "sige_device.h5"))
    a = dev["cell"][0, 0] / 2  # the transverse cell is 2a x 2a
    ops = [translation(dev["positions_l"], dev["cell"], np.array(t)) for t in ([a / 2, a / 2], [a / 2, -a / 2])]
    out: dict[str, list] = {"frequencies_THz": [], "p_all": [], "n_0": [], "R_0": [], "p_0": []}
    for nu in FREQUENCIES_THZ:
        s, _ = solve(dev, nu, extra_l=ops)
        k_in, k_out = labels(s.inc.vec, ops), labels(s.refl.vec, ops)
        r2 = np.abs(s.r) ** 2  # rows: incoming, columns: reflected channels
        same = np.array([[ki == ko for ko in k_out] for ki in k_in])
        normal = [i for i, k in enumerate(k_in) if k == (0, 0)]
        out["frequencies_THz"].append(nu)
        out["p_all"].append(round(float((r2 * same).sum() / r2.sum()), 6))
        out["n_0"].append(len(normal))
        out["R_0"].append(round(float(r2[normal].sum() / len(normal)), 6))
        out["p_0"].append(round(float((r2[normal] * same[normal]).sum() / r2[normal].sum()), 6))
        print(f"{nu:6.2f} THz  channels {len(k_in)} (normal {len(normal)})  p_all {out['p_all'][-1]:.5f}"
              f"  R_0 {out['R_0'][-1]:.5f}  p_0 {out['p_0'][-1]:.5f}", file=sys.stderr)  # fmt: skip
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
