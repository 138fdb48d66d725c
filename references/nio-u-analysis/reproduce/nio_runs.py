"""Run the six pw.x DFT+U calculations of AFM-II NiO staged for nio-u-analysis, and derive the reference values.

Usage: python3 nio_runs.py PSEUDO_DIR OUTDIR [--analyse-only]

QE 6.7 pw.x, PBE, ultrasoft Ni.pbe-nd-rrkjus.UPF and O.pbe-rrkjus.UPF (Debian's quantum-espresso-data), rocksalt
NiO at a = 4.17 A in the 4-atom rhombohedral cell of the AFM-II order (ibrav 5, a_R = a sqrt(3/2), cos(alpha) = 5/6;
Ni moments alternate between successive (111) planes, two Ni species with opposite starting magnetization).
ecutwfc 30 Ry, ecutrho 240 Ry, 4x4x4 unshifted mesh, Gaussian smearing 0.005 Ry (SCF stability; the gap is
far larger, so the occupations are integer), nbnd 24, conv_thr 1e-8 Ry, verbosity high (all eigenvalues and
occupations printed). Simplified rotationally invariant DFT+U (Dudarev) on Ni 3d with the QE 6.7 syntax
(lda_plus_u, Hubbard_U(i)), atomic projectors:

  nio_U0.out  plain PBE (lda_plus_u off: QE 6.7 stops on lda_plus_u with every U zero)
  nio_U2.out, nio_U4.out, nio_U6.out, nio_U8.out   Hubbard_U(Ni1) = Hubbard_U(Ni2) = 2, 4, 6, 8 eV
  nio_U7.out  meant as U = 7 eV but written with the HUBBARD card of QE >= 7.1; QE 6.7 prints "card HUBBARD
              ignored" and runs plain PBE, so this run is a second U = 0 calculation

One directory per run under OUTDIR/runs/; outputs copied to OUTDIR/workspace/. The reference values are taken from
each run's XML data file (eigenvalues and occupations in hartree, the applied U in rydberg; independent of the text
output the agent parses) and from the per-site moments printed at the end of the text output. Writes
OUTDIR/values.json.
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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

HARTREE_EV = 27.211386245988
RY_EV = HARTREE_EV / 2
A_CUBIC_BOHR = 4.17 / 0.52917720859
PSEUDOS = ("Ni.pbe-nd-rrkjus.UPF", "O.pbe-rrkjus.UPF")
RUNS: dict[str, float | str | None] = {"U0": None, "U2": 2.0, "U4": 4.0, "U6": 6.0, "U7": "card", "U8": 8.0}


def pw_input(u: float | str | None) -> str:
    hub = ""
    card = ""
    if isinstance(u, float):
        hub = f"\n  lda_plus_u = .true., Hubbard_U(1) = {u}, Hubbard_U(2) = {u},"
    elif u == "card":
        card = "HUBBARD {atomic}\nU Ni1-3d 7.0\nU Ni2-3d 7.0\n"
    return f"""&control
  calculation = 'scf', prefix = 'nio', outdir = './out', pseudo_dir = './pseudo', verbosity = 'high'
