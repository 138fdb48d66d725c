"""Mean-free-path accumulation of kappa_xx from a phono3py kappa-m*.hdf5 file (the oracle of si-sw-mfp-accumulation).

Per mode: Lambda = |v| tau, tau = 1 / (2 * 2 pi * gamma) ps (gamma is a half width in THz of ordinary frequency),
|v| from group_velocity in THz A, so Lambda comes out in A. mode_kappa already carries each irreducible q-point's
multiplicity: the sum over modes divided by the number of grid points is kappa. Written apart from the reference
script: the median from the bracketing pair of modes, the 100 nm conductivity as kappa minus what lies above.
"""

from __future__ import annotations

import json
import sys

import h5py
import numpy as np

A_PER_NM = 10.0


def temperature_index(temps: np.ndarray, t: float) -> int:
    """Index of temperature t in the file (an exact entry, never a neighbour)."""
    (hits,) = np.nonzero(np.abs(temps - t) < 1e-6)
    if hits.size != 1:
        raise SystemExit(f"{t} K is not one of the file's temperatures")
    return int(hits[0])


def median_path(lam: np.ndarray, k: np.ndarray) -> float:
    """Lambda where the conductivity-weighted cumulative distribution crosses one half, linear between the two
    modes that bracket the crossing."""
    order = np.argsort(lam, kind="stable")
    lam, share = lam[order], np.cumsum(k[order]) / k.sum()
    j = int(np.argmax(share >= 0.5))
    if j == 0:
        return float(lam[0])
    s0, s1 = share[j - 1], share[j]
    return float(lam[j - 1] + (0.5 - s0) / (s1 - s0) * (lam[j] - lam[j - 1]))


def main() -> None:
    with h5py.File(sys.argv[1], "r") as f:
        temps = np.asarray(f["temperature"][:], dtype=float)
        kappa = np.asarray(f["kappa"][:, 0])
        mode_kappa = np.asarray(f["mode_kappa"][:, :, :, 0])
        gamma = np.asarray(f["gamma"][:])
        speed = np.sqrt((np.asarray(f["group_velocity"][:]) ** 2).sum(axis=-1))
        freq = np.asarray(f["frequency"][:])
        n_grid = int(np.asarray(f["weight"][:]).sum())
    answer: dict[str, float] = {}
    for t in (300.0, 800.0):
        i = temperature_index(temps, t)
        k = mode_kappa[i]
        assert abs(k.sum() / n_grid / kappa[i] - 1) < 1e-8, "mode_kappa does not add up to kappa"
        live = gamma[i] > 0  # the acoustic modes at Gamma: no lifetime, no conductivity
        lam_nm = speed[live] / (4 * np.pi * gamma[i][live]) / A_PER_NM
        answer[f"L50_{t:.0f}K_nm"] = round(median_path(lam_nm, k[live]), 3)
        if t == 300.0:
            above = k[live][lam_nm > 100.0].sum()
            answer["kappa_mfp_below_100nm_300K_W_mK"] = round(float(kappa[i] - above / n_grid), 5)
            answer["fraction_below_5THz_300K"] = round(float(k[freq < 5.0].sum() / k.sum()), 6)
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
