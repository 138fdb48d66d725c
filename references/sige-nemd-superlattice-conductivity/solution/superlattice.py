"""Oracle of sige-nemd-superlattice-conductivity: bath temperatures, effective conductivity, interface share.

Usage: superlattice.py WORKSPACE > answer.json
Reads WORKSPACE/log.lammps (the production run: the last thermo table), WORKSPACE/temp_profile.dat and
WORKSPACE/sige.data. The bath temperatures are the production means of the chunk temperatures of the four planes
of each thermostat slab; the heat flux through one cross-section is the mean of the two tallies' slopes over
2 Lx Ly; the effective conductivity is J times the distance between the slab centres (half the period) over the
bath difference; the interface drops come from straight lines through the Si and Ge planes between the slabs
(three planes next to each slab left out), extrapolated to the interface plane, averaged over the two interfaces.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

EV_PER_PS_TO_W = 1.602176634e-19 / 1e-12
HOT, COLD = list(range(18, 22)), list(range(58, 62))


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


def profile(path: Path) -> np.ndarray:
    temps = []
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            continue
        if not line.startswith(" "):
            temps.append([])
        else:
            temps[-1].append(float(line.split()[2]))
    return np.array(temps)


def main() -> None:
    ws = Path(sys.argv[1])
    run = last_thermo((ws / "log.lammps").read_text())
    lines = (ws / "sige.data").read_text().splitlines()
    box = {s.split()[-1]: float(s.split()[1]) - float(s.split()[0]) for s in lines if s.endswith(("xhi", "yhi", "zhi"))}
    i0 = lines.index("Atoms # atomic") + 2
    atoms = sorted((int(s.split()[0]), float(s.split()[4])) for s in lines[i0:] if s.strip())
    z = np.array([a[1] for a in atoms]).reshape(80, 8).mean(axis=1)
    z[:18] += box["zhi"]  # the Si planes below the hot slab continue above the Ge across the boundary
    t = profile(ws / "temp_profile.dat").mean(axis=0)
    t_hot, t_cold = t[HOT].mean(), t[COLD].mean()
    current = 0.5 * (-np.polyfit(run["Time"], run["f_thot"], 1)[0] + np.polyfit(run["Time"], run["f_tcold"], 1)[0])
    flux = current * EV_PER_PS_TO_W / (2 * box["xhi"] * box["yhi"] * 1e-20)
    length = (z[COLD].mean() - z[HOT].mean()) * 1e-10
    drops = []
    for si, ge, zi in ((range(25, 40), range(40, 55), 0.5 * (z[39] + z[40])),
                       (range(0, 15), range(65, 80), 0.5 * (z[79] + z[0]))):  # fmt: skip
        tsi = np.polyval(np.polyfit(z[list(si)], t[list(si)], 1), zi)
        tge = np.polyval(np.polyfit(z[list(ge)], t[list(ge)], 1), zi)
        drops.append(tsi - tge)
    answer = {
        "delta_T_baths_K": float(t_hot - t_cold),
        "kappa_eff_W_per_m_K": float(flux * length / (t_hot - t_cold)),
        "interface_fraction": float(np.mean(drops) / (t_hot - t_cold)),
    }
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
