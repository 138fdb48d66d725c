"""Reference values of hbn-sliding-potential-step and hbn-sliding-barrier from a reproduced sliding path.

Counted here on their own (not with the oracles' reader): each vacuum level is the mean of the macroscopic average
over the middle fifth of the vacuum gap between the atoms and the dipole correction's ramp (at least 3.8 A clear of
both); the relaxed energy is pw.x's `Final energy`; the distance is the mean height of the top layer's atoms minus
the bottom layer's.

Usage: python3 values.py OUTDIR    reads OUTDIR/path, writes OUTDIR/values.json
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bilayer import BOHR, C, EMAXPOS, EOPREG, A  # noqa: E402  (the decks the path ran)

RY_MEV = 13605.693123
EPS0 = 8.8541878128e-12
EV = 1.602176634e-19
AREA = np.sqrt(3) / 2 * A**2 * 1e-20


def relaxed(out: str) -> tuple[float, np.ndarray]:
    energy = float(re.search(r"Final energy\s+=\s+(-?\d+\.\d+) Ry", out).group(1))
    block = out.split("Begin final coordinates")[1].split("End final coordinates")[0]
    z = [float(l.split()[3]) for l in block.splitlines() if l.split() and l.split()[0] in ("B", "N")]
    return energy, np.array(z) * C


def step_mev(avg: Path, z_atoms: np.ndarray) -> float:
    data = np.loadtxt(avg)
    z, v = data[:, 0] * BOHR, data[:, 2]  # the macroscopic average
    lo, hi = z_atoms.min(), z_atoms.max()
    gap_above = (hi, EMAXPOS * C)
    gap_below = ((EMAXPOS + EOPREG) * C - C, lo)  # the ramp ends at the top of the cell, z = 0 of the next one

    def middle(gap: tuple[float, float]) -> np.ndarray:
        w = gap[1] - gap[0]
        return (z > gap[0] + 0.4 * w) & (z < gap[1] - 0.4 * w)

    return float(v[middle(gap_above)].mean() - v[middle(gap_below)].mean()) * RY_MEV


def main() -> None:
    out = Path(sys.argv[1])
    path = out / "path"
    point = {}
    for tag in ("0.00", "0.50", "1.00", "1.25", "1.50", "1.75", "2.00"):
        energy, z = relaxed((path / f"s{tag}.relax.out").read_text())
        point[tag] = {
            "energy_ry": energy,
            "d": float(z[2:].mean() - z[:2].mean()),
            "dv": step_mev(path / f"s{tag}.avg.dat", z),
        }
    e_ab = point["1.00"]["energy_ry"]
    e_sp = (point["1.50"]["energy_ry"] - e_ab) * RY_MEV
    values = {
        # hbn-sliding-potential-step
        "delta_V_AB_meV": point["1.00"]["dv"],
        "delta_V_SP_meV": point["1.50"]["dv"],
        "delta_V_BA_meV": point["2.00"]["dv"],
        "delta_V_125_meV": point["1.25"]["dv"],
        "dipole_AB_pC_per_m": -EPS0 * point["1.00"]["dv"] * 1e-3 * 1e12,
        # hbn-sliding-barrier
        "d_AA_angstrom": point["0.00"]["d"],
        "d_AB_angstrom": point["1.00"]["d"],
        "d_SP_angstrom": point["1.50"]["d"],
        "E_SP_meV": e_sp,
        "E_AA_meV": (point["0.00"]["energy_ry"] - e_ab) * RY_MEV,
        "barrier_mJ_per_m2": e_sp * 1e-3 * EV / AREA * 1e3,
    }
    extra = {
        tag: {"E_meV": (p["energy_ry"] - e_ab) * RY_MEV, "d_angstrom": p["d"], "delta_V_meV": p["dv"]}
        for tag, p in point.items()
    }
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    (out / "path.json").write_text(json.dumps(extra, indent=1) + "\n")
    print(json.dumps(values, indent=1))
    print(json.dumps(extra, indent=1))


if __name__ == "__main__":
    main()
