"""Oracle analysis for hgte-layer-subbands: read kdotpy's per-band dispersion and its charge neutrality point,
find the subbands that cross E_F = 30 meV, their Fermi wave vectors, densities and Shubnikov-de Haas frequencies.

Usage: python3 subbands.py DISPERSION.byband.csv KDOTPY.log > answer.json
"""

from __future__ import annotations

import csv
import json
import math
import re
import sys

import numpy as np

E_F = 30.0  # meV, on kdotpy's energy scale
H_OVER_E = 4.135667696e-15  # T m^2


def read_bands(path: str) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """k (nm^-1) and the energy (meV) of every labelled band; kdotpy leaves blanks where a band is not computed."""
    rows = list(csv.reader(open(path)))
    labels = rows[1]
    data = [r for r in rows if r and re.fullmatch(r"-?\d+(\.\d*)?", r[0].strip())]
    k = np.array([float(r[0]) for r in data])
    bands = {}
    for j, label in enumerate(labels):
        if j < 2 or not label:
            continue
        bands[label] = np.array([float(r[j]) if r[j].strip() else np.nan for r in data])
    return k, bands


def crossing(k: np.ndarray, e: np.ndarray, level: float) -> float | None:
    ok = ~np.isnan(e)
    kk, ee = k[ok], e[ok]
    for i in range(len(kk) - 1):
        if (ee[i] - level) * (ee[i + 1] - level) < 0:
            return float(kk[i] + (level - ee[i]) * (kk[i + 1] - kk[i]) / (ee[i + 1] - ee[i]))
    return None


k, bands = read_bands(sys.argv[1])
# kdotpy prints the charge neutrality point of the flat-band layer first (for its band alignment) and, when a
# potential is applied, that of the actual layer last: the last line is the one that counts
found = list(re.finditer(r"Charge neutrality point between (\S+) \((-?[\d.]+) meV\) and (\S+) \((-?[\d.]+) meV\)",
                         open(sys.argv[2]).read()))
assert found, "kdotpy printed no charge neutrality point"
m = found[-1]
below, above = float(m.group(2)), float(m.group(4))

pairs: dict[str, list[float]] = {}
start: dict[str, float] = {}
for label, e in bands.items():
    kf = crossing(k, e, E_F)
    if kf is not None:
        name = label.rstrip("+-")
        pairs.setdefault(name, []).append(kf)
        start[name] = min(start.get(name, math.inf), float(e[0]))
assert all(len(v) == 2 for v in pairs.values()), pairs
kf = {name: sum(v) / 2 for name, v in pairs.items()}
# the surface-state branch starts at k = 0 at the charge neutrality point, below every bulk conduction subband,
# and runs steeply up through E_F
surface = min(kf, key=lambda name: start[name])
assert abs(start[surface] - above) < 1.0, (surface, start)
density = {name: 2 * (kf[name] ** 2) / (4 * math.pi) * 1e3 for name in kf}  # nm^-2 -> 1e11 cm^-2
density["total"] = sum(density.values())
sdh = {name: H_OVER_E * (kf[name] ** 2 / (4 * math.pi)) * 1e18 for name in kf}  # per member, n in m^-2
answer = {
    "cnp_below_meV": below,
    "cnp_above_meV": above,
    "occupied_subbands": sorted(kf),
    "surface_subband": surface,
    "kF_per_nm": kf,
    "density_1e11_cm2": density,
    "surface_fraction": density[surface] / density["total"],
    "sdh_frequency_T": sdh,
}
print(json.dumps(answer, indent=1))
