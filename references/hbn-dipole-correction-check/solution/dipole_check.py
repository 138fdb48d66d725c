"""The AB bilayer of h-BN with and without the dipole correction, at two cell heights (pw.x + pp.x + average.x).

Reads the relaxed AB bilayer from the final coordinates of ab.relax.out (a 25 A cell, a = 2.504 A) and runs three
SCF calculations at the task's lighter settings (PBE-D3, 35/280 Ry, 6x6x1, conv_thr 1e-8 Ry), each in its own
folder under runs/:

  a  25 A cell, the dipole correction (tefield + dipfield, edir 3, ramp at 0.95-1.00, eamp 0)
  b  the same cell without it
  c  a 35 A cell without it, the bilayer's atoms at the same heights relative to the middle of the cell
  2d (with --2d) the 25 A cell with the 2D Coulomb cutoff (assume_isolated = '2D') instead of the sawtooth

then pp.x (plot_num 11, V_bare + V_H, in Ry) and average.x (planar and macroscopic average along z). From the
planar average (Ry -> meV):

  step      mean 4 A clear of the atoms and the ramp above, minus the same below (case a / 2d)
  field     slope dV/dz of a straight line fitted to the middle 5 A of the vacuum (cases b, c), meV/A
  naive     V 4 A above the top layer minus V 4 A below the bottom layer, in the uncorrected cells
  rel. err  naive / step(a) - 1

Usage: dipole_check.py [--relax ab.relax.out] [--pseudo pseudo] [--answer answer.json] [--2d] [--np N]
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

BOHR = 0.529177210903
RY_MEV = 13605.693123
EMAXPOS, EOPREG = 0.95, 0.05
CLEAR = 4.0  # A from the atoms (and from the ramp) for the vacuum levels
FIT_HALF = 2.5  # half width of the straight-line fit in the middle of the vacuum (A)
POINTS_PER_A = 57.6  # average.x points along z: 1440 in 25 A


def relaxed_bilayer(path: Path) -> tuple[float, float, list[tuple[str, float, float, float]]]:
    """a, c (A) and the final (element, x, y fractional, z in A) of the relaxation."""
    out = path.read_text()
    celldm = [float(x) for x in re.findall(r"celldm\(\d\)=\s*(\S+)", out)[:3]]
    a, c = celldm[0] * BOHR, celldm[0] * celldm[2] * BOHR
    block = out.split("Begin final coordinates")[1].split("End final coordinates")[0]
    atoms = []
    for line in block.splitlines():
        w = line.split()
        if w and w[0] in ("B", "N"):
            atoms.append((w[0], float(w[1]), float(w[2]), float(w[3]) * c))
    return a, c, atoms


def deck(a: float, c: float, atoms: list, case: str, pseudo_dir: str) -> str:
    """The pw.x SCF input of CASE (a, b, c or 2d) in a cell of height c (A)."""
    zc = np.mean([z for *_, z in atoms])
    centre = 0.0 if case == "2d" else 0.5  # the 2D cutoff truncates at +-c/2 around z = 0: the bilayer sits there
    rows = "\n".join(f"{el} {x:.10f} {y:.10f} {(z - zc) / c + centre:.10f}" for el, x, y, z in atoms)
    control = "  tefield = .true.\n  dipfield = .true.\n" if case == "a" else ""
    system = ""
    if case == "a":
        system = f"  edir = 3\n  emaxpos = {EMAXPOS}\n  eopreg = {EOPREG}\n  eamp = 0.0\n"
    elif case == "2d":
        system = "  assume_isolated = '2D'\n"
    return f"""&control
  calculation = 'scf'
  prefix = 'hbn'
  outdir = './tmp'
  pseudo_dir = '{pseudo_dir}'
{control}/
&system
  ibrav = 4
  celldm(1) = {a / BOHR:.8f}
  celldm(3) = {c / a:.8f}
  nat = 4
  ntyp = 2
  ecutwfc = 35
  ecutrho = 280
  vdw_corr = 'dft-d3'
{system}/
&electrons
  conv_thr = 1.0d-8
  mixing_beta = 0.5
