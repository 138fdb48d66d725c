"""Landau-level fan of the HgTe layer against its zero-field Fermi contours (task hgte-landau-levels).

Usage: python3 hgte_ll.py BDEPENDENCE.csv DISPERSION.byband.csv > answer.json

BDEPENDENCE.csv is kdotpy ll's flat table (one row per eigenstate: bz in T, E in meV, llindex, bindex, ...);
DISPERSION.byband.csv is kdotpy 2d's per-band dispersion of the same layer at B = 0. At each field (3.6 and 4.5 T)
the levels are sorted by energy; the dense set of valence-band Landau levels ends at the first spacing wider than
GAP_MEV above LOW_MEV, and every level from there up to E_F is counted once (each kdotpy eigenstate is one
non-degenerate level holding eB/h states per unit area). The Onsager check: each of the six non-degenerate
branches that cross E_F at B = 0 has the frequency F = (h/e) k_F^2/(4 pi); sum F/B is the number of levels the
zero-field contours predict below E_F.
"""

from __future__ import annotations

import csv
import json
import math
import re
import sys
from pathlib import Path

import numpy as np

E_F = 30.0  # meV, kdotpy's energy scale
H_OVER_E = 4.135667696e-15  # T m^2
LOW_MEV = -10.0  # start the search for the top of the valence-band levels here (inside the dense set)
GAP_MEV = 2.0  # a spacing wider than this ends the dense set of valence-band levels


def levels(path: str, field: float) -> np.ndarray:
    """Sorted energies (meV) of all eigenstates at the field (T)."""
    with Path(path).open() as fh:
        rows = list(csv.reader(fh))
    head = rows[0]
    ib, ie = head.index("bz"), head.index("E")
    out = [
        float(r[ie])
        for r in rows[1:]
        if r and re.fullmatch(r"-?\d+(\.\d*)?", r[ib].strip()) and abs(float(r[ib]) - field) < 1e-6
    ]
    assert out, f"no levels at B = {field} T"
    return np.sort(np.array(out))


def above_valence(e: np.ndarray) -> np.ndarray:
    """The levels above the dense set of valence-band levels (from the first spacing wider than GAP_MEV)."""
    e = e[e > LOW_MEV]
    gaps = np.diff(e)
    i = int(np.argmax(gaps > GAP_MEV))
    assert gaps[i] > GAP_MEV, "no gap above the valence-band levels"
    return e[i + 1 :]


def zero_field_frequencies(path: str) -> list[float]:
    """SdH frequencies (T) of every non-degenerate branch that crosses E_F at B = 0."""
    with Path(path).open() as fh:
        rows = list(csv.reader(fh))
    labels = rows[1]
    data = [r for r in rows if r and re.fullmatch(r"-?\d+(\.\d*)?", r[0].strip())]
    k = np.array([float(r[0]) for r in data])
    freqs = []
    for j, label in enumerate(labels):
        if j < 2 or not label:
            continue
        e = np.array([float(r[j]) if r[j].strip() else np.nan for r in data])
        ok = ~np.isnan(e)
        kk, ee = k[ok], e[ok]
        for i in range(len(kk) - 1):
            if (ee[i] - E_F) * (ee[i + 1] - E_F) < 0:
                kf = kk[i] + (E_F - ee[i]) * (kk[i + 1] - kk[i]) / (ee[i + 1] - ee[i])
                freqs.append(H_OVER_E * kf**2 / (4 * math.pi) * 1e18)
                break
    return freqs


FIELDS = (3.6, 4.5)  # T: the count at both, the two lowest levels and the density at the higher one


def answer(fan: str, dispersion: str) -> dict:
    """The answer: level counts and Onsager estimates at both fields, the lowest levels and density at the higher."""
    freqs = zero_field_frequencies(dispersion)
    assert len(freqs) == 6, freqs
    out: dict = {}
    for field in FIELDS:
        up = above_valence(levels(fan, field))
        below_ef = up[up < E_F]
        tag = f"{field:.1f}".replace(".", "p") + "T"
        out[f"levels_below_EF_{tag}"] = int(len(below_ef))
        out[f"onsager_levels_{tag}"] = sum(freqs) / field
        if field == FIELDS[-1]:
            out[f"lowest_levels_{tag}_meV"] = [float(below_ef[0]), float(below_ef[1])]
            out[f"density_{tag}_1e11_cm2"] = len(below_ef) * field / H_OVER_E * 1e-15  # m^-2 -> 1e11 cm^-2
    return out


if __name__ == "__main__":
    print(json.dumps(answer(*sys.argv[1:3]), indent=1))
