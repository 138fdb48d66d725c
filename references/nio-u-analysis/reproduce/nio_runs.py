"""The DFT+U scan of AFM-II NiO staged for nio-u-analysis (QE 6.7 pw.x), and the reference values derived from it.

Usage: python3 nio_runs.py PSEUDO_DIR OUTDIR [--analyse-only]

PBE with the ultrasoft Ni.pbe-nd-rrkjus.UPF and O.pbe-rrkjus.UPF (Debian's quantum-espresso-data), rocksalt NiO in
the 4-atom rhombohedral cell of the AFM-II order (ibrav 5, a_R = a sqrt(3/2), cos(alpha) = 5/6, cubic shape kept;
two Ni species with opposite starting magnetization, Ni moments alternating between successive (111) planes).
ecutwfc 40 Ry, ecutrho 320 Ry, unshifted 6x6x6 mesh, Gaussian smearing 0.005 Ry (the gap is far larger, so the
occupations are integer), conv_thr 1e-8 Ry. Simplified rotationally invariant DFT+U (Dudarev) on Ni 3d with the QE
6.7 syntax (lda_plus_u, Hubbard_U(i)) and atomic (non-orthogonalized) projectors.

  nio_U<U>_a<a>.out   U = 0 (plain PBE: QE 6.7 stops on lda_plus_u with every U zero), 2, 4, 6 and 8 eV, each at
                      six cubic lattice constants a = 4.09 ... 4.29 A (steps of 0.04 A). The runs at a = 4.17 A
                      (experiment) print every eigenvalue and occupation (verbosity 'high', 24 bands); the others
                      print the default output.
  nio_U7_a4.17.out    meant as U = 7 eV at a = 4.17 A but written with the HUBBARD card of QE >= 7.1; QE 6.7 prints
                      "card HUBBARD ignored" and runs plain PBE.

Cross-check, not staged: U = 6 eV at a = 4.17 A on an 8x8x8 mesh (k convergence of gap, moment and energy).

Reference values, from each run's XML data file (eigenvalues and occupations in hartree, the U in rydberg; the text
the agent parses is independent of it) and the per-site moments printed at the end of the text output: per series
the applied U, the gap and the mean |Ni moment| at a = 4.17 A, and the equilibrium cubic lattice constant a0 from a
third-order Birch-Murnaghan fit of E(V) over the six runs (V = a^3/2 per 4-atom cell); then the least-squares slope
of the gap at a = 4.17 A against the applied U over the series with U > 0. Writes OUTDIR/values.json.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

HARTREE_EV = 27.211386245988
RY_EV = HARTREE_EV / 2
BOHR_A = 0.52917720859
PSEUDOS = ("Ni.pbe-nd-rrkjus.UPF", "O.pbe-rrkjus.UPF")
U_SCAN = (0.0, 2.0, 4.0, 6.0, 8.0)
LATTICE = (4.09, 4.13, 4.17, 4.21, 4.25, 4.29)
A_EXP = 4.17


def pw_input(u: float | str, a: float, kmesh: int = 6) -> str:
    hub, card = "", ""
    if isinstance(u, float) and u > 0:
        hub = f"\n  lda_plus_u = .true., Hubbard_U(1) = {u}, Hubbard_U(2) = {u},"
    elif u == "card":
        card = "HUBBARD {atomic}\nU Ni1-3d 7.0\nU Ni2-3d 7.0\n"
    verbose = a == A_EXP
    return f"""&control
  calculation = 'scf', prefix = 'nio', outdir = './out', pseudo_dir = './pseudo'{", verbosity = 'high'" if verbose else ""}
/
&system
  ibrav = 5, celldm(1) = {a / BOHR_A * 1.5**0.5:.5f}, celldm(4) = 0.8333333333, nat = 4, ntyp = 3,
  ecutwfc = 40.0, ecutrho = 320.0,{" nbnd = 24," if verbose else ""}
  occupations = 'smearing', smearing = 'gaussian', degauss = 0.005,
  nspin = 2, starting_magnetization(1) = 0.5, starting_magnetization(2) = -0.5,{hub}