/
ATOMIC_SPECIES
B 10.811 B.pbe-n-rrkjus_psl.1.0.0.UPF
N 14.007 N.pbe-n-rrkjus_psl.1.0.0.UPF
ATOMIC_POSITIONS crystal
{rows}
K_POINTS automatic
6 6 1 0 0 0
"""


def run(case: str, text: str, c: float, np_: int) -> np.ndarray:
    """pw.x, pp.x, average.x in runs/CASE; returns the average.x table (z bohr, planar Ry, macroscopic Ry)."""
    folder = Path("runs") / case
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pw.in").write_text(text)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    pw = ["pw.x", "-in", "pw.in"]
    if np_ > 1 and shutil.which("mpirun"):
        pw = ["mpirun", "--allow-run-as-root", "-np", str(np_), *pw, "-nk", str(np_)]
    with (folder / "pw.out").open("w") as out:
        subprocess.run(pw, cwd=folder, stdout=out, stderr=subprocess.STDOUT, env=env, check=True)
    if "convergence has been achieved" not in (folder / "pw.out").read_text():
        raise SystemExit(f"{folder}: SCF did not converge")
    (folder / "pp.in").write_text("&inputpp\n  prefix = 'hbn', outdir = './tmp', filplot = 'v.pot', plot_num = 11\n/\n")
    with (folder / "pp.out").open("w") as out:
        subprocess.run(["pp.x", "-in", "pp.in"], cwd=folder, stdout=out, stderr=subprocess.STDOUT, env=env, check=True)
    npt = int(round(POINTS_PER_A * c))
    with (folder / "avg.out").open("w") as out:
        subprocess.run(
            ["average.x"], cwd=folder, input=f"1\nv.pot\n1.0\n{npt}\n3\n3.0\n", text=True,
            stdout=out, stderr=subprocess.STDOUT, env=env, check=True,
        )  # fmt: skip
    shutil.rmtree(folder / "tmp", ignore_errors=True)
    (folder / "v.pot").unlink()
    data = np.loadtxt(folder / "avg.dat")
    if case == "2d":  # move the bilayer from z = 0 to the middle of the cell, as in the other cases
        data[:, 0] = (data[:, 0] + c / 2 / BOHR) % (c / BOHR)
        data = data[np.argsort(data[:, 0])]
    return data


def analyse(data: np.ndarray, c: float, atoms: list, corrected: bool, column: int = 1) -> dict:
    """Vacuum levels, field and naive step (meV, A) from an average.x table with the bilayer centred in the cell."""
    z, v = data[:, 0] * BOHR, data[:, column] * RY_MEV
    zs = np.array([at[3] for at in atoms])
    zs = zs - zs.mean() + c / 2
    bottom, top = zs[:2].mean(), zs[2:].mean()
    lo, hi = zs.min(), zs.max()
    if corrected:
        above = (z > hi + CLEAR) & (z < EMAXPOS * c - CLEAR)
        below = (z > (EMAXPOS + EOPREG) * c - c + CLEAR) & (z < lo - CLEAR)
        return {"step": float(v[above].mean() - v[below].mean())}
    zz, vv = np.concatenate([z, z + c]), np.concatenate([v, v])  # the vacuum runs across the top of the cell
    mid = (top + bottom + c) / 2
    sel = np.abs(zz - mid) < FIT_HALF
    slope = float(np.polyfit(zz[sel], vv[sel], 1)[0])
    naive = float(np.interp(top + CLEAR, z, v) - np.interp(bottom - CLEAR, z, v))
    return {"field": slope, "naive": naive}


def main() -> None:
    """Run the cases and write the answer."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--relax", default="ab.relax.out")
    ap.add_argument("--pseudo", default="pseudo")
    ap.add_argument("--answer", default="answer.json")
    ap.add_argument("--np", type=int, default=1)
    ap.add_argument("--2d", dest="two_d", action="store_true")
    args = ap.parse_args()
    a, c25, atoms = relaxed_bilayer(Path(args.relax))
    pseudo = str(Path(args.pseudo).resolve())
    cases = {"a": c25, "b": c25, "c": 35.0, **({"2d": c25} if args.two_d else {})}
    res = {}
    for case, c in cases.items():
        data = run(case, deck(a, c, atoms, case, pseudo), c, args.np)
        res[case] = analyse(data, c, atoms, corrected=case in ("a", "2d"))  # the same windows for the 2D cutoff
        print(case, json.dumps(res[case]))
    step = res["a"]["step"]
    answer = {
        "delta_V_corrected_meV": round(step, 3),
        "field_meV_per_angstrom": {"c25": round(res["b"]["field"], 4), "c35": round(res["c"]["field"], 4)},
        "delta_V_naive_meV": {"c25": round(res["b"]["naive"], 3), "c35": round(res["c"]["naive"], 3)},
        "naive_relative_error": {
            "c25": round(res["b"]["naive"] / step - 1, 4),
            "c35": round(res["c"]["naive"] / step - 1, 4),
        },
    }
    if args.two_d:
        answer["delta_V_2D_cutoff_meV"] = round(res["2d"]["step"], 3)
    Path(args.answer).write_text(json.dumps(answer, indent=1) + "\n")
    print(json.dumps(answer, indent=1))


if __name__ == "__main__":
    main()
