"""Ionization energies of the two faces of bilayer h-BN along its sliding path, from the staged pw.x runs.

For each point path/s<lam>.relax.out (pw.x relax with the dipole correction) and path/s<lam>.avg.dat (average.x of
pp.x plot_num = 11: z in bohr, planar and macroscopic averages of V_bare + V_H in Ry):
  - the highest occupied level is the last one the relaxation prints (the relaxed geometry), in eV;
  - each vacuum level is the mean of an average over a window of the vacuum gap `clear` A away from the atoms and
    from the dipole correction's ramp (0.95-1.00 of the cell), above and below the bilayer, in eV;
  - the ionization energy of a face is its vacuum level minus the highest occupied level.

Usage: ionization.py PATHDIR [--column planar|macro] [--clear A] [--fifth]   prints JSON per stacking
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np

RY_EV = 13.605693123
BOHR = 0.529177210903
TAGS = ("0.00", "0.50", "1.00", "1.25", "1.50", "1.75", "2.00")


def read_run(out: str) -> dict:
    """Cell height, relaxed atom heights (A) and the highest occupied levels (eV) of a pw.x relax output."""
    alat = float(re.search(r"lattice parameter \(alat\)\s+=\s+([\d.]+)", out).group(1)) * BOHR
    c = alat * float(re.search(r"celldm\(3\)=\s*([\d.]+)", out).group(1))
    block = out.split("Begin final coordinates")[1].split("End final coordinates")[0]
    z = [float(line.split()[3]) * c for line in block.splitlines() if line.split() and line.split()[0] in ("B", "N")]
    homo = [float(x) for x in re.findall(r"highest occupied level \(ev\):\s+(-?\d+\.\d+)", out)]
    return {"c": c, "z": np.array(z), "homo": homo}


def vacuum_levels(avg: Path, run: dict, column: int, clear: float, fifth: bool) -> tuple[float, float]:
    """Mean potential (eV) in the vacuum above and below the bilayer."""
    data = np.loadtxt(avg)
    z, v = data[:, 0] * BOHR, data[:, column] * RY_EV
    c, lo, hi = run["c"], run["z"].min(), run["z"].max()
    gaps = {"above": (hi, 0.95 * c), "below": (0.0, lo)}  # the ramp ends at the top of the cell, z = 0 of the next

    def window(a: float, b: float) -> np.ndarray:
        if fifth:
            w = b - a
            return (z > a + 0.4 * w) & (z < b - 0.4 * w)
        return (z > a + clear) & (z < b - clear)

    return float(v[window(*gaps["above"])].mean()), float(v[window(*gaps["below"])].mean())


def main() -> None:
    """Print the ionization energies of both faces at every staged stacking."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path")
    p.add_argument("--column", default="planar", choices=["planar", "macro"])
    p.add_argument("--clear", type=float, default=4.0, help="distance of the window from the atoms and the ramp, A")
    p.add_argument("--fifth", action="store_true", help="the middle fifth of each vacuum gap as its window")
    p.add_argument("--first-homo", action="store_true", help="the first printed level (the unrelaxed start: a trap)")
    args = p.parse_args()
    col = 1 if args.column == "planar" else 2
    res = {}
    for tag in TAGS:
        run = read_run((Path(args.path) / f"s{tag}.relax.out").read_text())
        above, below = vacuum_levels(Path(args.path) / f"s{tag}.avg.dat", run, col, args.clear, args.fifth)
        homo = run["homo"][0 if args.first_homo else -1]
        res[tag] = {"top": above - homo, "bottom": below - homo, "homo": homo, "v_above": above, "v_below": below}
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
