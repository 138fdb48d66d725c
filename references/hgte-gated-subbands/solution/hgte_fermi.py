"""Fermi-level analysis of kdotpy's subbands of the HgTe layer, shared by the hgte-surface-states tasks.

Usage: python3 hgte_fermi.py flat|gated DISPERSION.byband.csv KDOTPY.log > answer.json

Both modes read kdotpy's per-band dispersion and the charge neutrality point it prints, and find where each
branch crosses E_F = 30 meV. `flat` (hgte-layer-subbands): the pairs are degenerate; one k_F, density and SdH
frequency per pair, and the surface-state pair. `gated` (hgte-gated-subbands): a potential has lifted the
degeneracy; two k_F and frequencies per pair, the pair split most, the total density.
The same file is the solution tool of both tasks (each solution folder is self-contained); the study's tests
check that the copies are identical.
"""

from __future__ import annotations

import csv
import json
import math
import re
import sys
from pathlib import Path

import numpy as np

E_F = 30.0  # meV, on kdotpy's energy scale
H_OVER_E = 4.135667696e-15  # T m^2
CNP = re.compile(r"Charge neutrality point between (\S+) \((-?[\d.]+) meV\) and (\S+) \((-?[\d.]+) meV\)")


def read_bands(path: str) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The k (nm^-1) and energy (meV) of every labelled band; kdotpy leaves blanks where a band is not computed."""
    with Path(path).open() as fh:
        rows = list(csv.reader(fh))
    labels = rows[1]
    data = [r for r in rows if r and re.fullmatch(r"-?\d+(\.\d*)?", r[0].strip())]
    k = np.array([float(r[0]) for r in data])
    return k, {
        label: np.array([float(r[j]) if r[j].strip() else np.nan for r in data])
        for j, label in enumerate(labels)
        if j >= 2 and label
    }


def crossing(k: np.ndarray, e: np.ndarray, level: float) -> float | None:
    """The first k where the band passes through `level`, linearly interpolated; None if it never does."""
    ok = ~np.isnan(e)
    kk, ee = k[ok], e[ok]
    for i in range(len(kk) - 1):
        if (ee[i] - level) * (ee[i + 1] - level) < 0:
            return float(kk[i] + (level - ee[i]) * (kk[i + 1] - kk[i]) / (ee[i + 1] - ee[i]))
    return None


def charge_neutrality(log: str) -> tuple[float, float]:
    """The k = 0 energies below and above the charge neutrality point of the layer.

    kdotpy prints the point of the flat-band layer first (for its band alignment) and, when a potential is
    applied, that of the actual layer last: the last line is the one that counts.
    """
    found = list(CNP.finditer(Path(log).read_text()))
    assert found, "kdotpy printed no charge neutrality point"
    return float(found[-1].group(2)), float(found[-1].group(4))


def occupied(path: str) -> dict[str, list[tuple[float, float]]]:
    """Per pair (the label without its sign), (k_F, E at k = 0) of each branch that crosses E_F."""
    k, bands = read_bands(path)
    pairs: dict[str, list[tuple[float, float]]] = {}
    for label, e in bands.items():
        kf = crossing(k, e, E_F)
        if kf is not None:
            pairs.setdefault(label.rstrip("+-"), []).append((kf, float(e[0])))
    assert all(len(v) == 2 for v in pairs.values()), pairs
    return pairs


def per_branch_sdh(kf: float) -> float:
    """SdH frequency (T) of one non-degenerate branch: (h/e) k_F^2/(4 pi), n in m^-2."""
    return H_OVER_E * kf**2 / (4 * math.pi) * 1e18


def flat(pairs: dict[str, list[tuple[float, float]]], below: float, above: float) -> dict:
    """hgte-layer-subbands' answer: degenerate pairs, each with one k_F, density and frequency."""
    kf = {name: sum(x for x, _ in v) / 2 for name, v in pairs.items()}
    start = {name: min(e0 for _, e0 in v) for name, v in pairs.items()}
    # the surface-state branch starts at k = 0 at the charge neutrality point, below every bulk conduction subband,
    # and runs steeply up through E_F
    surface = min(kf, key=lambda name: start[name])
    assert abs(start[surface] - above) < 1.0, (surface, start)
    density = {name: 2 * (kf[name] ** 2) / (4 * math.pi) * 1e3 for name in kf}  # nm^-2 -> 1e11 cm^-2
    density["total"] = sum(density.values())
    return {
        "cnp_below_meV": below,
        "cnp_above_meV": above,
        "occupied_subbands": sorted(kf),
        "surface_subband": surface,
        "kF_per_nm": kf,
        "density_1e11_cm2": density,
        "surface_fraction": density[surface] / density["total"],
        "sdh_frequency_T": {name: per_branch_sdh(x) for name, x in kf.items()},
    }


def gated(pairs: dict[str, list[tuple[float, float]]], below: float, above: float) -> dict:
    """hgte-gated-subbands' answer: split pairs, two k_F and frequencies each (smaller first)."""
    kf = {name: sorted(x for x, _ in v) for name, v in pairs.items()}
    sdh = {name: [per_branch_sdh(x) for x in v] for name, v in kf.items()}
    return {
        "cnp_below_meV": below,
        "cnp_above_meV": above,
        "occupied_subbands": sorted(kf),
        "kF_per_nm": kf,
        "sdh_frequency_T": sdh,
        "most_split_pair": max(sdh, key=lambda name: sdh[name][1] - sdh[name][0]),
        "density_total_1e11_cm2": sum(x**2 / (4 * math.pi) for v in kf.values() for x in v) * 1e3,
    }


MODES = {"flat": flat, "gated": gated}

if __name__ == "__main__":
    mode, dispersion, log = sys.argv[1:4]
    print(json.dumps(MODES[mode](occupied(dispersion), *charge_neutrality(log)), indent=1))