/
&system
  ibrav = 5, celldm(1) = {A_CUBIC_BOHR * 1.5**0.5:.5f}, celldm(4) = 0.8333333333, nat = 4, ntyp = 3,
  ecutwfc = 30.0, ecutrho = 240.0, nbnd = 24,
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
4 4 4 0 0 0
{card}"""


def run(name: str, u: float | str | None) -> dict:
    d = OUT / "runs" / name
    if d.exists():
        shutil.rmtree(d)
    (d / "pseudo").mkdir(parents=True)
    for p in PSEUDOS:
        shutil.copyfile(PSEUDO_DIR / p, d / "pseudo" / p)
    (d / "pw.in").write_text(pw_input(u))
    start = time.monotonic()
    with open(d / "pw.out", "w") as fh:
        subprocess.run(["pw.x", "-in", "pw.in"], cwd=d, stdout=fh, stderr=subprocess.STDOUT, check=True,
                       env={**os.environ, "OMP_NUM_THREADS": "1"})
    text = (d / "pw.out").read_text()
    if "JOB DONE" not in text or "convergence has been achieved" not in text:
        raise SystemExit(f"{name}: pw.x did not finish")
    return {"name": name, "seconds": round(time.monotonic() - start, 1), **analyse(d)}


def analyse(d: Path) -> dict:
    root = ET.parse(d / "out" / "nio.save" / "data-file-schema.xml").getroot()
    kpoints = root.findall("output/band_structure/ks_energies")
    # Both spin channels are stored per k point, eigenvalues in hartree; a state is occupied when its occupation
    # (0..1; the Gaussian smearing is far narrower than the gap) exceeds one half.
    ev = np.array([float(x) * HARTREE_EV for ks in kpoints for x in ks.find("eigenvalues").text.split()])
    occ = np.array([float(x) for ks in kpoints for x in ks.find("occupations").text.split()])
    vbm, cbm = float(ev[occ > 0.5].max()), float(ev[occ < 0.5].min())
    # Hubbard U as pw.x applied it: the output section of the data file, in rydberg (absent without DFT+U).
    hubbard = root.find("output/dft/dftU")
    us = [float(h.text) * RY_EV for h in hubbard.findall("Hubbard_U")] if hubbard is not None else []
    u_applied = max(us) if us else 0.0
    text = (d / "pw.out").read_text()
    block = text[text.rindex("Magnetic moment per site"):]
    moments = [float(m) for m in re.findall(r"atom:\s+\d+\s+charge:\s+\S+\s+magn:\s+(\S+)", block)[:4]]
    return {"nk": len(kpoints), "vbm": vbm, "cbm": cbm, "gap": cbm - vbm, "U": round(u_applied, 6),
            "ni_moment": float(np.mean(np.abs(moments[:2]))), "moments": moments}


def main(analyse_only: bool) -> None:
    if analyse_only:
        results = {name: {"seconds": 0.0, **analyse(OUT / "runs" / name)} for name in RUNS}
    else:
        with ThreadPoolExecutor(min(2, os.cpu_count() or 1)) as pool:
            futures = {name: pool.submit(run, name, u) for name, u in RUNS.items()}
            results = {name: f.result() for name, f in futures.items()}
    (OUT / "workspace").mkdir(exist_ok=True)
    for name in RUNS:
        shutil.copyfile(OUT / "runs" / name / "pw.out", OUT / "workspace" / f"nio_{name}.out")
    values: dict[str, object] = {}
    for name, r in results.items():
        print(f"nio_{name}.out: U applied {r['U']:.3f} eV, VBM {r['vbm']:.4f}, CBM {r['cbm']:.4f}, "
              f"gap {r['gap']:.4f} eV, Ni moment {r['ni_moment']:.4f} muB, site moments {r['moments']} "
              f"({r['nk']} k points, {r['seconds']} s)")
        values[f"U_applied_{name}"] = r["U"]
        values[f"gap_{name}"] = round(r["gap"], 4)
        values[f"ni_moment_{name}"] = round(r["ni_moment"], 4)
    with_u = [r for r in results.values() if r["U"] > 0]
    slope = float(np.polyfit([r["U"] for r in with_u], [r["gap"] for r in with_u], 1)[0])
    values["dgap_dU"] = round(slope, 5)
    print(f"d gap / dU, least squares over the {len(with_u)} runs with U > 0: {slope:.5f}")
    (OUT / "values.json").write_text(json.dumps(values, indent=1) + "\n")


if __name__ == "__main__":
    PSEUDO_DIR = Path(sys.argv[1]).resolve()
    OUT = Path(sys.argv[2]).resolve()
    OUT.mkdir(parents=True, exist_ok=True)
    main("--analyse-only" in sys.argv[3:])
