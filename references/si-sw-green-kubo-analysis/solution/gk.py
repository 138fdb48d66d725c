"""Oracle of si-sw-green-kubo-analysis: Green-Kubo conductivity from the staged J.dat and log.lammps.

Usage: gk.py [FOLDER]   (default: the current folder); prints answer.json.

J.dat holds c_flux[1..3] of LAMMPS compute heat/flux (metal units): the total heat current in eV A/ps, i.e. the
heat flux times the volume. The sample spacing is the timestep times the Nfreq of `fix ave/time` (both read from
the log); V is the volume printed before the production, T the mean of the production's thermo temperatures.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

KB = 8.617333262e-5  # eV/K
TO_SI = 1.602176634e-19 / (1e-12 * 1e-10)  # eV/(ps A K) -> W/(m K)
WINDOW_PS = (
    40.0,
    80.0,
)  # plateau window: after the autocorrelation has decayed to within noise, before noise dominates


def log_facts(text: str) -> tuple[float, int, float, float]:
    """Timestep (ps), output interval (steps), cell volume (A^3), mean production temperature (K)."""
    dt = float(re.findall(r"^\s*timestep\s+([0-9.eE+-]+)", text, re.M)[-1])
    nfreq = int(re.search(r"^\s*fix\s+\S+\s+\S+\s+ave/time\s+\d+\s+\d+\s+(\d+)\s+c_flux", text, re.M).group(1))
    vol = float(re.search(r"cell volume\s+([0-9.eE+-]+)", text).group(1))
    blocks = text.split("\nStep ")
    last = blocks[-1].split("Loop time")[0].splitlines()
    head = ("Step " + last[0]).split()
    temps = [float(row.split()[head.index("Temp")]) for row in last[1:] if row.strip()]
    return dt, nfreq, vol, float(np.mean(temps))


def main() -> None:
    """Print answer.json."""
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path()
    dt, nfreq, vol, temp = log_facts((folder / "log.lammps").read_text())
    j = np.loadtxt(folder / "J.dat")[:, 1:4]
    step = dt * nfreq
    m = len(j)
    nlag = int(round(100.0 / step))
    n = 2 * m
    spec = np.fft.rfft(j, n=n, axis=0)
    corr = np.fft.irfft(spec * spec.conj(), n=n, axis=0)[: nlag + 1] / (m - np.arange(nlag + 1))[:, None]
    integral = np.concatenate([np.zeros((1, 3)), np.cumsum((corr[1:] + corr[:-1]) * step / 2, axis=0)])
    kappa = integral * TO_SI / (KB * temp**2 * vol)  # (lags, 3)
    tau = step * np.arange(nlag + 1)
    i10 = int(np.argmin(abs(tau - 10.0)))
    avg = kappa.mean(axis=1)
    window = (tau > WINDOW_PS[0] - step / 2) & (tau < WINDOW_PS[1] + step / 2)
    answer = {
        "kappa_xyz_at_10ps_W_mK": [round(float(x), 4) for x in kappa[i10]],
        "kappa_at_10ps_W_mK": round(float(avg[i10]), 4),
        "kappa_W_mK": round(float(avg[window].mean()), 3),
        "integration_time_ps": WINDOW_PS[1],
    }
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
