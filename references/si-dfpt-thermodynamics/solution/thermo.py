"""Harmonic vibrational thermodynamics of diamond Si from q2r.x force constants (matdyn.x over the whole zone).

Usage: thermo.py SI_FC [--route mesh|dos] [--n 16] [--asr crystal] [--shift 0.0]

route 'mesh' (default): matdyn.x diagonalises the dynamical matrix on an n x n x n mesh of wave vectors spanning
the Brillouin zone (Gamma-centred, or shifted by `shift` of a step), and every mode enters with weight 1/n^3:
the frequencies are used directly, without a density of states. route 'dos': matdyn.x's own phonon density of
states (dos = .true., tetrahedra, 0.5 cm^-1 bins) on the n^3 mesh, normalised to its own integral (3 modes per
atom) and integrated with the trapezoid rule. Per atom (two per primitive cell) it gives:

  ZPE = (1/2) <h c nu~> summed over 3 modes, in meV
  F(T) = ZPE + k_B T sum ln(1 - exp(-x)),  x = h c nu~ / (k_B T), in meV
  S(T) = k_B sum [x / (exp(x) - 1) - ln(1 - exp(-x))], per mole of atoms in J/(K mol)
  T0 where F(T0) = 0 (the thermal term has cancelled the zero-point energy), in K.

Prints the answer JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

HC_OVER_K = 1.438776877  # cm K
R_GAS = 8.314462618  # J/(K mol)
MEV_PER_CM1 = 0.1239841984  # meV per cm^-1
KB_MEV = 0.08617333262  # meV/K
B_FCC = np.array([[-1.0, -1.0, 1.0], [1.0, 1.0, 1.0], [-1.0, 1.0, -1.0]])  # QE ibrav = 2, units 2 pi/a


def _matdyn(fc: Path, namelist: str, qlist: str, out: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copyfile(fc, work / "si.fc")
        (work / "matdyn.in").write_text(f"&input\n  flfrc = 'si.fc', {namelist}\n/\n{qlist}")
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        subprocess.run(["matdyn.x", "-in", "matdyn.in"], cwd=work, env=env, check=True, capture_output=True)
        return (work / out).read_text()


def mesh_modes(fc: Path, n: int, asr: str, shift: float) -> tuple[np.ndarray, np.ndarray]:
    """Frequencies (cm^-1) on the n^3 mesh and equal weights normalised to 3 modes per atom."""
    idx = (np.arange(n) + shift) / n
    red = np.array(np.meshgrid(idx, idx, idx, indexing="ij")).reshape(3, -1).T
    q = red @ B_FCC
    qlist = f"{len(q)}\n" + "".join(f"{x:.10f} {y:.10f} {z:.10f}\n" for x, y, z in q)
    text = _matdyn(fc, f"asr = '{asr}', flfrq = 'f.dat'", qlist, "f.dat")
    lines = text.splitlines()[1:]
    nu = np.array([[float(lines[2 * i + 1][10 * j : 10 * j + 10]) for j in range(6)] for i in range(len(q))])
    nu = nu.ravel()
    w = np.full(nu.shape, 3.0 / nu.size)  # 6 modes per q -> 3 modes per atom
    return nu, w


def dos_modes(fc: Path, n: int, asr: str) -> tuple[np.ndarray, np.ndarray]:
    """matdyn.x's DOS as (frequency, weight) pairs of a trapezoid rule, normalised to 3 modes per atom."""
    text = _matdyn(fc, f"asr = '{asr}', dos = .true., nk1 = {n}, nk2 = {n}, nk3 = {n}, deltaE = 0.5, "
                   "fldos = 'dos.dat'", "", "dos.dat")  # fmt: skip
    data = np.loadtxt(text.splitlines(), comments="#")
    nu, g = data[:, 0], data[:, 1]
    dx = np.diff(nu)
    trap = np.zeros_like(nu)
    trap[:-1] += dx / 2
    trap[1:] += dx / 2
    w = g * trap
    return nu, 3.0 * w / w.sum()


def thermo(nu: np.ndarray, w: np.ndarray, t: float) -> tuple[float, float, float]:
    """ZPE (meV/atom), F(t) (meV/atom), S(t) (J/(K mol atoms)); modes at or below zero are dropped."""
    keep = nu > 1e-3
    nu, w = nu[keep], w[keep]
    zpe = float(np.sum(w * 0.5 * nu * MEV_PER_CM1))
    x = HC_OVER_K * nu / t
    f = zpe + float(np.sum(w * KB_MEV * t * np.log1p(-np.exp(-x))))
    s = float(np.sum(w * (x / np.expm1(x) - np.log1p(-np.exp(-x))))) * R_GAS
    return zpe, f, s


def zero_crossing(nu: np.ndarray, w: np.ndarray) -> float:
    """Temperature (K) at which F = ZPE + thermal free energy vanishes (bisection; F falls with T)."""
    lo, hi = 100.0, 2000.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if thermo(nu, w, mid)[1] > 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def answer(fc: Path, route: str = "mesh", n: int = 16, asr: str = "crystal", shift: float = 0.0) -> dict:
    """The answer JSON of the task for one analysis route."""
    nu, w = mesh_modes(fc, n, asr, shift) if route == "mesh" else dos_modes(fc, n, asr)
    zpe, f300, s300 = thermo(nu, w, 300.0)
    return {
        "ZPE_meV_per_atom": round(zpe, 3),
        "F_vib_300K_meV_per_atom": round(f300, 3),
        "S_vib_300K_J_per_molK": round(s300, 4),
        "T_F_zero_K": round(zero_crossing(nu, w), 2),
    }


def main() -> None:
    """Command line: print the answer JSON."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("fc", type=Path)
    p.add_argument("--route", choices=["mesh", "dos"], default="mesh")
    p.add_argument("--n", type=int, default=16)
    p.add_argument("--asr", default="crystal")
    p.add_argument("--shift", type=float, default=0.0)
    args = p.parse_args()
    print(json.dumps(answer(args.fc.resolve(), args.route, args.n, args.asr, args.shift), indent=2))


if __name__ == "__main__":
    main()
