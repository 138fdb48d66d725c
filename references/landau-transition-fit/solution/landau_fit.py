"""Fit the Landau-Devonshire energy F = alpha P^2 + beta P^4 + gamma P^6 to energy-polarization paths.

Usage: landau_fit.py [--powers 2,4,6] [--data-minimum] NAME=CSV ...   (e.g. ZnO=path_ZnO.csv)

Each CSV has '#' comment lines giving the cell's formula units and volume (A^3), then columns u, P_C_per_m2,
E_eV_per_cell relative to the layered-hexagonal reference. The energy per cell divided by the cell volume is the
energy density (J/m^3); a linear least-squares fit on the even powers of P (no constant, F(0) = 0) gives the
coefficients. Ps is the polar minimum of the fitted F, the well depth -F(Ps) V / (formula units) in meV, the
intrinsic coercive field the largest -dF/dP between 0 and Ps (V/m -> MV/cm), and the order the sign of beta.
--powers adds or drops terms (the fairness record's alternatives); --data-minimum reads Ps and the depth off the
lowest staged point instead of the model. Writes answer.json.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

EV = 1.602176634e-19
A3 = 1e-30


def read(path: Path) -> tuple[int, float, np.ndarray, np.ndarray]:
    """Formula units, volume (A^3), P (C/m^2), E (eV per cell)."""
    text = path.read_text()
    m = re.search(r"\((\d+) formula units\), volume ([0-9.]+) A\^3", text)
    fu, vol = int(m.group(1)), float(m.group(2))
    rows = [ln.split(",") for ln in text.splitlines() if ln and not ln.startswith("#") and not ln.startswith("u,")]
    data = np.array([[float(r[1]), float(r[2])] for r in rows])
    return fu, vol, data[:, 0], data[:, 1]


def analyse(path: Path, powers: list[int], data_minimum: bool) -> dict[str, object]:
    """The fitted coefficients and derived quantities of one path."""
    fu, vol, p, e = read(path)
    f = e * EV / (vol * A3)
    x = np.stack([p**k for k in powers], axis=1)
    coef, *_ = np.linalg.lstsq(x, f, rcond=None)
    by_power = dict(zip(powers, coef, strict=True))
    pp = np.linspace(0.0, 1.5 * p.max(), 300001)
    ff = sum(c * pp**k for k, c in by_power.items())
    i = int(np.argmin(ff))
    ps, fmin = float(pp[i]), float(ff[i])
    if data_minimum:
        j = int(np.argmin(e))
        ps, fmin = float(p[j]), float(f[j])
    mdf = -sum(k * c * pp ** (k - 1) for k, c in by_power.items())
    ec = float(np.max(mdf[: int(np.argmin(ff)) + 1]))
    beta = float(by_power.get(4, 0.0))
    return {
        "alpha": float(by_power[2]),
        "beta": beta,
        "gamma": float(by_power.get(6, 0.0)),
        "Ps_C_per_m2": round(ps, 5),
        "well_depth_meV_per_fu": round(-fmin * vol * A3 / EV / fu * 1e3, 3),
        "Ec_MV_per_cm": round(ec / 1e8, 4),
        "order": "second" if beta > 0 else "first",
    }


def main(argv: list[str]) -> None:
    """Parse the options and the NAME=CSV pairs; write answer.json."""
    powers, data_minimum, cells = [2, 4, 6], False, []
    it = iter(argv)
    for arg in it:
        if arg == "--powers":
            powers = [int(k) for k in next(it).split(",")]
        elif arg == "--data-minimum":
            data_minimum = True
        else:
            cells.append(arg.split("=", 1))
    answer = {name: analyse(Path(csv), powers, data_minimum) for name, csv in cells}
    Path("answer.json").write_text(json.dumps(answer, indent=1) + "\n")
    print(json.dumps(answer))


if __name__ == "__main__":
    main(sys.argv[1:])
