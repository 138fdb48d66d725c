"""Reference values of si-sw-green-kubo-analysis from the staged heat current J.dat and log.lammps.

Usage: values.py WORKSPACE [OUT.json] [--check J10.dat]

The staged files (reproduce/gk.in, LAMMPS metal units): J.dat holds c_flux[1..3] of `compute heat/flux`, the
total heat current J = sum_i (e_i v_i - S_i v_i) in eV A/ps (the heat flux times the volume, not divided by it),
every 20 steps of 0.001 ps (a sample every 0.02 ps) over the NVE production; log.lammps holds the input as it
ran, the cell volume (printed before the production) and the thermo output (temperature every 1000 steps).

The reference route, counted here on its own:
- C_a(k) = <J_a(0) J_a(k dt_s)>, the average over every time origin of the production, k = 0 .. n_lag, no mean
  subtracted (J averages to zero in equilibrium), normalised by the number of products (M - k) at each lag;
- kappa_a(tau) = 1 / (kB T^2 V) * int_0^tau C_a(t) dt by the trapezoidal rule, T the mean temperature of the
  production's thermo output, V the cell volume; eV/(ps A K) -> W/(m K) is 1602.176634;
- kappa(tau) is the mean of the three directions; the graded values are kappa_a and kappa at tau = 10 ps (exact
  functions of the file) and the plateau: the mean of kappa(tau) over the window PLATEAU_PS.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np

KB_EV_K = 8.617333262e-5
EV_PER_PS_A_K_IN_W_PER_M_K = 1.602176634e-19 / 1e-12 / 1e-10
CUTOFF_PS = 10.0
PLATEAU_PS = (40.0, 80.0)
INTEGRATION_TIME_RANGE_PS = (30.0, 110.0)  # from the decay of the slow tail to the onset of noise (the grader's range)


def read_log(path: Path) -> dict[str, float]:
    """Timestep (ps), output interval of J.dat (steps), cell volume (A^3) and the production's mean temperature."""
    text = path.read_text()
    lines = text.splitlines()
    timestep = float(re.findall(r"^\s*timestep\s+(\S+)", text, flags=re.M)[-1])
    every = int(re.search(r"^\s*fix\s+jout\s+all\s+ave/time\s+(\d+)\s+1\s+(\d+)", text, flags=re.M).group(2))
    volume = float(re.findall(r"^Production: cell volume\s+([0-9.eE+-]+)\s+A\^3", text, flags=re.M)[-1])
    start = [i for i, ln in enumerate(lines) if ln.split()[:1] == ["Step"]][-1]
    head = lines[start].split()
    rows = []
    for ln in lines[start + 1 :]:
        if ln.startswith("Loop time"):
            break
        if len(ln.split()) == len(head):  # a thermo row (a log cut short may end in a partial one)
            rows.append([float(x) for x in ln.split()])
    thermo = np.array(rows)
    temp = thermo[:, head.index("Temp")]
    return {"timestep_ps": timestep, "every": every, "volume_A3": volume, "temperature_K": float(temp.mean()),
            "temperature_std_K": float(temp.std())}  # fmt: skip


def read_current(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Steps and the three components of J (eV A/ps), one row per sample."""
    data = np.loadtxt(path, comments="#")
    return data[:, 0].astype(int), data[:, 1:4]


def acf(x: np.ndarray, n_lag: int) -> np.ndarray:
    """<x(0) x(k)> over every time origin, k = 0 .. n_lag, each lag divided by its number of products (FFT)."""
    m = len(x)
    size = 1 << int(np.ceil(np.log2(2 * m)))
    f = np.fft.rfft(x, size)
    full = np.fft.irfft(f * np.conj(f), size)[: n_lag + 1]
    return full / (m - np.arange(n_lag + 1))


def running_kappa(current: np.ndarray, dt_ps: float, volume: float, temp: float, n_lag: int) -> np.ndarray:
    """kappa_a(k dt) in W/(m K), shape (3, n_lag + 1): the trapezoidal running integral of each direction's ACF."""
    pref = EV_PER_PS_A_K_IN_W_PER_M_K / (KB_EV_K * temp**2 * volume)
    out = np.zeros((3, n_lag + 1))
    for a in range(3):
        c = acf(current[:, a], n_lag)
        out[a, 1:] = np.cumsum(0.5 * (c[1:] + c[:-1])) * dt_ps
    return pref * out


def analysis(workspace: Path, n_lag_ps: float = 100.0) -> dict:
    """Log facts, sample spacing and the running integrals kappa_a(tau) up to n_lag_ps."""
    log = read_log(workspace / "log.lammps")
    steps, current = read_current(workspace / "J.dat")
    dt = log["every"] * log["timestep_ps"]
    assert np.all(np.diff(steps) == log["every"]), "J.dat is not evenly sampled"
    n_lag = int(round(n_lag_ps / dt))
    kap = running_kappa(current, dt, log["volume_A3"], log["temperature_K"], n_lag)
    return {"log": log, "dt_ps": dt, "samples": len(steps), "kappa": kap, "tau_ps": dt * np.arange(n_lag + 1)}


def values(workspace: Path) -> dict[str, object]:
    """The reference values, keyed like reference.yaml."""
    a = analysis(workspace)
    tau, kap = a["tau_ps"], a["kappa"]
    k10 = kap[:, int(round(CUTOFF_PS / a["dt_ps"]))]
    mean = kap.mean(axis=0)
    window = (tau >= PLATEAU_PS[0] - 1e-9) & (tau <= PLATEAU_PS[1] + 1e-9)
    return {
        "kappa_xyz_at_10ps_W_mK": [float(x) for x in k10],
        "kappa_at_10ps_W_mK": float(k10.mean()),
        "kappa_W_mK": float(mean[window].mean()),
        "integration_time_ps": sum(INTEGRATION_TIME_RANGE_PS) / 2,
        "temperature_K": a["log"]["temperature_K"],
        "volume_A3": a["log"]["volume_A3"],
        "sample_interval_ps": a["dt_ps"],
        "samples": a["samples"],
    }


def main() -> None:
    """Command line: print (and write) the values."""
    p = argparse.ArgumentParser()
    p.add_argument("workspace", type=Path)
    p.add_argument("out", type=Path, nargs="?")
    p.add_argument("--check", type=Path, help="J10.dat (every 10 steps): the integral sampled twice as finely")
    args = p.parse_args()
    vals = values(args.workspace)
    if args.check is not None and args.check.is_file():
        a = analysis(args.workspace)
        steps, j10 = read_current(args.check)
        dt10 = float(steps[1] - steps[0]) * a["log"]["timestep_ps"]
        k = running_kappa(j10, dt10, a["log"]["volume_A3"], a["log"]["temperature_K"], int(round(CUTOFF_PS / dt10)))
        vals["check_kappa_at_10ps_sampled_every_10_steps_W_mK"] = float(k[:, -1].mean())
    text = json.dumps(vals, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
