"""Equations of state of iron in three states and two functionals with pw.x (QE 6.7): the runs staged for
fe-eos-analysis and the reference values derived from them.

Usage: python3 eos_runs.py PSEUDO_DIR OUTDIR [--analyse-only]

One atom per cell: ferromagnetic bcc (nspin 2, starting_magnetization 0.5), non-magnetic bcc (nspin 1) and
non-magnetic fcc (nspin 1), each at 11 volumes per atom, in PBE (Fe.pbe-nd-rrkjus.UPF) and in LDA (Perdew-Zunger,
Fe.pz-nd-rrkjus.UPF: the same generator and valence, 3d7 4s1 with nonlinear core correction). PBE volumes 9.4 to
12.4 A^3 per atom, LDA 8.8 to 11.8 A^3, steps of 0.3 A^3 (LDA binds more strongly). ecutwfc 45 Ry, ecutrho 360 Ry,
Marzari-Vanderbilt smearing 0.02 Ry, unshifted 24x24x24 Monkhorst-Pack mesh in every cell, conv_thr 1e-9 Ry.

Each run gets its own folder under OUTDIR/runs/; its output is copied to OUTDIR/workspace/fe_<xc>_<phase>_<nn>.out.
Reference values: a third-order Birch-Murnaghan fit of E(V) per atom for each of the six curves (energies from
the '!' lines, volumes from 'unit-cell volume'); from it the bcc lattice constant a0 = (2 V0)^(1/3) and bulk
modulus of the ferromagnet, its moment at V0 (the total magnetization per atom, interpolated linearly in V
between the two bracketing runs), and the energy differences E0(fcc NM) - E0(bcc FM) and E0(bcc NM) - E0(bcc FM)
between the fitted minima, in meV per atom. Writes OUTDIR/values.json.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

RY_EV = 13.605693123
BOHR_A = 0.529177210903
EV_A3_GPA = 160.21766208
PSEUDO = {"pbe": "Fe.pbe-nd-rrkjus.UPF", "lda": "Fe.pz-nd-rrkjus.UPF"}
VOLUMES = {
    "pbe": [round(9.4 + 0.3 * i, 2) for i in range(11)],
    "lda": [round(8.8 + 0.3 * i, 2) for i in range(11)],
}
PHASES = ("bcc_fm", "bcc_nm", "fcc_nm")


def pw_input(xc: str, phase: str, volume: float) -> str:
    if phase.startswith("bcc"):
        ibrav, a = 3, (2 * volume) ** (1 / 3)
    else:
        ibrav, a = 2, (4 * volume) ** (1 / 3)
    spin = "nspin = 2, starting_magnetization(1) = 0.5" if phase.endswith("fm") else "nspin = 1"
    return f"""&control
  calculation = 'scf', prefix = 'fe', outdir = './out', pseudo_dir = './pseudo'
/
&system
  ibrav = {ibrav}, celldm(1) = {a / BOHR_A:.6f}, nat = 1, ntyp = 1,
  ecutwfc = 45.0, ecutrho = 360.0,
  occupations = 'smearing', smearing = 'mv', degauss = 0.02,
  {spin}
/
&electrons
  conv_thr = 1.0d-9, mixing_beta = 0.3
