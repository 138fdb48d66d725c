"""Valid routes and common errors of si-sw-green-kubo-analysis, each a full answer, from the staged files.

Usage: alternatives.py WORKSPACE     (prints a JSON object: case name -> answer; traps are prefixed "trap:")

Every route reuses the reference pieces of values.py (log facts, the FFT autocorrelation) and changes one thing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import values as V

FIELDS = ("kappa_xyz_at_10ps_W_mK", "kappa_at_10ps_W_mK", "kappa_W_mK", "integration_time_ps")


def _acf_biased(x: np.ndarray, n_lag: int) -> np.ndarray:
    return V.acf(x, n_lag) * (len(x) - np.arange(n_lag + 1)) / len(x)


def _acf_direct(x: np.ndarray, n_lag: int) -> np.ndarray:
    """The same estimator as values.acf, summed lag by lag without an FFT."""
    m = len(x)
    return np.array([np.dot(x[: m - k], x[k:]) / (m - k) for k in range(n_lag + 1)])


def kappa_curves(
    current: np.ndarray,
    dt: float,
    volume: float,
    temp: float,
    n_lag: int,
    *,
    acf=V.acf,
    rule: str = "trapezoid",
    prefactor: float | None = None,
) -> np.ndarray:
    """(3, n_lag + 1) running integrals in W/(m K) with one ingredient swapped."""
    pref = V.EV_PER_PS_A_K_IN_W_PER_M_K / (V.KB_EV_K * temp**2 * volume) if prefactor is None else prefactor
    out = np.zeros((3, n_lag + 1))
    for a in range(3):
        c = acf(current[:, a], n_lag)
        if rule == "trapezoid":
            out[a, 1:] = np.cumsum(0.5 * (c[1:] + c[:-1])) * dt
        elif rule == "left":
            out[a, 1:] = np.cumsum(c[:-1]) * dt
        elif rule == "simpson":
            from scipy.integrate import cumulative_simpson

            out[a, 1:] = cumulative_simpson(c, dx=dt)
        else:
            raise ValueError(rule)
    return pref * out


def answer(kap: np.ndarray, dt: float, cutoff_ps: float = V.CUTOFF_PS, window=V.PLATEAU_PS, how="window") -> dict:
    """The four fields from running integrals sampled every dt; the plateau by a window mean or at one point."""
    tau = dt * np.arange(kap.shape[1])
    i = min(int(round(cutoff_ps / dt)), kap.shape[1] - 1)
    mean = kap.mean(axis=0)
    if how == "window":
        sel = (tau >= window[0] - 1e-9) & (tau <= window[1] + 1e-9)
        plateau, t_int = float(mean[sel].mean()), float(window[1])
    elif how == "point":
        j = min(int(round(window[1] / dt)), kap.shape[1] - 1)
        plateau, t_int = float(mean[j]), float(tau[j])
    else:
        raise ValueError(how)
    return {"kappa_xyz_at_10ps_W_mK": [_sig(x) for x in kap[:, i]], "kappa_at_10ps_W_mK": _sig(kap[:, i].mean()),
            "kappa_W_mK": _sig(plateau), "integration_time_ps": _sig(t_int)}  # fmt: skip


def _sig(x: float) -> float:
    """Six significant digits."""
    return float(f"{float(x):.6g}")


def alternatives(workspace: Path) -> dict[str, dict]:
    """Every case: the reference, the valid routes, the traps (prefixed trap:)."""
    log = V.read_log(workspace / "log.lammps")
    _, j = V.read_current(workspace / "J.dat")
    dt = log["every"] * log["timestep_ps"]
    vol, temp = log["volume_A3"], log["temperature_K"]
    n_lag = min(int(round(250.0 / dt)), len(j) // 2)  # up to half the production
    ref = kappa_curves(j, dt, vol, temp, n_lag)
    out: dict[str, dict] = {"reference": answer(ref, dt)}
    # --- valid routes
    out["nominal-500K"] = answer(kappa_curves(j, dt, vol, 500.0, n_lag), dt)
    out["biased-acf"] = answer(kappa_curves(j, dt, vol, temp, n_lag, acf=_acf_biased), dt)
    out["direct-sum-acf"] = answer(kappa_curves(j, dt, vol, temp, int(round(80.0 / dt)), acf=_acf_direct), dt)
    out["left-riemann"] = answer(kappa_curves(j, dt, vol, temp, n_lag, rule="left"), dt)
    out["simpson"] = answer(kappa_curves(j, dt, vol, temp, n_lag, rule="simpson"), dt)
    for lo, hi in ((40.0, 60.0), (50.0, 80.0), (40.0, 100.0), (50.0, 100.0), (30.0, 80.0)):
        out[f"window-{lo:g}-{hi:g}ps"] = answer(ref, dt, window=(lo, hi))
    for t in (50.0, 60.0, 80.0):
        out[f"value-at-{t:g}ps"] = answer(ref, dt, window=(0.0, t), how="point")
    out["first-zero-after-1ps"] = answer(ref, dt, window=(0.0, _first_zero(j, dt, after_ps=1.0)), how="point")
    # --- traps
    jv = j / vol
    out["trap:flux-taken-as-J-over-V"] = answer(
        kappa_curves(j, dt, vol, temp, n_lag, prefactor=V.EV_PER_PS_A_K_IN_W_PER_M_K * vol / (V.KB_EV_K * temp**2)),
        dt)  # fmt: skip
    out["trap:divided-by-volume-twice"] = answer(kappa_curves(jv, dt, vol, temp, n_lag), dt)
    k_step = kappa_curves(j, log["timestep_ps"], vol, temp, n_lag)  # samples taken as one time step apart
    out["trap:sample-interval-one-timestep"] = answer(k_step, log["timestep_ps"], window=(0.0, 30.0), how="point")
    summed = ref * 3.0
    out["trap:directions-summed"] = answer(summed, dt)
    out["trap:x-only"] = answer(np.repeat(ref[:1], 3, axis=0), dt)
    out["trap:no-unit-conversion"] = answer(ref / V.EV_PER_PS_A_K_IN_W_PER_M_K, dt)
    out["trap:T-not-squared"] = answer(ref * temp, dt)
    out["trap:mean-subtracted"] = answer(kappa_curves(j - j.mean(axis=0), dt, vol, temp, n_lag), dt)
    out["trap:stopped-at-20ps"] = answer(ref, dt, window=(0.0, 20.0), how="point")
    out["trap:integrated-to-half-the-run"] = answer(ref, dt, window=(0.0, 250.0), how="point")
    out["trap:first-zero-crossing"] = answer(ref, dt, window=(0.0, _first_zero(j, dt)), how="point")
    return out


def _first_zero(j: np.ndarray, dt: float, after_ps: float = 0.0) -> float:
    """The first lag (ps) after `after_ps` at which the direction-summed autocorrelation is negative."""
    c = sum(V.acf(j[:, a], int(round(150.0 / dt))) for a in range(3))
    start = int(round(after_ps / dt))
    return float(dt * (start + np.flatnonzero(c[start:] < 0)[0]))


if __name__ == "__main__":
    print(json.dumps(alternatives(Path(sys.argv[1])), indent=1))
