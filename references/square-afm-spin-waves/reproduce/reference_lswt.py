"""Reference values of square-afm-spin-waves, and the staged energies.csv they start from.

Usage: python3 reference_lswt.py OUTDIR

The model: spins of length S = 1 on a square lattice (a = 4.00 A) with H = J1 sum_<ij> S_i.S_j + J2 sum_<<ij>> S_i.S_j,
each nearest-neighbour (J1) and next-nearest-neighbour (J2) pair counted once. The chosen couplings J1 = 7.34 meV and
J2 = 0.86 meV give the classical energies of four collinear configurations of a 2x2 supercell, written (rounded to
1 micro-eV, plus an arbitrary constant) to OUTDIR/workspace/energies.csv. The reference values are then derived
back from that file, as the agent must:

  J1, J2          least squares over the four configurations, bond sums enumerated explicitly in the periodic cell
  omega(k)        linear spin-wave theory of the Neel state, closed form:
                  A_k = 4 S [J1 - J2 (1 - cos kx cos ky)],  B_k = 4 S J1 (cos kx + cos ky) / 2,  omega = sqrt(A^2 - B^2)
  velocity        hbar c = 4 S a sqrt(J1 (J1/2 - J2)), from the small-k expansion of omega
  delta_S         (1/2) <A_k / omega_k - 1> over the Brillouin zone, by adaptive quadrature on [0, pi]^2 (the
                  integrand is even in kx and ky); the 1/|k| singularities at (0,0) and (pi,pi) are corners of
                  that square, where the adaptive rule converges. Cross-checked by midpoint sums extrapolated in 1/N.
Writes OUTDIR/values.json (keys of references/square-afm-spin-waves/reference.yaml).
"""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

import numpy as np
from scipy import integrate

S = 1.0
A_LATT = 4.00  # angstrom
J1_TRUE, J2_TRUE = 7.34, 0.86  # meV, antiferromagnetic for J > 0
E0_EV = -1843.762519
SITES = [(0, 0), (1, 0), (0, 1), (1, 1)]  # 2x2 supercell, in units of a
CONFIGS = {
    "ferro": [1, 1, 1, 1],
    "neel": [1, -1, -1, 1],
    "stripe": [1, -1, 1, -1],  # ferromagnetic chains along y, alternating along x: ordering vector (pi, 0)
    "one_flipped": [-1, 1, 1, 1],
}


def bond_sums(spins: list[int]) -> tuple[float, float]:
    """Sum of s_i s_j over J1 and J2 bonds, each bond once: from every site, the +x, +y and +x+y, +x-y partners."""
    index = {xy: i for i, xy in enumerate(SITES)}
    nn = nnn = 0.0
    for (x, y), s in zip(SITES, spins, strict=True):
        for dx, dy in ((1, 0), (0, 1)):
            nn += s * spins[index[((x + dx) % 2, (y + dy) % 2)]]
        for dx, dy in ((1, 1), (1, -1)):
            nnn += s * spins[index[((x + dx) % 2, (y + dy) % 2)]]
    return nn, nnn


def write_energies(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["configuration", "spins", "energy_eV"])
        for name, spins in CONFIGS.items():
            nn, nnn = bond_sums(spins)
            e = E0_EV + (J1_TRUE * nn + J2_TRUE * nnn) * S * S * 1e-3
            w.writerow([name, " ".join(f"{s:+d}" for s in spins), f"{e:.6f}"])


def fit_couplings(path: Path) -> tuple[float, float]:
    rows = list(csv.DictReader(path.open()))
    design, rhs = [], []
    for row in rows:
        spins = [int(s) for s in row["spins"].split()]
        nn, nnn = bond_sums(spins)
        design.append([1.0, nn * S * S, nnn * S * S])
        rhs.append(float(row["energy_eV"]) * 1e3)
    coef, *_ = np.linalg.lstsq(np.array(design), np.array(rhs), rcond=None)
    return float(coef[1]), float(coef[2])


def delta_s(j1: float, j2: float) -> float:
    def f(ky: float, kx: float) -> float:
        a = 4 * S * (j1 - j2 * (1 - math.cos(kx) * math.cos(ky)))
        b = 4 * S * j1 * 0.5 * (math.cos(kx) + math.cos(ky))
        w2 = a * a - b * b
        if w2 <= 0:
            return 0.0
        return 0.5 * (a / math.sqrt(w2) - 1.0)

    val, err = integrate.dblquad(f, 0, math.pi, 0, math.pi, epsabs=1e-10, epsrel=1e-10)
    return val / math.pi**2


def midpoint(j1: float, j2: float, n: int) -> float:
    k = (np.arange(n) + 0.5) * math.pi / n
    total = 0.0
    for chunk in np.array_split(k, max(1, n // 512)):
        kx, ky = np.meshgrid(chunk, k, indexing="ij")
        a = 4 * S * (j1 - j2 * (1 - np.cos(kx) * np.cos(ky)))
        b = 4 * S * j1 * 0.5 * (np.cos(kx) + np.cos(ky))
        total += float(np.sum(0.5 * (a / np.sqrt(a * a - b * b) - 1.0)))
    return total / n**2


def main(out: Path) -> None:
    energies = out / "workspace" / "energies.csv"
    write_energies(energies)
    j1, j2 = fit_couplings(energies)
    omega_pi0 = 4 * S * (j1 - 2 * j2)
    omega_pi2 = 4 * S * (j1 - j2)
    velocity = 4 * S * A_LATT * math.sqrt(j1 * (j1 / 2 - j2))
    ds = delta_s(j1, j2)
    sums = {n: midpoint(j1, j2, n) for n in (1024, 2048, 4096)}
    extrapolated = 2 * sums[4096] - sums[2048]
    print(f"J1 = {j1:.6f} meV, J2 = {j2:.6f} meV (chosen {J1_TRUE}, {J2_TRUE})")
    print(f"omega(pi,0) = {omega_pi0:.5f} meV, omega(pi/2,pi/2) = {omega_pi2:.5f} meV, hbar c = {velocity:.5f} meV A")
    print(f"delta_S adaptive quadrature = {ds:.6f}; midpoint sums on the quarter zone "
          + ", ".join(f"N={n}: {v:.6f}" for n, v in sums.items()) + f"; 1/N-extrapolated {extrapolated:.6f}")
    values = {
        "J1_meV": round(j1, 6),
        "J2_meV": round(j2, 6),
        "spin_wave_velocity_meV_A": round(velocity, 5),
        "omega_pi_0_meV": round(omega_pi0, 5),
        "omega_pi2_pi2_meV": round(omega_pi2, 5),
        "delta_S": round(ds, 6),
        "ordered_moment_muB": round(2.0 * (S - ds), 6),
    }
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps(values))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
