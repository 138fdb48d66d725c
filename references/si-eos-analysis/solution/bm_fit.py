"""Fit a third-order Birch-Murnaghan EOS to pw.x outputs and print the answer as JSON (numpy only).

The energy of each run is its final total energy: the `!!` line of a hybrid-functional run (whose first `!` line is
the plain-PBE start), or the last `!` line of a semilocal one.

BM3 is a cubic polynomial in x = V^(-2/3): E = c0 + c1 x + c2 x^2 + c3 x^3, so an ordinary linear least-squares
fit in x is the exact Birch-Murnaghan fit, with no starting guess to get wrong.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

BOHR_A = 0.529177210903  # CODATA 2018
RY_EV = 13.605693122994
EV_A3_GPA = 160.21766208


def parse(path: Path) -> tuple[float, float, int]:
    """Cell volume (bohr^3), final converged total energy (Ry) and atoms per cell of one pw.x output."""
    text = path.read_text()
    vol = re.search(r"unit-cell volume\s*=\s*([\d.]+)\s*\(a\.u\.\)\^3", text)
    nat = re.search(r"number of atoms/cell\s*=\s*(\d+)", text)
    energies = re.findall(r"^!!\s+total energy\s*=\s*(-?[\d.]+)\s*Ry", text, re.M) or re.findall(
        r"^!\s+total energy\s*=\s*(-?[\d.]+)\s*Ry", text, re.M
    )
    if not (vol and nat and energies) or "convergence has been achieved" not in text:
        raise SystemExit(f"{path}: not a converged pw.x SCF output")
    return float(vol.group(1)), float(energies[-1]), int(nat.group(1))


def fit_bm3(v: np.ndarray, e: np.ndarray) -> tuple[float, float, float, float]:
    """V0, E0, B0 (in energy/volume units of the input) and B0' of a BM3 fit."""
    x = v ** (-2.0 / 3.0)
    c = np.polyfit(x, e, 3)
    d1, d2, d3 = np.polyder(c), np.polyder(c, 2), np.polyder(c, 3)
    minima = [r.real for r in np.roots(d1) if abs(r.imag) < 1e-12 and np.polyval(d2, r.real) > 0]
    if not minima:
        raise SystemExit("the fitted curve has no minimum: the volumes do not bracket equilibrium")
    x0 = min(minima, key=lambda r: abs(r - x.mean()))
    v0 = x0**-1.5
    # At the minimum dE/dx = 0, so B = V d2E/dV2 = (4/9) x^(7/2) E_xx and B' = 4 + (2/3) x E_xxx / E_xx.
    e2, e3 = np.polyval(d2, x0), np.polyval(d3, x0)
    b0 = 4.0 / 9.0 * x0**3.5 * e2
    b0p = 4.0 + 2.0 / 3.0 * x0 * e3 / e2
    return float(v0), float(np.polyval(c, x0)), float(b0), float(b0p)


def main() -> None:
    """Parse the outputs named on the command line and print answer.json."""
    rows = [parse(Path(p)) for p in sorted(sys.argv[1:])]
    if len(rows) < 5:
        raise SystemExit("need at least five E(V) points")
    nat = rows[0][2]
    v = np.array([r[0] for r in rows]) * BOHR_A**3 / nat  # A^3 per atom
    e = np.array([r[1] for r in rows]) * RY_EV / nat  # eV per atom
    v0, e0, b0, b0p = fit_bm3(v, e)
    a0 = (4.0 * v0 * nat) ** (1.0 / 3.0)  # the fcc conventional cube holds four primitive cells
    answer = {
        "a0_angstrom": round(a0, 5),
        "B0_GPa": round(b0 * EV_A3_GPA, 3),
        "V0_per_atom_A3": round(v0, 5),
        "E0_eV_per_atom": round(e0, 6),
    }
    print(f"B0' = {b0p:.3f}", file=sys.stderr)
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