/
&electrons
  conv_thr = 1.0d-8, mixing_beta = 0.3
/
ATOMIC_SPECIES
Ni1 58.6934 {PSEUDOS[0]}
Ni2 58.6934 {PSEUDOS[0]}
O   15.999  {PSEUDOS[1]}
ATOMIC_POSITIONS crystal
Ni1 0.00 0.00 0.00
Ni2 0.50 0.50 0.50
O   0.25 0.25 0.25
O   0.75 0.75 0.75
K_POINTS automatic
{kmesh} {kmesh} {kmesh} 0 0 0
{card}"""


def label(u: float | str, a: float) -> str:
    return f"nio_U{7 if u == 'card' else int(u)}_a{a:.2f}"


RUNS: list[tuple[str, float | str, float, int]] = [(label(u, a), u, a, 6) for u in U_SCAN for a in LATTICE]
RUNS.append((label("card", A_EXP), "card", A_EXP, 6))
CROSS = [("check_U6_a4.17_k8", 6.0, A_EXP, 8)]


def _finished(d: Path, inp: str) -> bool:
    """A run folder left by an interrupted reproduction whose pw.x finished: kept, not run again."""
    out, pin = d / "pw.out", d / "pw.in"
    if not (out.is_file() and pin.is_file() and pin.read_text() == inp):
        return False
    text = out.read_text()
    return "JOB DONE" in text and "convergence has been achieved" in text


def run(name: str, u: float | str, a: float, kmesh: int) -> float:
    d = OUT / "runs" / name
    if _finished(d, pw_input(u, a, kmesh)):
        return 0.0  # an earlier, interrupted reproduction already ran it with these inputs
    if d.exists():
        shutil.rmtree(d)
    (d / "pseudo").mkdir(parents=True)
    for p in PSEUDOS:
        shutil.copyfile(PSEUDO_DIR / p, d / "pseudo" / p)
    (d / "pw.in").write_text(pw_input(u, a, kmesh))
    start = time.monotonic()
    with open(d / "pw.out", "w") as fh:
        subprocess.run(["pw.x", "-in", "pw.in"], cwd=d, stdout=fh, stderr=subprocess.STDOUT, check=True,
                       env={**os.environ, "OMP_NUM_THREADS": "1"})
    text = (d / "pw.out").read_text()
    if "JOB DONE" not in text or "convergence has been achieved" not in text:
        raise SystemExit(f"{name}: pw.x did not finish")
    # keep the XML data file (reference values come from it), drop wavefunctions and the charge density
    xml = d / "out" / "nio.save" / "data-file-schema.xml"
    shutil.copyfile(xml, d / "data-file-schema.xml")
    shutil.rmtree(d / "out", ignore_errors=True)
    shutil.rmtree(d / "pseudo", ignore_errors=True)
    return time.monotonic() - start


def analyse(d: Path) -> dict:
    root = ET.parse(d / "data-file-schema.xml").getroot()
    kpoints = root.findall("output/band_structure/ks_energies")
    ev = np.array([float(x) * HARTREE_EV for ks in kpoints for x in ks.find("eigenvalues").text.split()])
    occ = np.array([float(x) for ks in kpoints for x in ks.find("occupations").text.split()])
    vbm, cbm = float(ev[occ > 0.5].max()), float(ev[occ < 0.5].min())
    hubbard = root.find("output/dft/dftU")
    us = [float(h.text) * RY_EV for h in hubbard.findall("Hubbard_U")] if hubbard is not None else []
    energy = float(root.find("output/total_energy/etot").text) * HARTREE_EV
    cell = np.array([[float(x) for x in root.find(f"output/atomic_structure/cell/{v}").text.split()]
                     for v in ("a1", "a2", "a3")]) * BOHR_A
    text = (d / "pw.out").read_text()
    block = text[text.rindex("Magnetic moment per site"):]
    moments = [float(m) for m in re.findall(r"atom:\s+\d+\s+charge:\s+\S+\s+magn:\s+(\S+)", block)[:4]]
    return {"nk": len(kpoints), "gap": cbm - vbm, "U": round(max(us) if us else 0.0, 6), "E": energy,
            "V": float(abs(np.linalg.det(cell))), "ni_moment": float(np.mean(np.abs(moments[:2]))),
            "moments": moments}


def birch_murnaghan_v0(v: np.ndarray, e: np.ndarray) -> float:
    x = v ** (-2 / 3)
    c = np.polyfit(x, e, 3)
    roots = np.roots(np.polyder(c))
    roots = roots[np.isreal(roots)].real
    ok = roots[(np.polyval(np.polyder(c, 2), roots) > 0) & (roots > 0.8 * x.min()) & (roots < 1.2 * x.max())]
    return float(ok[0] ** (-3 / 2))


def main(analyse_only: bool) -> None:
    (OUT / "workspace").mkdir(parents=True, exist_ok=True)
    if not analyse_only:
        for name, u, a, k in [*RUNS, *CROSS]:
            seconds = run(name, u, a, k)
            print(f"{name}: {seconds:.0f} s", flush=True)
    for name, *_ in RUNS:
        shutil.copyfile(OUT / "runs" / name / "pw.out", OUT / "workspace" / f"{name}.out")
    res = {name: analyse(OUT / "runs" / name) for name, *_ in [*RUNS, *CROSS]}
    values: dict[str, object] = {}
    for u in [*U_SCAN, "card"]:
        tag = f"U{7 if u == 'card' else int(u)}"
        at_exp = res[label(u, A_EXP)]
        values[f"U_applied_{tag}"] = at_exp["U"]
        values[f"gap_{tag}"] = round(at_exp["gap"], 4)
        values[f"ni_moment_{tag}"] = round(at_exp["ni_moment"], 4)
        line = f"{tag}: U applied {at_exp['U']:.3f} eV, gap(4.17) {at_exp['gap']:.4f} eV, " \
               f"Ni moment {at_exp['ni_moment']:.4f} muB ({at_exp['nk']} k)"
        if u != "card":
            pts = [res[label(u, a)] for a in LATTICE]
            v0 = birch_murnaghan_v0(np.array([p["V"] for p in pts]), np.array([p["E"] for p in pts]))
            values[f"a0_{tag}"] = round((2 * v0) ** (1 / 3), 5)
            gaps = [round(p["gap"], 3) for p in pts]
            line += f", a0 {values[f'a0_{tag}']:.4f} A, gaps over a {gaps}"
        print(line)
    with_u = [(values[f"U_applied_U{int(u)}"], values[f"gap_U{int(u)}"]) for u in U_SCAN
              if values[f"U_applied_U{int(u)}"] > 0]
    slope = float(np.polyfit(*zip(*with_u, strict=True), 1)[0])
    values["dgap_dU"] = round(slope, 5)
    k8 = res["check_U6_a4.17_k8"]
    k6 = res[label(6.0, A_EXP)]
    print(f"k convergence at U = 6, a = 4.17: 8x8x8 - 6x6x6: gap {k8['gap'] - k6['gap']:+.4f} eV, "
          f"moment {k8['ni_moment'] - k6['ni_moment']:+.4f} muB, E {(k8['E'] - k6['E']) * 1000 / 4:+.3f} meV/atom")
    print(f"d gap / dU over the {len(with_u)} series with U > 0: {slope:.5f}")
    (OUT / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps(values, indent=1))


if __name__ == "__main__":
    PSEUDO_DIR = Path(sys.argv[1]).resolve()
    OUT = Path(sys.argv[2]).resolve()
    OUT.mkdir(parents=True, exist_ok=True)
    main("--analyse-only" in sys.argv[3:])
