"""Reference values of graphite-interlayer-stiffness from the staged PBE-D3 scan (19 pw.x outputs).

Usage: values.py WORKSPACE [VALUES_JSON]

The energy of the four-atom cell E(c) (eV) is fitted with a quintic polynomial over the 13 runs within 0.6 A of
the lowest one; c_eq is its minimum. At c_eq:
  curvature  E'' = d2E/dc2 of the cell, eV/A^2;
  omega      the B2g interlayer breathing mode of the nearest-layer model: rigid layers of mass M (two atoms),
             each coupled to its two neighbours by a spring k. A uniform change of c stretches the two springs of
             the cell by dc/2 each, so E'' = k/2; in the mode adjacent layers move by +u and -u, each spring is
             stretched by 2u, and omega^2 = 4k/M = 8 E''/M = 4 E''/m_C;
  gamma      the mode's Grueneisen parameter for strain along c (a fixed): omega(c)^2 = 4 E''(c)/m_C, so
             gamma = -dln(omega)/dln(c) = -(c/2) E'''/E''.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize_scalar

BOHR_A = 0.529177210903
RY_EV = 13.605693122994
AMU_KG = 1.66053906660e-27
EV_J = 1.602176634e-19
C_CM_S = 2.99792458e10
EV_A3_GPA = 160.21766208
HALF_WINDOW = 0.6
DEGREE = 5


def parse(path: Path) -> tuple[float, float, int, float, float]:
    """(c in A, total energy in eV, atoms, atomic mass in amu, a in A) of one pw.x output."""
    text = path.read_text()
    if "convergence has been achieved" not in text:
        raise SystemExit(f"{path}: not converged")
    alat = float(re.search(r"celldm\(1\)=\s*([\d.]+)", text).group(1)) * BOHR_A
    c_over_a = float(re.search(r"celldm\(3\)=\s*([\d.]+)", text).group(1))
    nat = int(re.search(r"number of atoms/cell\s*=\s*(\d+)", text).group(1))
    energy = float(re.findall(r"^!\s+total energy\s*=\s*(-?[\d.]+) Ry", text, re.M)[-1]) * RY_EV
    mass = float(re.search(r"atomic species\s+valence\s+mass.*\n\s*\S+\s+[\d.]+\s+([\d.]+)", text).group(1))
    return alat * c_over_a, energy, nat, mass, alat


def scan(ws: Path) -> tuple[np.ndarray, np.ndarray, int, float, float]:
    """Sorted c (A), cell energy (eV, relative to the lowest run), atoms per cell, mass (amu), a (A)."""
    rows = sorted(parse(p) for p in ws.glob("bulk_d3_*.out"))
    if len(rows) != 19 or len({r[2] for r in rows}) != 1 or len({r[3] for r in rows}) != 1:
        raise SystemExit(f"{ws}: expected 19 four-atom runs of one species")
    c = np.array([r[0] for r in rows])
    e = np.array([r[1] for r in rows])
    return c, e - e.min(), rows[0][2], rows[0][3], rows[0][4]


def omega_cm1(curv_cell: float, mass_amu: float, nat: int = 4) -> float:
    """B2g frequency (cm^-1) of the nearest-layer model: omega^2 = 8 E''/M_layer, M_layer = nat/2 atoms."""
    m_layer = nat / 2 * mass_amu * AMU_KG
    return float(np.sqrt(8 * curv_cell * EV_J * 1e20 / m_layer) / (2 * np.pi * C_CM_S))


def gamma(c0: float, e2: float, e3: float) -> float:
    """-dln(omega)/dln(c) with omega^2 proportional to E''(c)."""
    return float(-c0 / 2 * e3 / e2)


def poly_fit(c: np.ndarray, e: np.ndarray, deg: int, half: float) -> tuple[float, float, float]:
    """(c_eq, E'', E''') of a polynomial of degree `deg` over the runs within `half` A of the lowest one."""
    low = c[np.argmin(e)]
    sel = np.abs(c - low) <= half + 1e-3
    coef = np.polyfit(c[sel] - low, e[sel], deg)
    res = minimize_scalar(lambda x: np.polyval(coef, x), bounds=(-half, half), method="bounded",
                          options={"xatol": 1e-9})  # fmt: skip
    x0 = float(res.x)
    return low + x0, float(np.polyval(np.polyder(coef, 2), x0)), float(np.polyval(np.polyder(coef, 3), x0))


def answer(c0: float, e2: float, e3: float, mass: float, nat: int = 4) -> dict[str, float]:
    """The three graded fields from c_eq and the derivatives of one fit."""
    return {"d2E_dc2_eV_per_A2": e2, "omega_B2g_cm1": omega_cm1(e2, mass, nat), "gruneisen_B2g": gamma(c0, e2, e3)}


def values(ws: Path) -> dict[str, float]:
    """The reference values and their cross-checks from the staged outputs."""
    c, e, nat, mass, a = scan(ws)
    c0, e2, e3 = poly_fit(c, e, DEGREE, HALF_WINDOW)
    area = np.sqrt(3) / 2 * a * a
    out = answer(c0, e2, e3, mass, nat)
    return out | {
        "c_eq_angstrom": c0,
        "d3E_dc3_eV_per_A3": e3,
        "C33_GPa": c0 / area * e2 * EV_A3_GPA,
        "dC33_dP": 2 * out["gruneisen_B2g"] - 1,
        "mass_amu": mass,
        "n_runs": len(c),
    }


def main() -> None:
    """Print the values; write them to VALUES_JSON when given."""
    ws = Path(sys.argv[1])
    text = json.dumps(values(ws), indent=2) + "\n"
    if len(sys.argv) > 2:
        Path(sys.argv[2]).write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
