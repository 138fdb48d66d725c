"""Read the staged sliding path of bilayer h-BN: relaxed energies, interlayer distances and vacuum-level steps.

For each point `path/s<lam>.relax.out` (pw.x relax) and, where staged, `path/s<lam>.avg.dat` (average.x: z in bohr,
planar and macroscopic averages of V_bare + V_H in Ry):
  - the energy is the last '!' total energy of the converged relaxation (D3 included), in Ry;
  - the interlayer distance is the mean z of the top layer minus that of the bottom one in the final coordinates;
  - the vacuum-level step is the mean planar average over the vacuum above the bilayer minus that below it,
    each window kept 4 A away from the atoms and from the dipole correction's ramp (read from the input).
The dipole per area follows from the step of the electron's potential energy: p = -eps0 * dV / e (SI).

Usage: python3 hbn_path.py [PATH_DIR]   prints one JSON object keyed by lam.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

RY_EV = 13.605693123
BOHR = 0.529177210903
EPS0 = 8.8541878128e-12


def final_state(out_text: str) -> tuple[float, np.ndarray, float, float]:
    """(energy in Ry, final z of the atoms in fractions of c, a and c in A) of a converged pw.x relax output."""
    if "bfgs converged" not in out_text and "End of BFGS Geometry Optimization" not in out_text:
        raise ValueError("the relaxation did not converge")
    energy = float(re.findall(r"^!\s+total energy\s+=\s+(-?\d+\.\d+) Ry", out_text, re.M)[-1])
    block = out_text.split("Begin final coordinates")[-1].split("End final coordinates")[0]
    z = np.array([float(m.group(1)) for m in re.finditer(r"^[BN]\s+\S+\s+\S+\s+(\S+)", block, re.M)])
    alat = float(re.search(r"lattice parameter \(alat\)\s+=\s+([\d.]+)", out_text).group(1))
    c_over_a = float(re.search(r"celldm\(3\)=\s*([\d.]+)", out_text).group(1))
    return energy, z, alat * BOHR, alat * c_over_a * BOHR


def vacuum_step(avg_file: Path, z_atoms_ang: np.ndarray, ramp: tuple[float, float], c_ang: float) -> float:
    """Planar-averaged potential above minus below the bilayer (Ry), away from atoms and ramp by 4 A."""
    data = np.loadtxt(avg_file)
    z = data[:, 0] * BOHR
    v = data[:, 1]
    lo, hi = z_atoms_ang.min(), z_atoms_ang.max()
    r0, r1 = ramp[0] * c_ang, (ramp[0] + ramp[1]) * c_ang
    margin = 4.0
    if not hi < r0 < r1 <= c_ang:
        raise ValueError(f"{avg_file}: expected the ramp in the vacuum above the bilayer")
    above = (z > hi + margin) & (z < r0 - margin)
    below = (z > r1 - c_ang + margin) & (z < lo - margin)  # the ramp ends at c, i.e. at z = 0 of the next cell
    if above.sum() < 5 or below.sum() < 5:
        raise ValueError(f"{avg_file}: no vacuum window on both sides of the bilayer")
    return float(v[above].mean() - v[below].mean())


def read_point(path: Path, tag: str) -> dict[str, float]:
    out = (path / f"s{tag}.relax.out").read_text()
    inp = (path / f"s{tag}.relax.in").read_text()
    energy, zfrac, a_ang, c_ang = final_state(out)
    ramp = (
        float(re.search(r"emaxpos\s*=\s*([\d.]+)", inp).group(1)),
        float(re.search(r"eopreg\s*=\s*([\d.]+)", inp).group(1)),
    )
    z_ang = zfrac * c_ang
    half = len(z_ang) // 2
    d = float(z_ang[half:].mean() - z_ang[:half].mean())
    avg = path / f"s{tag}.avg.dat"  # staged for the potential-step task only
    dv_ry = vacuum_step(avg, z_ang, ramp, c_ang) if avg.is_file() else float("nan")
    area = a_ang**2 * np.sqrt(3) / 2 * 1e-20  # m^2
    dv_ev = dv_ry * RY_EV
    return {
        "energy_ry": energy,
        "d_angstrom": d,
        "delta_V_meV": dv_ev * 1e3,  # NaN without the planar average
        "dipole_pC_per_m": -EPS0 * dv_ev * 1e12,  # p / A = -eps0 dU / e, in C/m -> pC/m
        "area_m2": area,
    }


def main() -> None:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "path")
    tags = sorted(p.name[1:-len(".relax.out")] for p in path.glob("s*.relax.out"))
    print(json.dumps({t: read_point(path, t) for t in tags}, indent=1))


if __name__ == "__main__":
    main()
