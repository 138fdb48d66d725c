"""Answers of square-afm-spin-waves by other valid routes, and by the common errors (fairness.yaml).

Usage: python3 alternatives.py [energies.csv]      (default: the staged workspace file)

Every number of references/square-afm-spin-waves/fairness.yaml comes from this script:
  passing routes   J1, J2 solved exactly from three configurations; omega from the closed forms; hbar c from a
                   finite-difference slope along (1, 1); delta_S from one 512 x 512 full-zone midpoint sum
                   (no extrapolation) and from the adaptive quadrature of the reference
  errors           bonds counted from both ends (J halved), S(S+1) = 2 instead of S^2 (J halved), a J1-only fit
                   to the ferromagnetic and Neel energies, an unconverged 64 x 64 zone sum, the zone-boundary
                   energies swapped, the velocity left per 1/a, <S^z> reported without g
"""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from reference_lswt import A_LATT, S, bond_sums, delta_s, midpoint  # noqa: E402


def read(path: Path) -> dict[str, tuple[list[int], float]]:
    out = {}
    for row in csv.DictReader(path.open()):
        out[row["configuration"]] = ([int(s) for s in row["spins"].split()], float(row["energy_eV"]) * 1e3)
    return out


def full_zone_midpoint(j1: float, j2: float, n: int) -> float:
    k = -math.pi + (np.arange(n) + 0.5) * 2 * math.pi / n
    kx, ky = np.meshgrid(k, k, indexing="ij")
    a = 4 * S * (j1 - j2 * (1 - np.cos(kx) * np.cos(ky)))
    b = 4 * S * j1 * 0.5 * (np.cos(kx) + np.cos(ky))
    return float(np.mean(0.5 * (a / np.sqrt(a * a - b * b) - 1.0)))


def spectrum(j1: float, j2: float) -> dict[str, float]:
    return {
        "omega_pi_0_meV": 4 * S * (j1 - 2 * j2),
        "omega_pi2_pi2_meV": 4 * S * (j1 - j2),
        "spin_wave_velocity_meV_A": 4 * S * A_LATT * math.sqrt(j1 * (j1 / 2 - j2)),
    }


def omega(j1: float, j2: float, kx: float, ky: float) -> float:
    a = 4 * S * (j1 - j2 * (1 - math.cos(kx) * math.cos(ky)))
    b = 4 * S * j1 * 0.5 * (math.cos(kx) + math.cos(ky))
    return math.sqrt(a * a - b * b)


def main(path: Path) -> None:
    data = read(path)
    design = np.array([[1.0, *bond_sums(data[c][0])] for c in ("ferro", "neel", "stripe")])
    rhs = np.array([data[c][1] for c in ("ferro", "neel", "stripe")])
    _, j1, j2 = np.linalg.solve(design, rhs)
    cases = {}
    h = 0.01 / math.sqrt(2)
    slope = (omega(j1, j2, 2 * h, 2 * h) - omega(j1, j2, h, h)) / (0.01)  # per 1/a along (1,1)
    ds512 = full_zone_midpoint(j1, j2, 512)
    cases["three-configurations-exact"] = {"J1_meV": round(j1, 6), "J2_meV": round(j2, 6)}
    cases["finite-difference-velocity"] = {"spin_wave_velocity_meV_A": round(slope * A_LATT, 4)}
    cases["single-512-grid"] = {"delta_S": round(ds512, 5), "ordered_moment_muB": round(2 * (S - ds512), 5)}
    dsq = delta_s(j1, j2)
    cases["quarter-zone-quadrature"] = {"delta_S": round(dsq, 6), "ordered_moment_muB": round(2 * (S - dsq), 6)}
    half = {"J1_meV": round(j1 / 2, 5), "J2_meV": round(j2 / 2, 5)}
    half.update({k: round(v, 4) for k, v in spectrum(j1 / 2, j2 / 2).items()})
    cases["bonds-counted-twice"] = half
    cases["s-s-plus-one-mapping"] = {"J1_meV": round(j1 / (S * (S + 1)), 5), "J2_meV": round(j2 / (S * (S + 1)), 5)}
    nn_f, _ = bond_sums(data["ferro"][0])
    nn_n, _ = bond_sums(data["neel"][0])
    j1_only = (data["ferro"][1] - data["neel"][1]) / ((nn_f - nn_n) * S * S)
    only = {"J1_meV": round(j1_only, 5), "J2_meV": 0.0}
    only.update({k: round(v, 4) for k, v in spectrum(j1_only, 0.0).items()})
    cases["j1-only-fit"] = only
    ds64 = full_zone_midpoint(j1, j2, 64)
    cases["unconverged-64-grid"] = {"delta_S": round(ds64, 5), "ordered_moment_muB": round(2 * (S - ds64), 5)}
    sp = spectrum(j1, j2)
    cases["zone-boundary-swapped"] = {
        "omega_pi_0_meV": round(sp["omega_pi2_pi2_meV"], 4),
        "omega_pi2_pi2_meV": round(sp["omega_pi_0_meV"], 4),
    }
    cases["velocity-per-inverse-a"] = {"spin_wave_velocity_meV_A": round(sp["spin_wave_velocity_meV_A"] / A_LATT, 4)}
    ds_ref = midpoint(j1, j2, 4096)
    cases["moment-without-g"] = {"ordered_moment_muB": round(S - dsq, 5)}
    cases["classical-moment"] = {"ordered_moment_muB": 2.0}
    print(f"(quarter-zone midpoint N=4096 for comparison: {ds_ref:.6f})", file=sys.stderr)
    print(json.dumps(cases, indent=1))


if __name__ == "__main__":
    default = HERE.parents[2] / "tasks" / "crn-magnons" / "square-afm-spin-waves" / "workspace" / "energies.csv"
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else default)
