"""Analyse bands.h5 of altermagnet-nodal-analysis and write answer.json (h5py + numpy).

The spin order of the eigenvalue array is taken from its own attributes (spin_labels, or spin_sz as a fallback),
never assumed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import h5py
import numpy as np


def main() -> None:
    """Read, analyse, write answer.json."""
    path = sys.argv[1] if len(sys.argv) > 1 else "bands.h5"
    with h5py.File(path, "r") as f:
        k = f["kpoints"][...]
        ds = f["eigenvalues"]
        ev = ds[...]
        labels = [x.decode() if isinstance(x, bytes) else str(x) for x in ds.attrs.get("spin_labels", [])]
        if labels:
            i_up, i_down = labels.index("up"), labels.index("down")
        else:
            sz = list(ds.attrs["spin_sz"])
            i_up, i_down = int(np.argmax(sz)), int(np.argmin(sz))
        scale = 1000.0 if ds.attrs.get("units", "eV") in ("eV", b"eV") else 1.0
    de = (ev[i_up] - ev[i_down]) * scale  # (k, band), meV
    tol = 1e-8
    on = {
        "along_100": (np.abs(k[:, 1]) < tol) & (k[:, 0] > tol),
        "along_010": (np.abs(k[:, 0]) < tol) & (k[:, 1] > tol),
        "along_110": (np.abs(k[:, 0] - k[:, 1]) < tol) & (k[:, 0] > tol),
        "along_1-10": (np.abs(k[:, 0] + k[:, 1]) < tol) & (k[:, 0] > tol),
    }
    for name, m in on.items():
        print(f"{name}: {m.sum()} points, max |dE| = {np.abs(de[m]).max():.3e} meV")
    nodal = {name: bool(np.abs(de[m]).max() < 1e-3) for name, m in on.items()}
    flat = np.abs(de).max(axis=1)
    i = int(np.argmax(flat))
    q = int(np.argmin(np.hypot(k[:, 0] - 0.25, k[:, 1] - 0.25)))
    diag = de[on["along_110"], 0]
    diag = diag[np.abs(diag) > 1e-3]
    answer = {
        "nodal": nodal,
        "max_abs_splitting_meV": round(float(flat[i]), 4),
        "k_max_distance_2pi_over_a": round(float(np.hypot(*k[i])), 4),
        "splitting_quarter_110_meV": round(float(de[q, 0]), 4),
        "sign_along_110": "positive" if np.mean(np.sign(diag)) > 0 else "negative",
    }
    Path("answer.json").write_text(json.dumps(answer, indent=2) + "\n")
    print(json.dumps(answer, indent=2))


if __name__ == "__main__":
    main()
