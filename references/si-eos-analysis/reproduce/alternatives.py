"""Print the numbers of the si-eos-analysis fairness record: valid alternative analyses and common errors.

Usage: alternatives.py scf_01.out ... scf_07.out

Every number is a fit of the staged outputs: other EOS forms (ASE), BM3 on subsets of the points, a fourth-order
Birch-Murnaghan, and the errors (the plain-PBE start of each run taken as its energy, the lowest grid point, a
parabola in V, per-cell energies or volumes, unit slips).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
from ase.eos import EquationOfState

BOHR_A = 0.529177210903
RY_EV = 13.605693122994
EV_A3_GPA = 160.21766208


def parse(path: Path, which: str) -> tuple[float, float, int]:
    """Volume (bohr^3), energy (Ry; final `!!` or first `!` line) and atom count of one output."""
    text = path.read_text()
    volume = float(re.search(r"unit-cell volume\s*=\s*([\d.]+)", text).group(1))
    nat = int(re.search(r"number of atoms/cell\s*=\s*(\d+)", text).group(1))
    pattern = r"^!!\s+total energy\s*=\s*(-?[\d.]+) Ry" if which == "final" else r"^!\s+total energy\s*=\s*(-?[\d.]+) Ry"
    energies = re.findall(pattern, text, re.M)
    return volume, float(energies[-1] if which == "final" else energies[0]), nat


def points(paths: list[Path], which: str = "final") -> tuple[np.ndarray, np.ndarray, int]:
    rows = [parse(p, which) for p in paths]
    nat = rows[0][2]
    return np.array([r[0] for r in rows]) * BOHR_A**3 / nat, np.array([r[1] for r in rows]) * RY_EV / nat, nat


def show(label: str, v0: float, e0: float, b0_ev_a3: float, nat: int) -> None:
    a0 = (4 * v0 * nat) ** (1 / 3)
    print(f"{label:34s} a0 = {a0:.5f} A  V0 = {v0:.5f} A^3  B0 = {b0_ev_a3 * EV_A3_GPA:.3f} GPa  E0 = {e0:.6f} eV")


def bm_poly(v: np.ndarray, e: np.ndarray, order: int) -> tuple[float, float, float]:
    """Birch-Murnaghan of the given order as a polynomial in x = V^(-2/3); V0, E0, B0 (eV/A^3)."""
    x = v ** (-2 / 3)
    c = np.polyfit(x, e, order)
    roots = [r.real for r in np.roots(np.polyder(c)) if abs(r.imag) < 1e-12 and np.polyval(np.polyder(c, 2), r.real) > 0]
    x0 = min(roots, key=lambda r: abs(r - x.mean()))
    return x0**-1.5, float(np.polyval(c, x0)), 4 / 9 * x0**3.5 * float(np.polyval(np.polyder(c, 2), x0))


def main() -> None:
    paths = sorted(Path(p) for p in sys.argv[1:])
    v, e, nat = points(paths)
    for form in ("birchmurnaghan", "murnaghan", "vinet", "pouriertarantola"):
        v0, e0, b = EquationOfState(v, e, eos=form).fit()
        show(form, v0, e0, b, nat)
    show("BM4 (quartic in V^-2/3)", *bm_poly(v, e, 4), nat)
    v0, e0, b = EquationOfState(v[1:-1], e[1:-1], eos="birchmurnaghan").fit()
    show("BM3 on the five central points", v0, e0, b, nat)
    v0, e0, b = EquationOfState(v[:-1], e[:-1], eos="birchmurnaghan").fit()
    show("BM3 without the largest volume", v0, e0, b, nat)
    v0, e0, b = EquationOfState(v[1:], e[1:], eos="birchmurnaghan").fit()
    show("BM3 without the smallest volume", v0, e0, b, nat)
    c3 = np.polyfit(v, e, 3)
    r = [x.real for x in np.roots(np.polyder(c3)) if abs(x.imag) < 1e-12 and np.polyval(np.polyder(c3, 2), x.real) > 0][0]
    show("cubic polynomial in V", r, float(np.polyval(c3, r)), r * float(np.polyval(np.polyder(c3, 2), r)), nat)
    # Errors.
    vp, ep, _ = points(paths, "first")
    v0, e0, b = EquationOfState(vp, ep, eos="birchmurnaghan").fit()
    show("ERROR first ! line (PBE start)", v0, e0, b, nat)
    i = int(np.argmin(e))
    show("ERROR lowest grid point", v[i], e[i], float("nan"), nat)
    c2 = np.polyfit(v, e, 2)
    vq = -c2[1] / (2 * c2[0])
    show("ERROR parabola in V", vq, float(np.polyval(c2, vq)), vq * 2 * c2[0], nat)
    v0, e0, b = EquationOfState(v, e * nat, eos="birchmurnaghan").fit()
    show("ERROR per-cell E, per-atom V", v0, e0, b, nat)


if __name__ == "__main__":
    main()
