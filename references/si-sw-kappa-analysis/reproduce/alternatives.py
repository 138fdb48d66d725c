"""Alternative valid analyses of the staged kappa file of si-sw-kappa-analysis, for the fairness record.

Usage: alternatives.py KAPPA_FILE
  - the exponent from the two end points (300 and 800 K) instead of the least-squares fit;
  - the boundary-limited conductivity rebuilt from the file's heat capacities and gv_by_gv, with the boundary
    added to the scattering rate (Gamma_total = Gamma + |v| / (4 pi L) in phono3py's units) instead of the
    mode_kappa rescaling: kappa = kappa_unit_conversion * sum C gv_by_gv_xx / (2 Gamma_total) / N_grid;
  - the mean-free-path share with the cut inclusive (>= 1 um) and from the rebuilt mode conductivities.
Prints the values as JSON (the `answer` of the fairness case).
"""

from __future__ import annotations

import json
import sys

import h5py
import numpy as np

L_A, CUT_A = 1000.0, 1.0e4


def main() -> None:
    with h5py.File(sys.argv[1]) as f:
        temps = f["temperature"][:]
        kappa = f["kappa"][:, 0]
        c = f["heat_capacity"][:]
        gvgv = f["gv_by_gv"][:, :, 0]
        gamma = f["gamma"][:]
        v = np.linalg.norm(f["group_velocity"][:], axis=-1)
        conv = float(f["kappa_unit_conversion"][()])
        n_grid = int(f["weight"][:].sum())
    i = int(np.flatnonzero(np.isclose(temps, 300.0))[0])
    j = int(np.flatnonzero(np.isclose(temps, 800.0))[0])
    live = gamma[i] > 0
    g = np.where(live, gamma[i], 1.0)
    rebuilt = np.where(live, conv * c[i] * gvgv / (2.0 * g), 0.0)
    g_l = g + v / (4.0 * np.pi * L_A)
    boundary = float(np.where(live, conv * c[i] * gvgv / (2.0 * g_l), 0.0).sum() / n_grid)
    mfp = np.where(live, v / (4.0 * np.pi * g), 0.0)
    answer = {
        "kappa_300K_W_mK": round(float(rebuilt.sum() / n_grid), 4),
        "exponent_n": round(float(-np.log(kappa[j] / kappa[i]) / np.log(800.0 / 300.0)), 5),
        "fraction_mfp_above_1um_300K": round(float(rebuilt[mfp >= CUT_A].sum() / rebuilt.sum()), 5),
        "kappa_300K_boundary_100nm_W_mK": round(boundary, 4),
    }
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
