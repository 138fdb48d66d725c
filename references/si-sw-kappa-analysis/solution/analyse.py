"""Read a phono3py kappa-m*.hdf5 file: kappa_xx(T), its power law and the share of low-frequency modes.

The power law is fitted between 300 and 800 K; the share is that of kappa_xx(300 K) carried by modes below 5 THz.

phono3py's layout: temperature (T,), kappa (T, 6) in W/m-K with components xx, yy, zz, yz, xz, xy;
mode_kappa (T, irreducible q, band, 6), in which each irreducible q-point already carries its multiplicity,
so that kappa = mode_kappa summed over q-points and bands / (number of grid points = weight.sum());
frequency (irreducible q, band) in THz.
"""

from __future__ import annotations

import json
import sys

import h5py
import numpy as np


def index_of(temps: np.ndarray, t: float) -> int:
    """Index of temperature t in the file (exact match required, not a neighbour)."""
    hits = np.flatnonzero(np.abs(temps - t) < 1e-6)
    if len(hits) != 1:
        raise SystemExit(f"{t} K is not among the file's temperatures {temps}")
    return int(hits[0])


def main() -> None:
    """Analyse the file named on the command line; answer.json to stdout."""
    with h5py.File(sys.argv[1], "r") as f:
        temps = np.asarray(f["temperature"][:], dtype=float)
        kappa = np.asarray(f["kappa"][:])
        mode_kappa = np.asarray(f["mode_kappa"][:])
        freq = np.asarray(f["frequency"][:])
        n_grid = int(np.asarray(f["weight"][:]).sum())
    kxx = kappa[:, 0]
    i300 = index_of(temps, 300.0)
    # consistency of the layout assumed above
    assert np.isclose(mode_kappa[i300, ..., 0].sum() / n_grid, kxx[i300], rtol=1e-8)
    window = [index_of(temps, t) for t in temps if 300.0 - 1e-6 <= t <= 800.0 + 1e-6]
    slope, _ = np.linalg.lstsq(
        np.vstack([np.log(temps[window]), np.ones(len(window))]).T, np.log(kxx[window]), rcond=None
    )[0]
    per_mode = mode_kappa[i300, :, :, 0].ravel()
    order = np.argsort(freq.ravel())
    cumulative = np.cumsum(per_mode[order]) / per_mode.sum()
    below = int(np.searchsorted(freq.ravel()[order], 5.0, side="left"))  # modes with frequency < 5 THz
    answer = {
        "kappa_300K_W_mK": round(float(kxx[i300]), 4),
        "kappa_500K_W_mK": round(float(kxx[index_of(temps, 500.0)]), 4),
        "kappa_800K_W_mK": round(float(kxx[index_of(temps, 800.0)]), 4),
        "exponent_n": round(float(-slope), 5),
        "fraction_below_5THz_300K": round(float(cumulative[below - 1]), 5),
    }
    print(f"{len(window)} temperatures in the fit window; {n_grid} grid points", file=sys.stderr)
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
