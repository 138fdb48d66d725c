"""Oracle analysis for hgte-gated-subbands: kdotpy's per-band dispersion of the layer with a potential drop across
the stack; every branch that crosses E_F = 30 meV, its Fermi wave vector and Shubnikov-de Haas frequency, pair by
pair (the potential lifts the degeneracy of each pair), and the pair whose two frequencies lie furthest apart.

Usage: python3 gated.py DISPERSION.byband.csv KDOTPY.log > answer.json
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
    rows = list(csv.reader(open(path)))
    labels = rows[1]
    data = [r for r in rows if r and re.fullmatch(r"-?\d+(\.\d*)?", r[0].strip())]
    k = np.array([float(r[0]) for r in data])
    return k, {
        label: np.array([float(r[j]) if r[j].strip() else np.nan for r in data])
        for j, label in enumerate(labels)
        if j >= 2 and label
    }


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
pairs: dict[str, list[float]] = {}
for label, e in bands.items():
    kf = crossing(k, e, E_F)
    if kf is not None:
        pairs.setdefault(label.rstrip("+-"), []).append(kf)
assert all(len(v) == 2 for v in pairs.values()), pairs
kf = {name: sorted(v) for name, v in pairs.items()}
sdh = {name: [H_OVER_E * x**2 / (4 * math.pi) * 1e18 for x in v] for name, v in kf.items()}
total = sum(x**2 / (4 * math.pi) for v in kf.values() for x in v) * 1e3  # 1e11 cm^-2
answer = {
    "cnp_below_meV": float(m.group(2)),
    "cnp_above_meV": float(m.group(4)),
    "occupied_subbands": sorted(kf),
    "kF_per_nm": kf,
    "sdh_frequency_T": sdh,
    "most_split_pair": max(sdh, key=lambda name: sdh[name][1] - sdh[name][0]),
    "density_total_1e11_cm2": total,
}
print(json.dumps(answer, indent=1))
