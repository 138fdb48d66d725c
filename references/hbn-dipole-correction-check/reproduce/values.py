"""Reference values of hbn-dipole-correction-check from the reproduced runs, with the alternatives and the traps.

Counted here on their own (not with the oracle's reader): the atoms' heights from pw.x's own output of each run
(`site n.` lines, in alat), the vacuum levels as means of the planar average over the task's windows (4 A clear of
the atoms and the ramp), the field as a least-squares line over the middle 5 A of the vacuum, the naive step by
linear interpolation of the planar average 4 A from each layer.

Usage: python3 values.py OUTDIR    reads OUTDIR/runs/{a,b,c,2d}, writes OUTDIR/values.json, OUTDIR/alternatives.json
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

BOHR = 0.529177210903
RY_MEV = 13605.693123
EPS0 = 8.8541878128e-12
DEBYE = 3.33564e-30
EMAXPOS, EOPREG = 0.95, 0.05
PATH_AB_MEV = 84.494  # hbn-sliding-potential-step's delta_V_AB_meV (45/360 Ry, 12x12x1, the macroscopic route)
PATH_AB_PLANAR_MEV = 84.543  # the same path, planar average 4 A clear (that task's oracle route)


class Run:
    """One run's cell, atoms' heights (A) and average.x table (meV), the bilayer in the middle of the cell."""

    def __init__(self, folder: Path, centred_at_zero: bool = False):
        out = (folder / "pw.out").read_text()
        alat = float(re.search(r"lattice parameter \(alat\)\s+=\s+(\S+)", out).group(1)) * BOHR
        a3 = [float(x) for x in re.search(r"a\(3\) = \(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)", out).groups()]
        self.c = a3[2] * alat
        self.a = alat
        rows = re.findall(r"^\s+\d+\s+([BN])\s+tau\(\s*\d+\)\s+=\s+\(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)", out, re.M)
        z = np.array([float(r[3]) for r in rows[:4]]) * alat
        data = np.loadtxt(folder / "avg.dat")
        zz = data[:, 0] * BOHR
        if centred_at_zero:  # the 2D cutoff's bilayer at z = 0: move everything by half a cell
            zz, z = (zz + self.c / 2) % self.c, z + self.c / 2
            order = np.argsort(zz)
            data, zz = data[order], zz[order]
        self.z, self.v, self.m = zz, data[:, 1] * RY_MEV, data[:, 2] * RY_MEV
        self.atoms = z
        self.bottom, self.top = z[:2].mean(), z[2:].mean()
        self.lo, self.hi = z.min(), z.max()
        self.out = out

    def mean(self, z0: float, z1: float, col: str = "v") -> float:
        """Mean of column `col` (v planar, m macroscopic) over z0 < z < z1."""
        s = (self.z > z0) & (self.z < z1)
        return float(getattr(self, col)[s].mean())

    def step(self, clear: float = 4.0, col: str = "v") -> float:
        """Vacuum level above minus below, `clear` A from the atoms and from the ramp."""
        top_ramp, bottom_ramp = EMAXPOS * self.c, (EMAXPOS + EOPREG) * self.c - self.c
        return self.mean(self.hi + clear, top_ramp - clear, col) - self.mean(bottom_ramp + clear, self.lo - clear, col)

    def step_near(self, d0: float, d1: float, col: str = "v") -> float:
        """Vacuum level above minus below, each a mean from d0 to d1 A from the atoms (the 2D cutoff)."""
        return self.mean(self.hi + d0, self.hi + d1, col) - self.mean(self.lo - d1, self.lo - d0, col)

    def field(self, half: float = 2.5, col: str = "v") -> float:
        """Slope (meV/A) of a line over +-half A around the middle of the vacuum, across the top of the cell."""
        zz = np.concatenate([self.z, self.z + self.c])
        vv = np.concatenate([getattr(self, col)] * 2)
        mid = (self.top + self.bottom + self.c) / 2
        s = np.abs(zz - mid) < half
        return float(np.polyfit(zz[s], vv[s], 1)[0])

    def naive(self, d: float = 4.0, col: str = "v") -> float:
        """V at d A above the top layer minus V at d A below the bottom layer."""
        v = getattr(self, col)
        return float(np.interp(self.top + d, self.z, v) - np.interp(self.bottom - d, self.z, v))


def main() -> None:
    """Read the runs, write values.json and alternatives.json."""
    out = Path(sys.argv[1])
    a, b, c = (Run(out / "runs" / k) for k in "abc")
    two_d = Run(out / "runs" / "2d", centred_at_zero=True)
    step = a.step()
    values = {
        "delta_V_corrected_meV": step,
        "field_c25_meV_per_angstrom": b.field(),
        "field_c35_meV_per_angstrom": c.field(),
        "naive_c25_meV": b.naive(),
        "naive_c35_meV": c.naive(),
        "naive_rel_error_c25": b.naive() / step - 1,
        "naive_rel_error_c35": c.naive() / step - 1,
    }
    debye = float(re.findall(r"Dipole\s+\S+ Ry au,\s+(\S+) Debye", a.out)[-1])
    amp = float(re.findall(r"Potential amp\.\s+(\S+) Ry", a.out)[-1]) * RY_MEV
    area = np.sqrt(3) / 2 * (a.a * 1e-10) ** 2
    alt = {
        "step": {
            "planar_4A": step,
            "macroscopic_4A": a.step(4.0, "m"),
            "planar_3A": a.step(3.0),
            "macroscopic_3A": a.step(3.0, "m"),
            "printed_dipole": -debye * DEBYE / area / EPS0 * 1e3,
            "cutoff_2D_3to5A": two_d.step_near(3.0, 5.0),
            "cutoff_2D_4to6A": two_d.step_near(4.0, 6.0),
            "cutoff_2D_macroscopic_4to6A": two_d.step_near(4.0, 6.0, "m"),
            "path_settings_macroscopic": PATH_AB_MEV,
            "path_settings_planar": PATH_AB_PLANAR_MEV,
            "lighter_vs_path_rel": step / PATH_AB_PLANAR_MEV - 1,
            "trap_potential_amp": amp,
            "trap_2D_into_boundary_artefact (ramp windows)": two_d.step(),
            "trap_ry_as_ev": step / RY_MEV * 1e3,
            "trap_planar_2A": a.step(2.0),
        },
        "field": {
            **{
                f"{n}_{col}_{h}": r.field(h, col)
                for n, r in (("c25", b), ("c35", c))
                for col in "vm"
                for h in (1.5, 2.5, 5.0)
            },
            "trap_ideal_c25": -step / b.c,
            "trap_ideal_c35": -step / c.c,
        },
        "naive": {
            **{
                f"{n}_{col}_{d}": r.naive(d, col)
                for n, r in (("c25", b), ("c35", c))
                for col in "vm"
                for d in (3.5, 4.0, 4.5)
            },
            **{f"{n}_window_3.5to4.5": r.step_near(3.5, 4.5) for n, r in (("c25", b), ("c35", c))},
            **{f"trap_{n}_cell_ends": float(r.v[-1] - r.v[0]) for n, r in (("c25", b), ("c35", c))},
            **{
                f"trap_{n}_half_vacuum_midpoints": float(
                    np.interp((r.top + r.c) / 2, r.z, r.v) - np.interp(r.bottom / 2, r.z, r.v)
                )
                for n, r in (("c25", b), ("c35", c))
            },
        },
    }
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    (out / "alternatives.json").write_text(json.dumps(alt, indent=1) + "\n")
    print(json.dumps(values, indent=1))
    print(json.dumps(alt, indent=1))


if __name__ == "__main__":
    main()
