"""Other routes to the answers of hbn-sliding-potential-step and hbn-sliding-barrier, for their fairness records.

Valid: the planar instead of the macroscopic average, narrower and wider vacuum windows, the dipole pw.x prints
last (Debye, four decimals) over the cell area, the interlayer distance between the boron (or nitrogen) atoms
alone. Errors: the sawtooth amplitude (`Potential amp.`) read as the step, the dipole of the first converged SCF
(the starting distance), energies of the first SCF of each relaxation or without the D3 term.

Usage: python3 alternatives.py PATH_DIR    (the staged path/ folder)
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from values import AREA, BOHR, EMAXPOS, EPS0, RY_MEV, C, relaxed  # noqa: E402

DEBYE = 3.33564e-30


def window_step(avg: Path, z_atoms: np.ndarray, margin: float, column: int) -> float:
    data = np.loadtxt(avg)
    z, v = data[:, 0] * BOHR, data[:, column]
    above = (z > z_atoms.max() + margin) & (z < EMAXPOS * C - margin)
    below = (z > margin) & (z < z_atoms.min() - margin)
    return float(v[above].mean() - v[below].mean()) * RY_MEV


def main() -> None:
    path = Path(sys.argv[1])
    result: dict[str, dict[str, float]] = {}
    for f in sorted(path.glob("s*.relax.out")):
        tag = f.name[1:-len(".relax.out")]
        out = f.read_text()
        z = relaxed(out)[1]
        debye = [float(x) for x in re.findall(r"Dipole\s+\S+ Ry au,\s+(\S+) Debye", out)]
        amp = [float(x) for x in re.findall(r"Potential amp\.\s+(\S+) Ry", out)]
        # the dipole printed at the end of the first SCF: the last one before the first '!' line
        first_scf = out.split("\n!")[0]
        debye_first = float(re.findall(r"Dipole\s+\S+ Ry au,\s+(\S+) Debye", first_scf)[-1])
        energies = [float(x) for x in re.findall(r"^!\s+total energy\s+=\s+(\S+) Ry", out, re.M)]
        dispersion = [float(x) for x in re.findall(r"DFT-D3 Dispersion\s+=\s+(\S+) Ry", out)]
        row = {
            "energy_first_ry": energies[0],
            "energy_last_ry": energies[-1],
            "energy_without_d3_ry": energies[-1] - dispersion[-1],
            "d_boron_only": float(z[2] - z[0]),
            "d_nitrogen_only": float(z[3] - z[1]),
            "dipole_printed_pC_per_m": debye[-1] * DEBYE / AREA * 1e12,
            "dipole_first_scf_pC_per_m": debye_first * DEBYE / AREA * 1e12,
            "step_from_printed_dipole_meV": -debye[-1] * DEBYE / AREA / EPS0 * 1e3,
            "step_potential_amp_meV": amp[-1] * RY_MEV,
        }
        avg = path / f"s{tag}.avg.dat"
        if avg.is_file():
            for margin in (2.0, 4.0, 6.0):
                row[f"step_planar_margin{margin:g}_meV"] = window_step(avg, z, margin, 1)
                row[f"step_macro_margin{margin:g}_meV"] = window_step(avg, z, margin, 2)
        result[tag] = row
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
