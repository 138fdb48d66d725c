"""Read a phono3py kappa-m*.hdf5 file: kappa_xx(300 K), its power law, and how mean free paths share the heat.

phono3py's layout: temperature (T,), kappa (T, 6) in W/m-K with components xx, yy, zz, yz, xz, xy;
mode_kappa (T, irreducible q, band, 6), in which each irreducible q-point already carries its multiplicity,
so that kappa = mode_kappa summed over q-points and bands / (number of grid points = weight.sum());
gamma (T, irreducible q, band): the imaginary self-energy in THz (ordinary frequency), a half width, so the
lifetime is 1 / (4 pi gamma) ps; group_velocity (irreducible q, band, 3) in THz A, so |v| tau is in A.
Written independently of the reference script: the mean-free-path share from a sorted cumulative sum, the
boundary-limited conductivity by scaling each mode with tau_L / tau, tau_L = 1 / (1/tau + |v|/L).
"""

from __future__ import annotations

import json
import sys

import h5py
import numpy as np

L_BOUNDARY_A = 100.0 * 10.0  # 100 nm in angstrom
MFP_CUT_A = 1.0e4  # 1 um


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
        gamma = np.asarray(f["gamma"][:])
        gv = np.asarray(f["group_velocity"][:])
        n_grid = int(np.asarray(f["weight"][:]).sum())
    kxx = kappa[:, 0]
    i300 = index_of(temps, 300.0)
    per_mode = mode_kappa[i300, :, :, 0]
    assert np.isclose(per_mode.sum() / n_grid, kxx[i300], rtol=1e-8)  # the layout assumed above
    window = [index_of(temps, t) for t in temps if 300.0 - 1e-6 <= t <= 800.0 + 1e-6]
    slope, _ = np.linalg.lstsq(
        np.vstack([np.log(temps[window]), np.ones(len(window))]).T, np.log(kxx[window]), rcond=None
    )[0]
    live = gamma[i300] > 0.0  # the acoustic modes at Gamma have no lifetime and no conductivity
    tau = np.zeros_like(gamma[i300])
    tau[live] = 1.0 / (4.0 * np.pi * gamma[i300][live])  # ps
    mfp = np.linalg.norm(gv, axis=-1) * tau  # angstrom
    order = np.argsort(mfp.ravel())
    cumulative = np.cumsum(per_mode.ravel()[order]) / per_mode.sum()
    below = int(np.searchsorted(mfp.ravel()[order], MFP_CUT_A, side="right"))  # modes with mfp <= 1 um
    fraction_long = 1.0 - float(cumulative[below - 1])
    # boundary scattering: tau_L = 1 / (1/tau + |v|/L); each mode's conductivity scales with its lifetime
    speed = np.linalg.norm(gv, axis=-1)
    tau_l = np.zeros_like(tau)
    tau_l[live] = 1.0 / (1.0 / tau[live] + speed[live] / L_BOUNDARY_A)
    scale = np.where(live, tau_l / np.where(live, tau, 1.0), 0.0)
    kappa_l = float((per_mode * scale).sum() / n_grid)
    answer = {
        "kappa_300K_W_mK": round(float(kxx[i300]), 4),
        "exponent_n": round(float(-slope), 5),
        "fraction_mfp_above_1um_300K": round(fraction_long, 5),
        "kappa_300K_boundary_100nm_W_mK": round(kappa_l, 4),
    }
    print(f"{len(window)} temperatures in the fit window; {n_grid} grid points", file=sys.stderr)
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