/
ATOMIC_SPECIES
Fe 55.845 {PSEUDO[xc]}
ATOMIC_POSITIONS crystal
Fe 0.0 0.0 0.0
K_POINTS automatic
24 24 24 0 0 0
"""


def name(xc: str, phase: str, i: int) -> str:
    return f"fe_{xc}_{phase}_{i + 1:02d}"


def _finished(d: Path, inp: str) -> bool:
    """A run folder left by an interrupted reproduction whose pw.x finished: kept, not run again."""
    out, pin = d / "pw.out", d / "pw.in"
    if not (out.is_file() and pin.is_file() and pin.read_text() == inp):
        return False
    text = out.read_text()
    return "JOB DONE" in text and "convergence has been achieved" in text


def run(xc: str, phase: str, i: int) -> float:
    d = OUT / "runs" / name(xc, phase, i)
    if _finished(d, pw_input(xc, phase, VOLUMES[xc][i])):
        return 0.0  # an earlier, interrupted reproduction already ran it with these inputs
    if d.exists():
        shutil.rmtree(d)
    (d / "pseudo").mkdir(parents=True)
    shutil.copyfile(PSEUDO_DIR / PSEUDO[xc], d / "pseudo" / PSEUDO[xc])
    (d / "pw.in").write_text(pw_input(xc, phase, VOLUMES[xc][i]))
    start = time.monotonic()
    with open(d / "pw.out", "w") as fh:
        subprocess.run(["pw.x", "-in", "pw.in"], cwd=d, stdout=fh, stderr=subprocess.STDOUT, check=True,
                       env={**os.environ, "OMP_NUM_THREADS": "1"})
    text = (d / "pw.out").read_text()
    if "JOB DONE" not in text or "convergence has been achieved" not in text:
        raise SystemExit(f"{name(xc, phase, i)}: pw.x did not converge")
    shutil.rmtree(d / "out", ignore_errors=True)
    shutil.rmtree(d / "pseudo", ignore_errors=True)
    return time.monotonic() - start


def parse(text: str) -> dict:
    vol = float(re.search(r"unit-cell volume\s+=\s+(\S+)\s+\(a\.u\.\)\^3", text).group(1)) * BOHR_A**3
    nat = int(re.search(r"number of atoms/cell\s+=\s+(\d+)", text).group(1))
    energy = float(re.findall(r"^!\s+total energy\s+=\s+(\S+)\s+Ry", text, re.M)[-1]) * RY_EV
    mags = re.findall(r"total magnetization\s+=\s+(\S+)\s+Bohr mag/cell", text)
    return {"V": vol / nat, "E": energy / nat, "m": float(mags[-1]) / nat if mags else 0.0}


def birch_murnaghan(v: np.ndarray, e: np.ndarray) -> dict:
    """Third-order Birch-Murnaghan: E is a cubic polynomial in x = V^(-2/3); its minimum gives V0, E0, B0, B0'."""
    x = v ** (-2 / 3)
    c = np.polyfit(x, e, 3)
    roots = np.roots(np.polyder(c))
    roots = roots[np.isreal(roots)].real
    second = np.polyval(np.polyder(c, 2), roots)
    x0 = roots[(second > 0) & (roots > x.min() * 0.8) & (roots < x.max() * 1.2)][0]
    v0 = x0 ** (-3 / 2)
    # B = V d2E/dV2; with x = V^(-2/3): dE/dV = E'(x) dx/dV, d2E/dV2 = E''(x) (dx/dV)^2 + E'(x) d2x/dV2
    dx = -2 / 3 * v0 ** (-5 / 3)
    b0 = v0 * np.polyval(np.polyder(c, 2), x0) * dx**2
    return {"V0": float(v0), "E0": float(np.polyval(c, x0)), "B0_GPa": float(b0 * EV_A3_GPA),
            "rms_meV": float(np.sqrt(np.mean((np.polyval(c, x) - e) ** 2)) * 1000)}


def analyse() -> dict:
    values: dict[str, float] = {}
    for xc in PSEUDO:
        fits, data = {}, {}
        for phase in PHASES:
            pts = sorted((parse((OUT / "workspace" / f"{name(xc, phase, i)}.out").read_text())
                          for i in range(len(VOLUMES[xc]))), key=lambda p: p["V"])
            data[phase] = pts
            fits[phase] = birch_murnaghan(np.array([p["V"] for p in pts]), np.array([p["E"] for p in pts]))
            f = fits[phase]
            print(f"{xc} {phase}: V0 {f['V0']:.4f} A^3, E0 {f['E0']:.6f} eV, B0 {f['B0_GPa']:.1f} GPa, "
                  f"fit rms {f['rms_meV']:.3f} meV; moments {[round(p['m'], 2) for p in pts]}")
        fm = fits["bcc_fm"]
        vs = np.array([p["V"] for p in data["bcc_fm"]])
        ms = np.array([p["m"] for p in data["bcc_fm"]])
        values[f"{xc}_a0_bcc_fm_angstrom"] = round((2 * fm["V0"]) ** (1 / 3), 5)
        values[f"{xc}_B0_bcc_fm_GPa"] = round(fm["B0_GPa"], 2)
        values[f"{xc}_moment_at_V0_muB"] = round(float(np.interp(fm["V0"], vs, ms)), 4)
        values[f"{xc}_dE_fcc_nm_meV"] = round((fits["fcc_nm"]["E0"] - fm["E0"]) * 1000, 2)
        values[f"{xc}_dE_bcc_nm_meV"] = round((fits["bcc_nm"]["E0"] - fm["E0"]) * 1000, 2)
        values[f"{xc}_a0_fcc_nm_angstrom"] = round((4 * fits["fcc_nm"]["V0"]) ** (1 / 3), 5)
    return values


def main(analyse_only: bool) -> None:
    (OUT / "workspace").mkdir(parents=True, exist_ok=True)
    if not analyse_only:
        for xc in PSEUDO:
            for phase in PHASES:
                for i in range(len(VOLUMES[xc])):
                    seconds = run(xc, phase, i)
                    shutil.copyfile(OUT / "runs" / name(xc, phase, i) / "pw.out",
                                    OUT / "workspace" / f"{name(xc, phase, i)}.out")
                    print(f"{name(xc, phase, i)}: V = {VOLUMES[xc][i]} A^3, {seconds:.0f} s", flush=True)
    values = analyse()
    print(json.dumps(values, indent=1))
    (OUT / "values.json").write_text(json.dumps(values, indent=1) + "\n")


if __name__ == "__main__":
    PSEUDO_DIR = Path(sys.argv[1]).resolve()
    OUT = Path(sys.argv[2]).resolve()
    OUT.mkdir(parents=True, exist_ok=True)
    main("--analyse-only" in sys.argv[3:])
