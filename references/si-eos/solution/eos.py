"""Energy-volume curve of diamond Si with pw.x and a third-order Birch-Murnaghan fit (numpy only).

Each lattice constant runs in its own folder (its own outdir), one after the other, with `pw.x -in pw.in`. If the
lowest energy lies at an end of the grid the grid is moved and extended, so the fit always brackets the minimum.
Writes answer.json (a0, B0, V0 and E0 per atom) and ev.csv (volume and energy per atom of every run).

BM3 is a cubic polynomial in x = V^(-2/3), so a linear least-squares fit in x is the exact Birch-Murnaghan fit.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np

BOHR_A = 0.529177210903  # CODATA 2018
RY_EV = 13.605693122994
EV_A3_GPA = 160.21766208

PW_IN = """&control
  calculation = 'scf'
  prefix = 'si'
  outdir = './out'
  pseudo_dir = './pseudo'
/
&system
  ibrav = 2
  celldm(1) = {alat:.6f}
  nat = 2
  ntyp = 1
  ecutwfc = {ecut}
  occupations = 'fixed'
/
&electrons
  conv_thr = 1.0d-10
/
ATOMIC_SPECIES
Si 28.0855 {pseudo}
ATOMIC_POSITIONS crystal
Si 0.00 0.00 0.00
Si 0.25 0.25 0.25
K_POINTS automatic
{k} {k} {k} 0 0 0
"""


def run_point(alat: float, root: Path, pseudo: Path, ecut: float, k: int) -> tuple[float, float]:
    """One SCF at celldm(1) = alat bohr in its own folder; returns (volume per atom in A^3, energy per atom in eV)."""
    run = root / f"a{alat:.4f}"
    out = run / "pw.out"
    if not (out.is_file() and "JOB DONE" in out.read_text()):
        shutil.rmtree(run, ignore_errors=True)
        (run / "pseudo").mkdir(parents=True)
        shutil.copyfile(pseudo, run / "pseudo" / pseudo.name)
        (run / "pw.in").write_text(PW_IN.format(alat=alat, ecut=ecut, k=k, pseudo=pseudo.name))
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        with out.open("w") as fh:
            subprocess.run(["pw.x", "-in", "pw.in"], cwd=run, stdout=fh, stderr=subprocess.STDOUT, env=env, check=True)
    text = out.read_text()
    if "convergence has been achieved" not in text:
        raise SystemExit(f"{out}: SCF did not converge")
    volume = float(re.search(r"unit-cell volume\s*=\s*([\d.]+)", text).group(1))  # bohr^3 per 2-atom cell
    nat = int(re.search(r"number of atoms/cell\s*=\s*(\d+)", text).group(1))
    energy = float(re.findall(r"^!\s+total energy\s*=\s*(-?[\d.]+) Ry", text, re.M)[-1])
    return volume * BOHR_A**3 / nat, energy * RY_EV / nat


def fit_bm3(v: np.ndarray, e: np.ndarray) -> tuple[float, float, float, float]:
    """V0, E0, B0 (energy/volume units of the input) and B0' of a BM3 fit."""
    x = v ** (-2.0 / 3.0)
    c = np.polyfit(x, e, 3)
    d1, d2, d3 = np.polyder(c), np.polyder(c, 2), np.polyder(c, 3)
    minima = [r.real for r in np.roots(d1) if abs(r.imag) < 1e-12 and np.polyval(d2, r.real) > 0]
    if not minima:
        raise SystemExit("the fitted curve has no minimum")
    x0 = min(minima, key=lambda r: abs(r - x.mean()))
    e2, e3 = np.polyval(d2, x0), np.polyval(d3, x0)
    # At the minimum dE/dx = 0, so B = V d2E/dV2 = (4/9) x^(7/2) E_xx and B' = 4 + (2/3) x E_xxx / E_xx.
    return float(x0**-1.5), float(np.polyval(c, x0)), float(4 / 9 * x0**3.5 * e2), float(4 + 2 / 3 * x0 * e3 / e2)


def main() -> None:
    """Run the grid, fit, write answer.json and ev.csv."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pseudo", type=Path, default=Path("pseudo/Si.pbe-rrkj.UPF"))
    ap.add_argument("--ecut", type=float, default=30.0, help="ecutwfc in Ry")
    ap.add_argument("--k", type=int, default=12, help="Gamma-centred n x n x n mesh")
    ap.add_argument("--center", type=float, default=5.431, help="grid centre: cubic lattice constant in A")
    ap.add_argument("--span", type=float, default=0.04, help="half width of the grid, fraction of a")
    ap.add_argument("--points", type=int, default=7)
    ap.add_argument("--workdir", type=Path, default=Path("eos_runs"))
    ap.add_argument("--answer", type=Path, default=Path("answer.json"))
    ap.add_argument("--csv", type=Path, default=Path("ev.csv"))
    args = ap.parse_args()
    pseudo = args.pseudo.resolve()
    step = 2 * args.span / (args.points - 1)
    alats = list(args.center / BOHR_A * (1 + args.span * np.linspace(-1, 1, args.points)))
    points: dict[float, tuple[float, float]] = {}
    for _ in range(5):
        for a in alats:
            key = round(a, 4)
            if key not in points:
                points[key] = run_point(key, args.workdir, pseudo, args.ecut, args.k)
        ordered = sorted(points)
        lowest = min(ordered, key=lambda a: points[a][1])
        if lowest not in (ordered[0], ordered[-1]):
            break
        # The minimum sits at an end of the grid: extend the grid on that side and run again.
        sign = -1 if lowest == ordered[0] else 1
        alats = [lowest * (1 + sign * step * i) for i in range(1, 4)]
    else:
        raise SystemExit("could not bracket the energy minimum")
    ordered = sorted(points)
    v = np.array([points[a][0] for a in ordered])
    e = np.array([points[a][1] for a in ordered])
    v0, e0, b0, b0p = fit_bm3(v, e)
    answer = {
        "a0_angstrom": round((8 * v0) ** (1 / 3), 5),  # the conventional cube holds 8 atoms
        "B0_GPa": round(b0 * EV_A3_GPA, 3),
        "V0_per_atom_A3": round(v0, 5),
        "E0_eV_per_atom": round(e0, 6),
    }
    args.answer.write_text(json.dumps(answer, indent=2) + "\n")
    rows = "".join(f"{vi:.6f},{ei:.8f}\n" for vi, ei in zip(v, e, strict=True))
    args.csv.write_text("V_per_atom_A3,E_eV_per_atom\n" + rows)
    print(json.dumps(answer), f"B0' = {b0p:.3f}", f"{len(v)} points")


if __name__ == "__main__":
    main()
