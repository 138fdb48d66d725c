"""Reference values of si-dfpt-phonons from the staged force constants (si.fc), written to values.json.

Usage: reference.py SI_FC WORKDIR [--json VALUES_JSON]

matdyn.x (QE 6.7) interpolates the dynamical matrix at Gamma, X = (0, 0, 1) and L = (1/2, 1/2, 1/2) (Cartesian,
2 pi/a) with the acoustic sum rule 'crystal' (the reference), 'simple' and 'no' (printed: the spread a valid
choice of sum rule gives, and the error of none). The phonon density of states comes from matdyn.x's dos mode
on a Gamma-centred 24x24x24 q mesh (tetrahedra) and, as a cross-check, on 16x16x16; the harmonic heat capacity
per mole of atoms is the integral of the DOS (normalised to 3 modes per atom) with the Einstein function. eps_inf is the diagonal of the electronic dielectric tensor that ph.x wrote at the top of si.fc.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

CM1_PER_THZ = 33.35641
HC_OVER_K_CM = 1.438776877  # h c / k_B in cm K: x = hc nu / (k_B T) = 1.4388 nu[cm^-1] / T[K]
R_GAS = 8.314462618  # J / (K mol)
POINTS = {"gamma": (0.0, 0.0, 0.0), "X": (0.0, 0.0, 1.0), "L": (0.5, 0.5, 0.5)}


def matdyn(work: Path, fc: Path, asr: str, extra: str, qpoints: str) -> str:
    """Run matdyn.x in `work` on a copy of the force constants; return the name of its frequency/DOS file."""
    work.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(fc, work / "si.fc")
    (work / "matdyn.in").write_text(f"&input\n  asr = '{asr}', flfrc = 'si.fc'{extra}\n/\n{qpoints}")
    subprocess.run(
        ["matdyn.x", "-in", "matdyn.in"], cwd=work, check=True, capture_output=True, timeout=3600, env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"}
    )
    return "matdyn.in"


def frequencies(work: Path, fc: Path, asr: str) -> dict[str, list[float]]:
    """Six frequencies (cm^-1, ascending) at Gamma, X and L."""
    q = "".join(f"{x} {y} {z}\n" for x, y, z in POINTS.values())
    matdyn(work, fc, asr, ", flfrq = 'f.dat'", f"{len(POINTS)}\n{q}")
    lines = (work / "f.dat").read_text().splitlines()[1:]
    rows = [sorted(float(w) for w in lines[2 * i + 1].split()) for i in range(len(POINTS))]
    return dict(zip(POINTS, rows, strict=True))


def dos_cv(work: Path, fc: Path, n: int, temperatures: tuple[float, ...]) -> dict[float, float]:
    """Harmonic Cv (J/K per mole of atoms) at each temperature from matdyn's DOS on an n^3 q mesh."""
    matdyn(work, fc, "crystal", f", dos = .true., nk1 = {n}, nk2 = {n}, nk3 = {n}, deltaE = 0.5, fldos = 'dos.dat'", "")
    data = np.loadtxt(work / "dos.dat", comments="#")
    nu, g = data[:, 0], data[:, 1]
    g = np.where(nu > 0, g, 0.0)
    norm = np.trapezoid(g, nu)  # 6 modes per 2-atom cell
    out = {}
    for t in temperatures:
        x = HC_OVER_K_CM * np.where(nu > 0, nu, 1e-9) / t
        einstein = np.where(nu > 0, x * x * np.exp(-x) / (1 - np.exp(-x)) ** 2, 0.0)
        out[t] = float(3 * R_GAS * np.trapezoid(g * einstein, nu) / norm)  # 3 R per atom at high T
    return out


def eps_inf(fc: Path) -> float:
    """Mean diagonal of the dielectric tensor at the top of a q2r.x force-constant file."""
    lines = fc.read_text().splitlines()
    ntyp = int(lines[0].split()[0])
    nat = int(lines[0].split()[1])
    start = 1 + ntyp + nat
    if lines[start].strip() != "T":
        raise SystemExit(f"{fc}: no dielectric tensor (no 'T' after the atoms)")
    tensor = np.array([[float(x) for x in lines[start + 1 + i].split()] for i in range(3)])
    return float(np.trace(tensor) / 3)


def main() -> None:
    """Compute and print the reference values; write them with --json."""
    args = sys.argv[1:]
    values_json = None
    if "--json" in args:
        i = args.index("--json")
        values_json = Path(args[i + 1])
        args = args[:i] + args[i + 2 :]
    fc, work = Path(args[0]).resolve(), Path(args[1]).resolve()
    by_asr = {asr: frequencies(work / f"freq-{asr}", fc, asr) for asr in ("crystal", "simple", "no")}
    for asr, rows in by_asr.items():
        print(f"asr = {asr:8s}", "  ".join(f"{k}: {' '.join(f'{w:7.2f}' for w in v)}" for k, v in rows.items()))
    ref = by_asr["crystal"]
    gamma = [0.0 if abs(w) < 1e-2 else w for w in ref["gamma"]]
    x, lpt = ref["X"], ref["L"]
    cv = {n: dos_cv(work / f"dos-{n}", fc, n, (100.0, 300.0)) for n in (16, 24)}
    for n, c in cv.items():
        print(f"DOS on {n}^3: Cv(100 K) = {c[100.0]:.4f}, Cv(300 K) = {c[300.0]:.4f} J/(K mol atoms)")
    eps = eps_inf(fc)
    print(f"eps_inf = {eps:.4f}")
    values = {
        "gamma_cm1": [round(w, 2) for w in gamma],
        "X_cm1": [round(w, 2) for w in x],
        "L_cm1": [round(w, 2) for w in lpt],
        "gamma_optical_THz": round(sum(gamma[3:]) / 3 / CM1_PER_THZ, 4),
        "X_TA_THz": round(sum(x[0:2]) / 2 / CM1_PER_THZ, 4),
        "X_LA_THz": round(sum(x[2:4]) / 2 / CM1_PER_THZ, 4),
        "X_TO_THz": round(sum(x[4:6]) / 2 / CM1_PER_THZ, 4),
        "eps_inf": round(eps, 3),
        "Cv_100K_J_per_molK": round(cv[24][100.0], 3),
    }
    print(json.dumps(values))
    if values_json is not None:
        values_json.write_text(json.dumps(values, indent=2) + "\n")


if __name__ == "__main__":
    main()
