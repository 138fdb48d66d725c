"""Oracle for nio-u-stiffness-magnetovolume: bulk modulus and magnetovolume slope of the Ni moment per U series.

Written independently of the reference script (a nonlinear Birch-Murnaghan fit in eV and A^3): here the
third-order Birch-Murnaghan energy is fitted as a cubic polynomial in x = V^(-2/3) by linear least squares, in Ry
and bohr^3, and B0 = V0 d2E/dV2 at the minimum, converted with 1 Ry/bohr^3 = 14710.5 GPa. The moment slope is
taken against ln a and divided by 3 (ln V = 3 ln a + const for the cubic cells).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import numpy as np

RY_BOHR3_GPA = 14710.507848260711  # 13.605693122994 eV / 0.529177210903^3 A^3 * 160.21766208


def read(path: Path) -> tuple[float, float, float]:
    """Cell volume (bohr^3), last total energy (Ry), Ni site moment (muB, mean of |magn| of the Ni atoms)."""
    text = path.read_text()
    vol = float(re.search(r"unit-cell volume\s+=\s+([\d.]+)\s+\(a\.u\.\)\^3", text).group(1))
    energy = float(re.findall(r"^!\s+total energy\s+=\s+(-?[\d.]+)\s+Ry", text, re.M)[-1])
    names = re.findall(r"^\s+\d+\s+(\S+)\s+tau\(", text, re.M)
    block = text[text.rindex("Magnetic moment per site") :]
    magn = [float(m) for m in re.findall(r"atom:\s+\d+\s+charge:\s+\S+\s+magn:\s+(\S+)", block)]
    ni = [abs(m) for m, name in zip(magn, names, strict=False) if name.startswith("Ni")]
    return vol, energy, float(np.mean(ni))


def bulk_modulus(vol: np.ndarray, energy: np.ndarray) -> float:
    """B0 (GPa) of a third-order Birch-Murnaghan fit: cubic polynomial in x = V^(-2/3), linear least squares."""
    x = vol ** (-2 / 3)
    poly = np.polynomial.Polynomial.fit(x, energy, 3).convert()
    roots = [r.real for r in poly.deriv().roots() if abs(r.imag) < 1e-12 and x.min() * 0.9 < r.real < x.max() * 1.1]
    x0 = next(r for r in roots if poly.deriv(2)(r) > 0)
    v0 = x0 ** (-3 / 2)
    dxdv = -2 / 3 * v0 ** (-5 / 3)
    return float(v0 * poly.deriv(2)(x0) * dxdv**2 * RY_BOHR3_GPA)


def main() -> None:
    """Write answer.json in the working folder."""
    runs: dict[str, list[tuple[float, float, float, float]]] = defaultdict(list)
    for path in sorted(Path().glob("nio_U*_a*.out")):
        name, a = re.fullmatch(r"(nio_U\d+)_a([\d.]+)\.out", path.name).groups()
        runs[name].append((float(a), *read(path)))
    answer: dict = {"series": {}}
    us, b0s = [], []
    for name, rows in sorted(runs.items()):
        if len(rows) != 6:
            continue
        a, vol, energy, mom = (np.array(c) for c in zip(*rows, strict=True))
        b0 = bulk_modulus(vol, energy)
        slope = float(np.polyfit(np.log(a), mom, 1)[0]) / 3
        answer["series"][name] = {"B0_GPa": round(b0, 3), "dm_dlnV_muB": round(slope, 5)}
        us.append(float(name.removeprefix("nio_U")))
        b0s.append(b0)
    answer["dB0_dU"] = round(float(np.polyfit(us, b0s, 1)[0]), 5)
    Path("answer.json").write_text(json.dumps(answer, indent=1) + "\n")
    print(json.dumps(answer, indent=1))


if __name__ == "__main__":
    main()
