"""The sliding part of the local potential step along a rippled BA bilayer of h-BN, from the staged sliding table.

Geometry: the mid-surface h(x) = A sin(2 pi x / L); the layers d/2 either side of it along the normal keep their
lengths and the BA registry at the crests and troughs, so the top layer has slid by u = d theta relative to the
bottom one, theta the turn of the tangent since the crest, ~ h'(x) to first order in the slope (positive along +x
where the ripple rises). The local stacking is lam = 2 + u / (a / sqrt 3).

The step dV(lam) of the table is periodic (period 3) and odd about AA (lam = 0) and SP (lam = 1.5): it is fitted
by the sine series sum_{n=1..3} b_n sin(2 pi n lam / 3), least squares over the staged points, which has exactly
those symmetries. x is sampled at 20000 points over one wavelength.

Usage: python3 undulate.py [CSV] [ANSWER]     (defaults: sliding_step.csv, answer.json)
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

A_LAT = 2.504  # A
D = 3.45  # A
AMP = 4.0  # A
WAVE = 100.0  # A (10 nm)
LAM0 = 2.0  # BA
N = 20000
TERMS = 3


def load(csv: Path) -> tuple[np.ndarray, np.ndarray]:
    """Lambda and delta_V (meV) of the table, comment lines and the header skipped."""
    lam, dv = [], []
    for line in csv.read_text().splitlines():
        cells = [c.strip() for c in line.split(",")]
        if line.startswith("#") or len(cells) < 3:
            continue
        try:
            lam.append(float(cells[0]))
            dv.append(float(cells[2]))
        except ValueError:  # the column names
            continue
    return np.array(lam), np.array(dv)


def main() -> None:
    """Evaluate the ripple and write the answer."""
    csv = Path(sys.argv[1] if len(sys.argv) > 1 else "sliding_step.csv")
    target = Path(sys.argv[2] if len(sys.argv) > 2 else "answer.json")
    lam_t, dv_t = load(csv)
    k = np.arange(1, TERMS + 1)
    coeff = np.linalg.lstsq(np.sin(2 * math.pi * np.outer(lam_t, k) / 3), dv_t, rcond=None)[0]

    def step(lam: np.ndarray) -> np.ndarray:
        return np.sin(2 * math.pi * np.outer(lam, k) / 3) @ coeff

    x = np.linspace(0.0, WAVE, N, endpoint=False)
    u = D * (2 * math.pi * AMP / WAVE) * np.cos(2 * math.pi * x / WAVE)
    lam = LAM0 + u / (A_LAT / math.sqrt(3))
    dv = step(lam)
    flat = float(step(np.array([LAM0]))[0])
    answer = {
        "max_shift_angstrom": float(np.max(np.abs(u))),
        "lambda": {"min": float(lam.min()), "max": float(lam.max()), "at_x0": float(lam[0])},
        "delta_V_meV": {"max": float(dv.max()), "min": float(dv.min()), "mean": float(dv.mean())},
        "reversed_fraction": float(np.count_nonzero(dv * flat < 0) / N),
    }
    target.write_text(json.dumps(answer, indent=1) + "\n")
    print(json.dumps({"sine_coefficients_meV": coeff.tolist(), **answer}, indent=1))


if __name__ == "__main__":
    main()
