"""Print the si-eos-analysis reference values from the seven pw.x (PBE0) outputs, and write them to values.json.

Usage: fit_reference.py [--json VALUES_JSON] scf_01.out ... scf_07.out

The fit is ASE's Birch-Murnaghan (a nonlinear least-squares fit), an implementation independent of the
oracle's linear fit in solution/bm_fit.py; both are printed so a disagreement is visible. With --json the ASE
values are written, keyed like reference.yaml (a0_angstrom, B0_GPa, V0_per_atom_A3, E0_eV_per_atom). The energy of
each run is its final one: the `!!` line of a hybrid-functional run (the last `!` line of a semilocal one).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
from ase.eos import EquationOfState

BOHR_A = 0.529177210903  # CODATA 2018
RY_EV = 13.605693122994
EV_A3_GPA = 160.21766208


def parse(path: Path) -> tuple[float, float, int]:
    """Cell volume (bohr^3), final total energy (Ry) and atoms per cell of one pw.x output."""
    text = path.read_text()
    volume = float(re.search(r"unit-cell volume\s*=\s*([\d.]+)", text).group(1))
    nat = int(re.search(r"number of atoms/cell\s*=\s*(\d+)", text).group(1))
    final = re.findall(r"^!!\s+total energy\s*=\s*(-?[\d.]+) Ry", text, re.M)
    energy = float((final or re.findall(r"^!\s+total energy\s*=\s*(-?[\d.]+) Ry", text, re.M))[-1])
    return volume, energy, nat


def main() -> None:
    """Fit the outputs named on the command line and print the reference values."""
    args = sys.argv[1:]
    values_json = None
    if args[:1] == ["--json"]:
        values_json, args = Path(args[1]), args[2:]
    rows = [parse(Path(p)) for p in sorted(args)]
    nat = rows[0][2]
    v = np.array([r[0] for r in rows]) * BOHR_A**3 / nat  # A^3 per atom
    e = np.array([r[1] for r in rows]) * RY_EV / nat  # eV per atom
    eos = EquationOfState(v, e, eos="birchmurnaghan")
    v0, e0, b = eos.fit()
    a0 = (4 * v0 * nat) ** (1 / 3)  # fcc conventional cube holds 4 primitive cells
    for vi, ei in zip(v, e, strict=True):
        print(f"  V = {vi:8.4f} A^3/atom  E = {ei:.6f} eV/atom")
    print(
        f"ASE birchmurnaghan: a0 = {a0:.5f} A, V0 = {v0:.5f} A^3/atom, B0 = {b * EV_A3_GPA:.3f} GPa, "
        f"E0 = {e0:.6f} eV/atom"
    )
    if values_json is not None:
        values = {
            "a0_angstrom": round(a0, 5),
            "B0_GPa": round(b * EV_A3_GPA, 2),
            "V0_per_atom_A3": round(v0, 5),
            "E0_eV_per_atom": round(e0, 5),
        }
        values_json.write_text(json.dumps(values, indent=2) + "\n")
    # Cross-check: BM3 is a cubic polynomial in V^(-2/3), so a linear least-squares fit gives it exactly.
    x = v ** (-2 / 3)
    c = np.polyfit(x, e, 3)
    d1, d2 = np.polyder(c), np.polyder(c, 2)
    roots = [r.real for r in np.roots(d1) if abs(r.imag) < 1e-12 and np.polyval(d2, r.real) > 0]
    x0 = min(roots, key=lambda r: abs(r - x.mean()))
    v0l = x0 ** (-3 / 2)
    # B = V d2E/dV2 = (4/9) x^(7/2) d2E/dx2 at the minimum, where dE/dx = 0.
    b0l = (4 / 9) * x0**3.5 * np.polyval(d2, x0) * EV_A3_GPA
    e0l = np.polyval(c, x0)
    print(
        f"linear BM3 cross-check: a0 = {(4 * v0l * nat) ** (1 / 3):.5f} A, V0 = {v0l:.5f}, B0 = {b0l:.3f} GPa, "
        f"E0 = {e0l:.6f} eV/atom"
    )
    # Other equations of state on the same points (the spread the tolerances must admit).
    for form in ("murnaghan", "vinet", "pouriertarantola", "birch"):
        v0f, e0f, bf = EquationOfState(v, e, eos=form).fit()
        print(
            f"{form:17s}: a0 = {(4 * v0f * nat) ** (1 / 3):.5f} A, V0 = {v0f:.5f}, B0 = {bf * EV_A3_GPA:.3f} GPa, "
            f"E0 = {e0f:.6f} eV/atom"
        )


if __name__ == "__main__":
    main()
