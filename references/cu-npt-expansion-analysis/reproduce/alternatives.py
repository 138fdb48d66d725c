"""Alternative analyses of the staged NPT logs of cu-npt-expansion-analysis, for the fairness record.

Usage: alternatives.py npt_100K.log ... npt_500K.log
Prints, as JSON answers: the NPT equilibration and production blocks averaged together (quadratic fit); the
production averages with a cubic fit; and the trap of averaging every thermo row (constant-volume stage included).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from expansion_reference import alpha, blocks


def lattice(volumes: np.ndarray, natoms: int = 864) -> float:
    return float(((4.0 * volumes / natoms) ** (1.0 / 3.0)).mean())


def main() -> None:
    logs = sorted((Path(p) for p in sys.argv[1:]), key=lambda p: int(p.name.split("_")[1][:-5]))
    t = np.array([float(p.name.split("_")[1][:-5]) for p in logs])
    b = [blocks(p.read_text()) for p in logs]
    prod = np.array([lattice(x[-1]["Volume"]) for x in b])
    eqp = np.array([lattice(np.concatenate([x[1]["Volume"], x[2]["Volume"]])) for x in b])
    every = np.array([lattice(np.concatenate([blk["Volume"] for blk in x])) for x in b])
    out = {
        "equilibration-and-production": {"a_angstrom": [round(float(v), 5) for v in eqp],
                                         "alpha_L_300K_per_K": float(f"{alpha(t, eqp, 2):.4e}")},
        "cubic-fit": {"alpha_L_300K_per_K": float(f"{alpha(t, prod, 3):.4e}")},
        "every-row-averaged": {"a_angstrom": [round(float(v), 5) for v in every],
                               "alpha_L_300K_per_K": float(f"{alpha(t, every, 2):.4e}")},
    }
    json.dump(out, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
