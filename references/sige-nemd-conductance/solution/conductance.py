"""Oracle analysis of sige-nemd-conductance: heat flux, interface temperature drops and Kapitza conductance.

Usage: conductance.py WORKSPACE > answer.json
Reads WORKSPACE/log.lammps (the production run: the last thermo table), WORKSPACE/temp_profile.dat (plane
temperatures per block) and WORKSPACE/sige.data (plane heights, cross-section). Its own route: the current from
np.polyfit slopes of both tallies, fits that leave out three planes next to each thermostat slab, G = J over the
mean drop of the two interfaces, and a jackknife over the 50 ps blocks for its error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

EV_PER_PS_TO_W = 1.602176634e-19 / 1e-12


def last_thermo(log: str) -> dict[str, np.ndarray]:
    tables, header, rows = [], None, []
    for line in log.splitlines():
        w = line.split()
        if w[:1] == ["Step"]:
            header, rows = w, []
        elif header and line.startswith("Loop time"):
            tables.append({k: np.array(c) for k, c in zip(header, zip(*rows, strict=True), strict=True)})
            header = None
        elif header and len(w) == len(header):
            rows.append([float(x) for x in w])
    return tables[-1]


def blocks(path: Path) -> tuple[list[int], np.ndarray]:
    steps, temps = [], []
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            continue
        w = line.split()
        if not line.startswith(" "):
            steps.append(int(w[0]))
            temps.append([])
        else:
            temps[-1].append(float(w[2]))
    return steps, np.array(temps)


def main() -> None:
    ws = Path(sys.argv[1])
    run = last_thermo((ws / "log.lammps").read_text())
    lines = (ws / "sige.data").read_text().splitlines()
    lx = next(float(s.split()[1]) for s in lines if s.endswith("xhi"))
    ly = next(float(s.split()[1]) for s in lines if s.endswith("yhi"))
    lz = next(float(s.split()[1]) for s in lines if s.endswith("zhi"))
    i0 = lines.index("Atoms # atomic") + 2
    atoms = sorted((int(s.split()[0]), float(s.split()[4])) for s in lines[i0:] if s.strip())
    z = np.array([a[1] for a in atoms]).reshape(80, 8).mean(axis=1)
    z[:18] += lz  # Si planes below the hot slab continue above the Ge across the periodic boundary

    def current(t: np.ndarray, e: np.ndarray) -> float:
        return float(np.polyfit(t, e, 1)[0])

    def drops(temps: np.ndarray) -> list[float]:
        out = []
        # interface 1: Si 25..39 | Ge 40..54 ; interface 2: Ge 65..79 | Si 0..14 (shifted up by Lz)
        for si, ge, zi in ((range(25, 40), range(40, 55), 0.5 * (z[39] + z[40])),
                           (range(0, 15), range(65, 80), 0.5 * (z[79] + z[0]))):  # fmt: skip
            tsi = np.polyval(np.polyfit(z[list(si)], temps[list(si)], 1), zi)
            tge = np.polyval(np.polyfit(z[list(ge)], temps[list(ge)], 1), zi)
            out.append(float(tsi - tge))
        return out

    area = lx * ly * 1e-20

    def flux(sel: np.ndarray) -> float:
        t = run["Time"][sel]
        q = 0.5 * (-current(t, run["f_thot"][sel]) + current(t, run["f_tcold"][sel]))
        return q * EV_PER_PS_TO_W / (2 * area)

    everything = np.ones(len(run["Step"]), dtype=bool)
    j = flux(everything)
    steps, temps = blocks(ws / "temp_profile.dat")
    d = drops(temps.mean(axis=0))
    edges = [0, *steps]
    jb, db = [], []
    for b in range(len(steps)):
        sel = (run["Step"] >= edges[b]) & (run["Step"] <= edges[b + 1])
        jb.append(flux(sel))
        db.append(float(np.mean(drops(temps[b]))))
    jb, db = np.array(jb), np.array(db)
    n = len(jb)
    loo = np.array([np.delete(jb, i).mean() / np.delete(db, i).mean() for i in range(n)]) / 1e9
    err = float(np.sqrt((n - 1) / n * ((loo - loo.mean()) ** 2).sum()))
    answer = {
        "heat_flux_W_per_m2": j,
        "delta_T_K": float(np.mean(d)),
        "G_GW_per_m2_K": j / float(np.mean(d)) / 1e9,
        "G_stderr_GW_per_m2_K": err,
    }
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
