"""Spin splitting of the two-sublattice d-wave altermagnet model, numerically (numpy only).

Builds the 2x2 Bloch Hamiltonian of each spin channel, diagonalises it on a k grid in units of 2pi/a, and writes
answer.json: the splitting of the lower band at X and at (1/4, 0), its maximum over the zone and where, the
segments of G-X-M-G on which it vanishes, and its zone averages (signed and absolute).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

T1, T2, TAB, J = 0.40, 0.25, 0.15, 0.50  # eV


def bands(kx: np.ndarray, ky: np.ndarray, sigma: int) -> np.ndarray:
    """Eigenvalues (..., 2) in eV at k in units of 2pi/a, for spin sigma = +1 (up) or -1 (down)."""
    x, y = 2 * np.pi * kx, 2 * np.pi * ky  # k_x a, k_y a
    ea = -2 * T1 * np.cos(x) - 2 * T2 * np.cos(y)
    eb = -2 * T2 * np.cos(x) - 2 * T1 * np.cos(y)
    t = -4 * TAB * np.cos(x / 2) * np.cos(y / 2)
    h = np.zeros((*np.shape(x), 2, 2))
    h[..., 0, 0] = ea - sigma * J
    h[..., 1, 1] = eb + sigma * J
    h[..., 0, 1] = h[..., 1, 0] = t
    return np.linalg.eigvalsh(h)


def split(kx: np.ndarray, ky: np.ndarray) -> np.ndarray:
    """Delta E_1 = E_1,up - E_1,down in meV."""
    return (bands(kx, ky, +1)[..., 0] - bands(kx, ky, -1)[..., 0]) * 1000


def main() -> None:
    """Evaluate and write answer.json (or the path given)."""
    out = sys.argv[1] if len(sys.argv) > 1 else "answer.json"
    n = (
        int(sys.argv[2]) if len(sys.argv) > 2 else 400
    )  # uniform grid over the zone, [-1/2, 1/2) in units of 2pi/a, X and Y included
    g = (np.arange(n) - n // 2) / n
    kx, ky = np.meshgrid(g, g, indexing="ij")
    de = split(kx, ky)
    i = np.unravel_index(np.argmax(np.abs(de)), de.shape)
    s = np.linspace(0, 1, 201)
    segments = {"G-X": (s / 2, 0 * s), "X-M": (0 * s + 0.5, s / 2), "M-G": ((1 - s) / 2, (1 - s) / 2)}
    nodal = {name: bool(np.max(np.abs(split(px, py))) < 1e-6) for name, (px, py) in segments.items()}
    answer = {
        "dE_X_meV": round(float(split(np.array(0.5), np.array(0.0))), 4),
        "dE_quarter_GX_meV": round(float(split(np.array(0.25), np.array(0.0))), 4),
        "max_abs_dE_meV": round(float(np.abs(de[i])), 4),
        "k_max_distance_2pi_over_a": round(float(np.hypot(kx[i], ky[i])), 4),
        "bz_average_dE_meV": round(float(de.mean()), 6),
        "bz_average_abs_dE_meV": round(float(np.abs(de).mean()), 4),
        "nodal": nodal,
    }
    Path(out).write_text(json.dumps(answer, indent=2) + "\n")
    print(json.dumps(answer, indent=2))


if __name__ == "__main__":
    main()
