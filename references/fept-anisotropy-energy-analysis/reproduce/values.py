"""Reference values of fept-anisotropy-energy-analysis from the four staged pw.x outputs (QE 6.7).

Usage: python3 values.py WORKSPACE OUT.json

The outputs fept_k{08,12}_t{00,90}.out are self-consistent spin-orbit runs of L1_0 FePt (one formula unit per
2-atom cell) with the magnetisation along [001] (t00) and [100] (t90), on the unshifted 8x8x6 and 12x12x9 meshes
(decks.py). From each: the converged total energy (the last line starting with '!', Ry), the last total
magnetization vector (muB per cell) and the cell volume (bohr^3). The anisotropy energy is E[100] - E[001] per
formula unit; K = that energy over the cell volume; the anisotropy field mu0 H_A = 2K / M_s with M_s the magnitude
of the [001] run's total magnetization over the same volume (volume cancels: 2 dE / |m|).
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

RY_EV = 13.605693122994
BOHR_A = 0.529177210903
E_CHARGE = 1.602176634e-19  # J per eV
MU_B = 9.2740100783e-24  # J/T
MESHES = {"k08": "8x8x6", "k12": "12x12x9"}
FLOAT = r"(-?\d+\.\d+)"


def read(path: Path) -> dict:
    """The numbers of one pw.x output that the analysis uses."""
    text = path.read_text()
    if "convergence has been achieved" not in text or "JOB DONE" not in text:
        raise SystemExit(f"{path.name}: not a converged, finished run")
    bang = [float(x) for x in re.findall(rf"^!\s+total energy\s+=\s+{FLOAT}\s+Ry", text, re.M)]
    plain = [float(x) for x in re.findall(rf"^\s+total energy\s+=\s+{FLOAT}\s+Ry", text, re.M)]
    internal = re.findall(rf"internal energy E=F\+TS\s+=\s+{FLOAT}\s+Ry", text)
    smear = re.findall(rf"smearing contrib\. \(-TS\)\s+=\s+{FLOAT}\s+Ry", text)
    mags = re.findall(rf"total magnetization\s+=\s+{FLOAT}\s+{FLOAT}\s+{FLOAT}\s+Bohr", text)
    absolute = re.findall(rf"absolute magnetization\s+=\s+{FLOAT}\s+Bohr", text)
    volume = float(re.search(rf"unit-cell volume\s+=\s+{FLOAT}\s+\(a\.u\.\)\^3", text).group(1))
    nat = int(re.search(r"number of atoms/cell\s+=\s+(\d+)", text).group(1))
    nks = int(re.search(r"number of k points=\s+(\d+)", text).group(1))
    return {
        "energy_Ry": bang[-1],
        "first_energy_Ry": plain[0],
        "last_plain_energy_Ry": plain[-1],
        "internal_energy_Ry": float(internal[-1]) if internal else None,
        "smearing_Ry": float(smear[-1]) if smear else None,
        "magnetization": [float(v) for v in mags[-1]],
        "absolute_magnetization": float(absolute[-1]),
        "volume_A3": volume * BOHR_A**3,
        "nat": nat,
        "nks": nks,
        "iterations": len(re.findall(r"iteration #", text)),
    }


def runs(workspace: Path) -> dict[str, dict]:
    """The four runs of a folder, keyed k08_t00, k08_t90, k12_t00, k12_t90."""
    return {f"{k}_{t}": read(workspace / f"fept_{k}_{t}.out") for k in MESHES for t in ("t00", "t90")}


def mae_meV(r: dict, mesh: str, key: str = "energy_Ry") -> float:
    """E[100] - E[001] of one mesh in meV per formula unit (one Fe and one Pt per cell)."""
    return (r[f"{mesh}_t90"][key] - r[f"{mesh}_t00"][key]) * RY_EV * 1000.0


def mj_per_m3(mae: float, volume_a3: float) -> float:
    """An energy in meV over a volume in A^3, in MJ/m^3."""
    return mae * 1e-3 * E_CHARGE / (volume_a3 * 1e-30) / 1e6


def field_T(mae: float, moment_muB: float) -> float:
    """mu0 H_A = 2 K / M_s = 2 dE / m (energy per cell over moment per cell), in tesla."""
    return 2.0 * mae * 1e-3 * E_CHARGE / (moment_muB * MU_B)


def values(workspace: Path) -> dict:
    """The reference values (graded and not) from the staged outputs."""
    r = runs(workspace)
    mae = mae_meV(r, "k12")
    vol = r["k12_t00"]["volume_A3"]
    m001 = math.sqrt(sum(x * x for x in r["k12_t00"]["magnetization"]))
    return {
        "mae_meV_per_fu": round(mae, 4),
        "mae_k8_meV_per_fu": round(mae_meV(r, "k08"), 4),
        "mae_MJ_per_m3": round(mj_per_m3(mae, vol), 4),
        "anisotropy_field_T": round(field_T(mae, m001), 3),
        "easy_axis": "001" if mae > 0 else "100",
        "cell_volume_A3": round(vol, 4),
        "moment_001_muB": m001,
        "moment_100_muB": math.sqrt(sum(x * x for x in r["k12_t90"]["magnetization"])),
    }


if __name__ == "__main__":
    result = values(Path(sys.argv[1]))
    print(json.dumps(result, indent=1))
    Path(sys.argv[2]).write_text(json.dumps(result, indent=1) + "\n")
