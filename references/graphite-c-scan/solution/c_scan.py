"""Interlayer binding of AB graphite with PBE-D3 in pw.x: scan c at fixed a, fit, compare with an isolated layer.

Every pw.x run gets its own folder under ./runs (its input, output and scratch). The settings are the ones the
task pins: QE 6.7, C.pbe-rrkjus.UPF (ultrasoft PBE), ecutwfc 30 Ry, ecutrho 240 Ry (8x, as ultrasoft data
need), Marzari-Vanderbilt smearing 0.01 Ry, Gamma-centred 9x9x3 mesh for the bulk and 9x9x1 for the layer,
a = 2.464 A, vdw_corr = 'dft-d3' (QE's default zero-damping D3).

The binding energy per atom is E_b(c) = E_layer/2 - E_bulk(c)/4 (positive = bound): the AB cell holds four atoms
in two layers, the isolated-layer cell two atoms; the layer sits in a cell 20 A high, far beyond the reach of the
interlayer interaction (the D3 energy between layers 20 A apart is below 0.1 meV/atom). c_eq is the minimum of a
cubic least-squares fit of E_b(c) over the scanned points, which must bracket it.

Usage: c_scan.py --pseudo DIR [--c 6.6 6.8 ...] [--answer answer.json] [--pbe-at-ceq]
  --pbe-at-ceq   also run PBE without D3 at the fitted c_eq and for the isolated layer, and report the PBE
                 binding energy there (negative = not bound) and whether PBE binds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np

BOHR_A = 0.529177210903  # CODATA 2018, as pw.x 6.7 converts
RY_MEV = 13605.693122994
A_ANG = 2.464
LAYER_C_ANG = 20.0
PSEUDO = "C.pbe-rrkjus.UPF"

BULK_POSITIONS = """C 0.0 0.0 0.25
C 0.0 0.0 0.75
C 0.333333333333 0.666666666667 0.25
C 0.666666666667 0.333333333333 0.75
"""
LAYER_POSITIONS = """C 0.0 0.0 0.0
C 0.333333333333 0.666666666667 0.0
"""


def pw_input(c_ang: float, *, layer: bool, d3: bool, pseudo_dir: str) -> str:
    """A pw.x SCF input of AB graphite (4 atoms) or one graphene layer (2 atoms) with c in angstrom."""
    nat, positions, kz = (2, LAYER_POSITIONS, 1) if layer else (4, BULK_POSITIONS, 3)
    vdw = "  vdw_corr = 'dft-d3'\n" if d3 else ""
    return f"""&control
  calculation = 'scf'
  prefix = 'graphite'
  outdir = './tmp'
  pseudo_dir = '{pseudo_dir}'
/
&system
  ibrav = 4
  celldm(1) = {A_ANG / BOHR_A:.10f}
  celldm(3) = {c_ang / A_ANG:.10f}
  nat = {nat}
  ntyp = 1
  ecutwfc = 30.0
  ecutrho = 240.0
  occupations = 'smearing'
  smearing = 'mv'
  degauss = 0.01
{vdw}/
&electrons
  conv_thr = 1.0d-9
/
ATOMIC_SPECIES
C 12.011 {PSEUDO}
ATOMIC_POSITIONS crystal
{positions}K_POINTS automatic
9 9 {kz} 0 0 0
"""


def run_pw(name: str, text: str) -> float:
    """Run pw.x in runs/NAME and return the converged total energy in Ry."""
    folder = Path("runs") / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pw.in").write_text(text)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    with (folder / "pw.out").open("w") as out:
        subprocess.run(["pw.x", "-in", "pw.in"], cwd=folder, stdout=out, stderr=subprocess.STDOUT, env=env, check=True)
    log = (folder / "pw.out").read_text()
    energies = re.findall(r"^!\s+total energy\s*=\s*(-?[\d.]+)\s*Ry", log, re.M)
    if "convergence has been achieved" not in log or not energies:
        raise SystemExit(f"{folder}: SCF did not converge")
    return float(energies[-1])


def fit_minimum(c: np.ndarray, eb: np.ndarray) -> tuple[float, float, float]:
    """Cubic fit of the binding energy: c at its maximum (the energy minimum), E_b there, d2E_b/dc2 there."""
    coef = np.polyfit(c, eb, 3)
    d1, d2 = np.polyder(coef), np.polyder(coef, 2)
    roots = [r.real for r in np.roots(d1) if abs(r.imag) < 1e-12 and np.polyval(d2, r.real) < 0]
    roots = [r for r in roots if c.min() <= r <= c.max()]
    if not roots:
        raise SystemExit("the scanned c values do not bracket the minimum; widen the scan")
    c0 = roots[0]
    return float(c0), float(np.polyval(coef, c0)), float(np.polyval(d2, c0))


def main() -> None:
    """Scan, fit and write the answer."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pseudo", default="pseudo", help="folder holding C.pbe-rrkjus.UPF")
    ap.add_argument("--c", type=float, nargs="+", default=[6.6, 6.8, 7.0, 7.2, 7.4], help="c values in angstrom")
    ap.add_argument("--answer", default="answer.json")
    ap.add_argument("--pbe-at-ceq", action="store_true")
    args = ap.parse_args()
    pseudo_dir = str(Path(args.pseudo).resolve())
    if not (Path(pseudo_dir) / PSEUDO).is_file():
        raise SystemExit(f"{PSEUDO} not found in {pseudo_dir}")

    e_layer = run_pw("layer_d3", pw_input(LAYER_C_ANG, layer=True, d3=True, pseudo_dir=pseudo_dir)) / 2
    cs = np.array(sorted(args.c))
    eb = []
    for c in cs:
        e = run_pw(f"bulk_d3_c{c:.3f}", pw_input(c, layer=False, d3=True, pseudo_dir=pseudo_dir)) / 4
        eb.append((e_layer - e) * RY_MEV)
        print(f"c = {c:.3f} A   E_b = {eb[-1]:8.3f} meV/atom")
    c_eq, eb_eq, _ = fit_minimum(cs, np.array(eb))
    answer: dict[str, float | bool] = {"c_eq_angstrom": round(c_eq, 4), "E_b_meV_per_atom": round(eb_eq, 3)}
    print(f"c_eq = {c_eq:.4f} A, E_b = {eb_eq:.3f} meV/atom (D3)")

    if args.pbe_at_ceq:
        e_layer_pbe = run_pw("layer_pbe", pw_input(LAYER_C_ANG, layer=True, d3=False, pseudo_dir=pseudo_dir)) / 2
        e_pbe = run_pw("bulk_pbe_ceq", pw_input(c_eq, layer=False, d3=False, pseudo_dir=pseudo_dir)) / 4
        eb_pbe = (e_layer_pbe - e_pbe) * RY_MEV
        answer["pbe_E_b_at_c_eq_meV_per_atom"] = round(eb_pbe, 3)
        answer["pbe_binds_at_c_eq"] = bool(eb_pbe > 0)
        print(f"PBE alone at c_eq: E_b = {eb_pbe:.3f} meV/atom")

    Path(args.answer).write_text(json.dumps(answer, indent=2) + "\n")


if __name__ == "__main__":
    main()
