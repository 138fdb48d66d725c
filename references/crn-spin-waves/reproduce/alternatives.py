"""Numbers of the fairness cases of crn-spin-waves (fairness.yaml), each from really running the route.

Usage: alternatives.py POSCAR -> JSON on stdout, one entry per case id.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference_lswt as ref  # noqa: E402

GRADED = [
    "omega_X_lower_meV",
    "omega_X_upper_meV",
    "splitting_X_THz",
    "omega_Z_meV",
    "omega_Gamma_optical_meV",
    "velocity_x_meV_A",
    "velocity_y_meV_A",
    "velocity_z_meV_A",
]


def graded(v: dict) -> dict:
    """The graded fields, rounded as written into fairness.yaml."""
    return {k: round(v[k], 5) for k in GRADED}


def ferromagnetic_lswt(poscar: str, s: float) -> dict:
    """The error: a ferromagnetic spin-wave formula applied to CrN.

    hbar w = (2/S) sum_j |J_ij| (1 - cos k.d), every spin treated as parallel and the couplings taken by
    magnitude; one Cr per site, no sublattices.
    """
    cell, frac = ref.read_poscar(poscar)
    blist = [b for b in ref.bonds(cell, frac) if b[0] == 0]
    g = 2 * math.pi * np.linalg.inv(cell).T

    def w(k):
        return sum((2.0 / s) * abs(jt) * (1 - math.cos(float(np.dot(k, d)))) for _, _, d, jt in blist)

    out = {
        "omega_X_lower_meV": w(0.5 * g[0]),
        "omega_X_upper_meV": w(0.5 * g[0]),
        "splitting_X_THz": 0.0,
        "omega_Z_meV": w(0.5 * g[2]),
        "omega_Gamma_optical_meV": 0.0,
    }
    for ax, name in enumerate("xyz"):
        u = g[ax] / np.linalg.norm(g[ax])
        out[f"velocity_{name}_meV_A"] = w(1e-4 * u) / 1e-4  # quadratic dispersion: no linear slope
    return out


def main() -> None:
    """Print the numbers of every fairness case for the POSCAR given on the command line."""
    poscar = sys.argv[1]
    s = ref.MOMENT / 2.0
    base = ref.values(poscar)
    cases = {
        "reference": graded(base),
        # valid routes
        "forward-difference-velocity": graded(ref.values(poscar, dk=0.05)),
        "g-factor-2.0023": graded(ref.values(poscar, s=ref.MOMENT / 2.0023)),
        # errors
        "pairs-counted-once": graded(ref.values(poscar, pair_factor=1.0)),
        "spin-operator-couplings": graded(ref.values(poscar, pair_factor=2.0 * s**2)),
        "nominal-spin-three-halves": graded(ref.values(poscar, s=1.5)),
        "s-s-plus-one-mapping": graded(ref.values(poscar, pair_factor=2.0 * s / (s + 1.0))),
        "ferromagnetic-lswt": graded(ferromagnetic_lswt(poscar, s)),
        "splitting-angular-frequency": {"splitting_X_THz": round(base["splitting_X_THz"] * 2 * math.pi, 5)},
        "splitting-in-meV": {"splitting_X_THz": round(base["omega_X_upper_meV"] - base["omega_X_lower_meV"], 5)},
    }
    print(json.dumps(cases, indent=1))


if __name__ == "__main__":
    main()
