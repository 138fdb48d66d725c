"""a(T) and the linear thermal expansion coefficient of Cu at 300 K from LAMMPS NPT logs; prints answer.json.

Each log: NVT heating at the 0 K lattice constant, NPT equilibration, NPT production. Only the production block
(the last thermo block) is averaged; its first 5 ps are dropped as well, a cautious extra margin. The box volume
is converted to the conventional lattice constant with the atom count: a = (4 V / N)^(1/3). alpha_L(300 K) is
(1/a) da/dT from a straight line through the three points 200, 300 and 400 K (a different estimator from the
reference's quadratic over all five temperatures; both agree within the statistical error).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np


def last_block(text: str) -> tuple[list[str], np.ndarray]:
    """Header and rows of the last complete thermo block."""
    lines = text.splitlines()
    starts = [i for i, ln in enumerate(lines) if ln.split()[:1] == ["Step"]]
    if not starts:
        raise SystemExit("no thermo block found")
    header = lines[starts[-1]].split()
    rows = []
    for ln in lines[starts[-1] + 1 :]:
        if ln.startswith("Loop time"):
            break
        rows.append([float(w) for w in ln.split()])
    else:
        raise SystemExit("the last thermo block is incomplete")
    return header, np.array(rows)


def lattice_constant(path: Path) -> tuple[float, float]:
    """(target temperature, mean production lattice constant) of one log."""
    text = path.read_text()
    natoms = int(re.search(r"^Created (\d+) atoms", text, re.M).group(1))
    header, rows = last_block(text)
    time, temp, vol = (rows[:, header.index(k)] for k in ("Time", "Temp", "Volume"))
    keep = time >= time[0] + 5.0
    target = float(re.findall(r"^fix\s+\S+\s+all\s+npt\s+temp\s+(\S+)", text, re.M)[-1])
    print(f"{path.name}: N = {natoms}, <T> = {temp[keep].mean():.1f} K over {keep.sum()} rows", file=sys.stderr)
    return target, float(np.mean((4.0 * vol[keep] / natoms) ** (1.0 / 3.0)))


def main() -> None:
    """Analyse the logs named on the command line."""
    points = sorted(lattice_constant(Path(p)) for p in sys.argv[1:])
    t = np.array([p[0] for p in points])
    a = np.array([p[1] for p in points])
    mid = (t >= 199) & (t <= 401)
    slope, intercept = np.polyfit(t[mid], a[mid], 1)
    alpha = slope / (slope * 300.0 + intercept)
    json.dump({"a_angstrom": [round(x, 5) for x in a], "alpha_L_300K_per_K": float(f"{alpha:.4e}")}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
