"""A check of the EAM target's definition: a band whose intermediate replicas start off the straight line.

The top of the straight-line band is a second-order saddle of the EAM surface (two negative Hessian modes). This
script starts the band from the straight line with the island atoms of each intermediate replica moved at random
(0.08 A in the plane, 0.024 A along z, numpy seed SEED), relaxes it with FIRE and climbs, and prints the barriers
of the band's log. Seeds 1, 2 and 3 give 0.50130 / 0.48726 eV, 0.8 meV under the straight-line band. The Debian
LAMMPS build may end these `neb ... none` runs with a segmentation fault in its NEB communication, at the end of
the run or (once seen) at the start of the climbing stage; the band's log is read regardless.

Usage: perturbed_band.py POT INITIAL FINAL OUTDIR SEED
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
import ni_saddle as ns  # noqa: E402

REPLICAS = 7
ISLAND = slice(256, 263)  # the seven island atoms of build_island.py


def main(pot: Path, initial: Path, final: Path, out: Path, seed: int) -> None:
    ns.relax(pot, initial, out / "initial.relaxed.data", out, "relax-initial")
    ns.relax(pot, final, out / "final.relaxed.data", out, "relax-final")
    ini, fin = ns.positions(out / "initial.relaxed.data"), ns.positions(out / "final.relaxed.data")
    lines = (out / "initial.relaxed.data").read_text().splitlines()
    box = {}
    for line in lines:
        words = line.split()
        if words and words[-1] in ("xhi", "yhi", "zhi", "yz"):
            box[words[-1]] = [float(w) for w in words if not w.isalpha()]
    lx, ly, lz = (box[k][1] - box[k][0] for k in ("xhi", "yhi", "zhi"))
    h = np.array([[lx, 0, 0], [box["yz"][0], ly, 0], [0, 0, lz]])
    frac = (fin - ini) @ np.linalg.inv(h)
    fin = ini + (frac - np.round(frac)) @ h  # the minimum image: write_data wraps atoms into the cell
    rng = np.random.default_rng(seed)
    for k in range(REPLICAS):
        pos = ini + k / (REPLICAS - 1) * (fin - ini)
        if 0 < k < REPLICAS - 1:
            pos[ISLAND] += rng.normal(0, 0.08, size=(7, 3)) * [1, 1, 0.3]
        ns.write_like(out / "initial.relaxed.data", pos, out / f"start_{k}.data")
    world = " ".join(str(k) for k in range(REPLICAS))
    script = ns.header(pot, "start_${u}.data").replace("read_data", f"variable u world {world}\nread_data", 1)
    script += "fix band mobile neb 1.0 parallel neigh\ntimestep 0.005\nmin_style fire\nthermo 200\n"
    script += "neb 0.0 0.001 20000 20000 200 none\n"
    try:
        ns.lmp(script, out, "neb", ranks=REPLICAS, partitions=REPLICAS)
    except SystemExit as exc:  # the crash the docstring names; the band's log is read all the same
        print(str(exc).splitlines()[0], "(read the log regardless)", file=sys.stderr)
    rows = [r.split() for r in (out / "neb.log").read_text().splitlines()]
    row = next(r for r in reversed(rows) if len(r) == 9 + 2 * REPLICAS and r[0].isdigit())
    print(f"seed {seed}: forward {row[6]} eV, reverse {row[7]} eV after {row[0]} steps")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]), int(sys.argv[5]))
