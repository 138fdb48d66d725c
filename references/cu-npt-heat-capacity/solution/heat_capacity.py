"""Isobaric heat capacity of the EAM crystal at 300 and 500 K from LAMMPS NPT logs; prints answer.json.

Each log: NVT heating at the 0 K lattice constant, NPT equilibration, NPT production. Only the production block
(the last thermo block) is averaged, and its first 5 ps are dropped as a cautious extra margin. The runs hold the
pressure at 0 bar, so the enthalpy H = E + P V of each run is its mean total energy E (TotEng, kinetic plus
potential, eV for the whole cell). A quadratic through <H>/N against the set temperatures is differentiated at
300 and 500 K; eV/K per atom times N_A e gives J/(mol K), and the excess is C_p / (3 k_B) - 1.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

K_B = 8.617333262e-5  # eV/K
N_A_E = 96485.33212  # J/(mol eV)


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


def mean_enthalpy(path: Path) -> tuple[float, float]:
    """(target temperature, mean enthalpy per atom in eV) of one log."""
    text = path.read_text()
    natoms = int(re.search(r"^Created (\d+) atoms", text, re.M).group(1))
    header, rows = last_block(text)
    time, temp, etot = (rows[:, header.index(k)] for k in ("Time", "Temp", "TotEng"))
    keep = time >= time[0] + 5.0
    target = float(re.findall(r"^fix\s+\S+\s+all\s+npt\s+temp\s+(\S+)", text, re.M)[-1])
    print(f"{path.name}: N = {natoms}, <T> = {temp[keep].mean():.1f} K over {keep.sum()} rows", file=sys.stderr)
    return target, float(etot[keep].mean()) / natoms


def main() -> None:
    """Analyse the logs named on the command line."""
    points = sorted(mean_enthalpy(Path(p)) for p in sys.argv[1:])
    t = np.array([p[0] for p in points])
    h = np.array([p[1] for p in points])
    slope = np.polyder(np.polyfit(t, h, 2))
    cp = {at: float(np.polyval(slope, at)) * N_A_E for at in (300.0, 500.0)}
    three_kb = 3 * K_B * N_A_E
    json.dump(
        {
            "Cp_300K_J_per_mol_K": round(cp[300.0], 3),
            "Cp_500K_J_per_mol_K": round(cp[500.0], 3),
            "Cp_excess_300K": round(cp[300.0] / three_kb - 1, 4),
            "Cp_excess_500K": round(cp[500.0] / three_kb - 1, 4),
        },
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
