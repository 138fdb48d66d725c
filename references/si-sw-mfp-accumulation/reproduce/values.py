"""Reference values of si-sw-mfp-accumulation from the staged phono3py file kappa-m191919.hdf5.

Usage: values.py KAPPA_FILE [OUT.json]

phono3py's layout (the file of si-sw-kappa-analysis, RTA on a 19x19x19 mesh): mode_kappa (T, irreducible q,
band, 6) in W/m-K, each irreducible q-point's entry already multiplied by its multiplicity, so that the sum over
q-points and bands divided by the number of grid points (weight.sum() = 6859) is kappa; gamma (T, q, band) in THz
of ordinary frequency, a half width, so tau = 1 / (4 pi gamma) ps; group_velocity (q, band, 3) in THz A, so
|v| tau is in A (divided by 10 here: nm); frequency (q, band) in THz.

The reference route, counted here on its own:
- the kappa-weighted cumulative distribution over mean free paths: modes sorted by Lambda = |v| tau, the running
  sum of mode_kappa_xx over the sorted modes divided by the total; L50 is where it crosses one half, by linear
  interpolation between consecutive modes (at 300 K and at 800 K);
- kappa_xx carried by the modes with Lambda <= 100 nm at 300 K, in W/m-K (divided by the number of grid points);
- the share of kappa_xx(300 K) carried by the modes with frequency below 5 THz.
The acoustic modes at Gamma (gamma = 0) have no lifetime and carry no mode_kappa: they are left out.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import h5py
import numpy as np

CUT_NM = 100.0
CUT_THZ = 5.0


def load(path: Path) -> dict[str, np.ndarray]:
    """The datasets the analysis needs."""
    keys = ("temperature", "kappa", "mode_kappa", "gamma", "group_velocity", "weight", "frequency",
            "heat_capacity", "gv_by_gv", "kappa_unit_conversion")  # fmt: skip
    with h5py.File(path) as f:
        return {k: np.asarray(f[k][()]) for k in keys}


def index_of(temps: np.ndarray, t: float) -> int:
    hits = np.flatnonzero(np.isclose(temps, t))
    if len(hits) != 1:
        raise SystemExit(f"{t} K is not among the file's temperatures")
    return int(hits[0])


def mfp_nm(data: dict[str, np.ndarray], i: int, lifetime_factor: float = 4.0 * np.pi) -> np.ndarray:
    """|v| tau in nm at temperature index i, tau = 1 / (lifetime_factor * gamma); zero where gamma = 0."""
    g = data["gamma"][i]
    live = g > 0
    tau = np.where(live, 1.0 / (lifetime_factor * np.where(live, g, 1.0)), 0.0)  # ps
    return np.linalg.norm(data["group_velocity"], axis=-1) * tau / 10.0


def median_mfp(mfp: np.ndarray, modes: np.ndarray, share: float = 0.5) -> float:
    """Lambda at which the kappa-weighted cumulative distribution reaches `share` (linear between modes)."""
    order = np.argsort(mfp.ravel(), kind="stable")
    cumulative = np.cumsum(modes.ravel()[order]) / modes.sum()
    return float(np.interp(share, cumulative, mfp.ravel()[order]))


def values(path: Path) -> dict[str, float]:
    data = load(path)
    temps, n_grid = data["temperature"], data["weight"].sum()
    out: dict[str, float] = {}
    for t in (300.0, 800.0):
        i = index_of(temps, t)
        modes = data["mode_kappa"][i, :, :, 0]
        if not np.isclose(modes.sum() / n_grid, data["kappa"][i, 0], rtol=1e-8):
            raise SystemExit("mode_kappa does not sum to kappa: the normalisation assumed here is wrong")
        if np.any(modes[data["gamma"][i] <= 0] != 0):
            raise SystemExit("a mode without lifetime carries conductivity")
        out[f"L50_{t:.0f}K_nm"] = median_mfp(mfp_nm(data, i), modes)
    i = index_of(temps, 300.0)
    modes = data["mode_kappa"][i, :, :, 0]
    out["kappa_mfp_below_100nm_300K_W_mK"] = float(modes[mfp_nm(data, i) <= CUT_NM].sum() / n_grid)
    out["fraction_below_5THz_300K"] = float(modes[data["frequency"] < CUT_THZ].sum() / modes.sum())
    return out


def main() -> None:
    result = values(Path(sys.argv[1]))
    text = json.dumps(result, indent=2) + "\n"
    if len(sys.argv) > 2:
        Path(sys.argv[2]).write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
