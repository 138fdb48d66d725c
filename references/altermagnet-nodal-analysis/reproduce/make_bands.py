"""Reference values of altermagnet-nodal-analysis from the closed-form eigenvalues of the model on the task's grid.

Usage: python3 make_bands.py OUTDIR

The model (stated in the prompt): a two-sublattice square-lattice altermagnet of the rutile type, whose
sublattices are related by a fourfold screw, so that the anisotropy enters as a d_xy form factor:
    H_s(k) = e0(k) + T(k) tau_x + (L(k) - s J) tau_z,
    e0 = -2 t (cos x + cos y) - 4 t2 cos x cos y,   T = -4 t_ab cos(x/2) cos(y/2),   L = -4 t_d sin x sin y,
with x = k_x a, y = k_y a, s = +1 (up) / -1 (down). The splitting of the lower band is
    dE_1 = sqrt((L + J)^2 + T^2) - sqrt((L - J)^2 + T^2),
odd in L: zero on the axes k_x = 0, k_y = 0 (and the zone edges), opposite signs on the two diagonals.
The bands are evaluated in closed form on the uniform 48 x 48 grid of the prompt (units of 2 pi/a) and stored in
an HDF5 file with spin DOWN first (as its attributes say), then read back exactly as an analyst would; the oracle
instead diagonalises the 2x2 matrices numerically. Writes OUTDIR/bands.h5 and OUTDIR/values.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import h5py
import numpy as np

A = 3.8  # angstrom
T, T2, TAB, TD, J = 0.30, 0.05, 0.20, 0.08, 0.35  # eV
N = 48


def eigen(kx: np.ndarray, ky: np.ndarray, s: int) -> np.ndarray:
    """Eigenvalues (nk, 2) in eV, ascending."""
    x, y = 2 * np.pi * kx, 2 * np.pi * ky
    e0 = -2 * T * (np.cos(x) + np.cos(y)) - 4 * T2 * np.cos(x) * np.cos(y)
    t = -4 * TAB * np.cos(x / 2) * np.cos(y / 2)
    lam = -4 * TD * np.sin(x) * np.sin(y)
    root = np.sqrt((lam - s * J) ** 2 + t**2)
    return np.stack([e0 - root, e0 + root], axis=-1)


def main(out: Path) -> None:
    """Write bands.h5 and values.json."""
    g = (np.arange(N) - N // 2) / N
    kx, ky = (v.ravel() for v in np.meshgrid(g, g, indexing="ij"))
    up, down = eigen(kx, ky, +1), eigen(kx, ky, -1)
    ws = out
    ws.mkdir(parents=True, exist_ok=True)
    with h5py.File(ws / "bands.h5", "w", track_order=True) as f:
        f.attrs["description"] = (
            "Bands of a two-sublattice collinear antiferromagnet on a square lattice without spin-orbit "
            "coupling, on a uniform grid covering the first Brillouin zone once."
        )
        f.attrs["lattice_constant_angstrom"] = A
        k = f.create_dataset("kpoints", data=np.stack([kx, ky], axis=1))
        k.attrs["units"] = "Cartesian components (k_x, k_y) in units of 2*pi/a"
        e = f.create_dataset("eigenvalues", data=np.stack([down, up], axis=0))
        e.attrs["units"] = "eV"
        e.attrs["layout"] = "eigenvalues[spin, k, band]; bands in ascending energy within each spin channel"
        e.attrs["spin_labels"] = np.array([b"down", b"up"])
        e.attrs["spin_sz"] = np.array([-0.5, 0.5])
    # Reference values, from the stored numbers exactly as an analyst reads them.
    with h5py.File(ws / "bands.h5", "r") as f:
        k = f["kpoints"][...]
        ev = f["eigenvalues"][...]
    de = (ev[1] - ev[0]) * 1000  # up - down, meV, (k, band)
    de1 = de[:, 0]
    on = {
        "along_100": np.isclose(k[:, 1], 0) & (k[:, 0] > 0),
        "along_010": np.isclose(k[:, 0], 0) & (k[:, 1] > 0),
        "along_110": np.isclose(k[:, 0], k[:, 1]) & (k[:, 0] > 0),
        "along_1-10": np.isclose(k[:, 0], -k[:, 1]) & (k[:, 0] > 0),
    }
    i = int(np.argmax(np.abs(de).max(axis=1)))
    q = int(np.argmin(np.hypot(k[:, 0] - 0.25, k[:, 1] - 0.25)))
    diag = on["along_110"]
    values = {f"nodal_{name}": bool(np.abs(de[m]).max() < 1e-6) for name, m in on.items()}
    values |= {
        "max_abs_splitting_meV": round(float(np.abs(de).max()), 4),
        "k_max_distance_2pi_over_a": round(float(np.hypot(*k[i])), 4),
        "splitting_quarter_110_meV": round(float(de1[q]), 4),
        "sign_along_110": "negative" if np.all(de1[diag][np.abs(de1[diag]) > 1e-9] < 0) else "positive",
    }
    for name, m in on.items():
        print(f"  max |dE| along {name}: {np.abs(de[m]).max():.6f} meV")
    print(f"  maximum at k = {k[i]} (2pi/a), band 1 dE there = {de1[i]:.4f} meV")
    print(f"  with the spin channels swapped the quarter-diagonal value would read {-de1[q]:.4f} meV")
    (out / "values.json").write_text(json.dumps(values, indent=2) + "\n")
    print(json.dumps(values, indent=2))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
