"""Interlayer stiffness of AB graphite from the 19 staged PBE-D3 pw.x outputs; writes answer.json (numpy).

c from alat times the third lattice vector a(3), the cell energy from the '!' line, the carbon mass from the
species table. E_cell(c) is fitted with a sixth-degree polynomial over the runs within 0.8 A of the lowest one.
The breathing mode is computed as a chain of rigid layers: the interlayer force constant per unit area is
K = C33 / d (d = c/2 the layer spacing, C33 = (c/A) E''), the areal mass of a layer rho * d, and the B2g mode at
Gamma of the two-layer cell, adjacent layers in antiphase, has omega = 2 sqrt(K / (rho d)). Its Grueneisen
parameter is -dln(omega)/dln(c) by a central difference of ln(omega(c)) with the force constant taken from the
curvature of the fit at c (density and spacing held, as they drop out of omega^2 = 4 E''/m).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

BOHR = 0.529177210903e-10  # m
RY_J = 2.1798723611035e-18
AMU = 1.66053906660e-27
C_LIGHT_CM = 2.99792458e10


def read(path: Path) -> tuple[float, float, float, float, int]:
    """(c, a in m; cell energy in J; carbon mass in kg; atoms) of one output."""
    text = path.read_text()
    alat = float(re.search(r"celldm\(1\)=\s*(\S+)", text).group(1)) * BOHR
    a3 = [float(x) for x in re.search(r"a\(3\) = \(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)", text).groups()]
    nat = int(re.search(r"number of atoms/cell\s*=\s*(\d+)", text).group(1))
    found = re.findall(r"^!\s+total energy\s*=\s*(-?[\d.]+)\s*Ry", text, re.M)
    species = re.search(r"atomic species\s+valence\s+mass[^\n]*\n\s*C\s+\S+\s+(\S+)", text)
    if not found or "convergence has been achieved" not in text or species is None:
        raise SystemExit(f"{path}: no converged total energy or no carbon mass")
    return float(np.linalg.norm(a3)) * alat, alat, float(found[-1]) * RY_J, float(species.group(1)) * AMU, nat


def main() -> None:
    """Fit and write answer.json."""
    rows = sorted(read(p) for p in Path().glob("bulk_d3_*.out"))
    c = np.array([r[0] for r in rows]) * 1e10  # A
    e = np.array([r[2] for r in rows])
    e = (e - e.min()) / 1.602176634e-19  # eV per cell
    a, m_c, nat = rows[0][1], rows[0][3], rows[0][4]
    low = c[np.argmin(e)]
    sel = np.abs(c - low) < 0.8 + 1e-3
    coef = np.polyfit(c[sel] - low, e[sel], 6)
    d1, d2 = np.polyder(coef), np.polyder(coef, 2)
    roots = [r.real for r in np.roots(d1) if abs(r.imag) < 1e-9 and abs(r.real) < 0.8 and np.polyval(d2, r.real) > 0]
    x0 = min(roots, key=abs)
    area = np.sqrt(3) / 2 * a * a  # m^2

    def omega(x: float) -> float:
        """B2g angular frequency (rad/s) at stacking period low + x (A)."""
        cc = (low + x) * 1e-10
        c33 = cc / area * np.polyval(d2, x) * 1.602176634e-19 / 1e-20  # Pa
        spacing = cc / 2
        rho = nat * m_c / (area * cc)
        return float(2 * np.sqrt(c33 / spacing / (rho * spacing)))

    h = 0.02
    gamma = -(np.log(omega(x0 + h)) - np.log(omega(x0 - h))) / (np.log(low + x0 + h) - np.log(low + x0 - h))
    answer = {
        "d2E_dc2_eV_per_A2": round(float(np.polyval(d2, x0)), 5),
        "omega_B2g_cm1": round(omega(x0) / (2 * np.pi * C_LIGHT_CM), 2),
        "gruneisen_B2g": round(float(gamma), 3),
    }
    Path("answer.json").write_text(json.dumps(answer, indent=2) + "\n")
    print(json.dumps(answer, indent=2))


if __name__ == "__main__":
    main()
