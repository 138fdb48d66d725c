"""How many bands a dielectric function of AFM-II NiO complete up to 30 eV needs, from a real band structure.

Usage: python3 band_count.py PSEUDO_DIR OUTDIR

VASP is not available here, so the bound on NBANDS that graders/nio-vasp-optics-inputs.yaml applies comes from the
PBE+U band structure of the same crystal computed with pw.x (QE 6.7): rocksalt NiO at a = 4.17 A in the 4-atom
rhombohedral AFM-II cell (ibrav 5, cubic shape kept), ultrasoft Ni.pbe-nd-rrkjus.UPF (3d8 4s2 valence, the
electron count of VASP's plain Ni dataset) and O.pbe-rrkjus.UPF, ecutwfc 40 / ecutrho 320 Ry, Dudarev U = 6.2 eV
on Ni 3d with atomic projectors, SCF on an unshifted 6x6x6 mesh, then a non-self-consistent run with 70 bands per
spin on an unshifted 8x8x8 mesh. Every interband transition below E_max is included when the highest band kept
lies at least E_max above the valence-band maximum at every k point of either spin; the script prints, for each
band N, its lowest energy above the VBM over the mesh and both spins, and the smallest N for E_max = 30 eV (and
for 20 and 25 eV, to show how the count grows). VASP's Ni_pv dataset adds the Ni 3p shell, 3 bands per Ni and
spin far below the valence band (about 65 eV below it), so the count for Ni_pv and O is the pw.x count plus 6.
Writes OUTDIR/values.json; the runs are under OUTDIR/runs/bands/.
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

E_MAX = 30.0
NBND = 70
OCCUPIED = 16  # per spin: 32 valence electrons of Ni 3d8 4s2 and O 2s2 2p4, 16 in each spin channel of AFM-II
NI_3P_BANDS = 6  # Ni_pv: the 3p shell of two Ni, three bands each per spin
PSEUDOS = ("Ni.pbe-nd-rrkjus.UPF", "O.pbe-rrkjus.UPF")
BOHR_A = 0.52917720859
A = 4.17
U = 6.2
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


def pw_text(calc: str, k: int) -> str:
    nbnd = f"\n  nbnd = {NBND}," if calc == "nscf" else ""
    verb = ", verbosity = 'high'" if calc == "nscf" else ""
    diag = ", diago_full_acc = .true." if calc == "nscf" else ""
    return f"""&control
  calculation = '{calc}', prefix = 'nio', outdir = './out', pseudo_dir = './pseudo'{verb}
/
&system
  ibrav = 5, celldm(1) = {A / BOHR_A * 1.5**0.5:.5f}, celldm(4) = 0.8333333333, nat = 4, ntyp = 3,
  ecutwfc = 40.0, ecutrho = 320.0,{nbnd}
  occupations = 'smearing', smearing = 'gaussian', degauss = 0.005,
  nspin = 2, starting_magnetization(1) = 0.5, starting_magnetization(2) = -0.5,
  lda_plus_u = .true., Hubbard_U(1) = {U}, Hubbard_U(2) = {U},
/
&electrons
  conv_thr = 1.0d-9, mixing_beta = 0.3{diag}
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
{k} {k} {k} 0 0 0
"""


def pw(folder: Path, name: str, text: str) -> str:
    out, pin = folder / f"{name}.out", folder / f"{name}.in"
    if out.is_file() and pin.is_file() and pin.read_text() == text and "JOB DONE" in out.read_text():
        return out.read_text()  # an earlier, interrupted reproduction already ran it with these inputs
    pin.write_text(text)
    with open(folder / f"{name}.out", "w") as fh:
        subprocess.run(
            ["pw.x", "-in", f"{name}.in"], cwd=folder, stdout=fh, stderr=subprocess.STDOUT, check=True, env=ENV
        )
    out = (folder / f"{name}.out").read_text()
    if "JOB DONE" not in out:
        raise SystemExit(f"{name}: pw.x did not finish")
    return out


def eigenvalues(text: str) -> np.ndarray:
    """Eigenvalues (eV) of the final band listing, shape (spin, k, band)."""
    final = text[text.rindex("End of band structure calculation") :]
    spins = []
    for part in re.split(r"-+ SPIN (?:UP|DOWN) -+", final)[1:3]:
        blocks = re.findall(r"bands \(ev\):\s*\n(.*?)(?=\n\s*\n\s*occupation numbers)", part, re.S)
        spins.append([[float(x) for x in re.findall(r"-?\d+\.\d+", b)] for b in blocks])
    eig = np.array(spins)
    if eig.shape[0] != 2 or eig.shape[2] != NBND:
        raise SystemExit(f"unexpected band listing {eig.shape}")
    return eig


def main() -> None:
    d = OUT / "runs" / "bands"
    (d / "pseudo").mkdir(parents=True, exist_ok=True)
    for p in PSEUDOS:
        shutil.copyfile(PSEUDO_DIR / p, d / "pseudo" / p)
    start = time.process_time()
    t0 = time.monotonic()
    scf = pw(d, "scf", pw_text("scf", 6))
    text = pw(d, "nscf", pw_text("nscf", 8))
    eig = eigenvalues(text)
    vbm = float(eig[:, :, OCCUPIED - 1].max())
    cbm = float(eig[:, :, OCCUPIED].min())
    minima = eig.min(axis=(0, 1)) - vbm
    print(f"{eig.shape[1]} k points per spin; VBM {vbm:.3f} eV, gap {cbm - vbm:.3f} eV")
    print("band N: lowest energy above the VBM over the 8x8x8 mesh and both spins (eV)")
    print("  " + ", ".join(f"{n + 1}: {m:.2f}" for n, m in enumerate(minima) if n >= OCCUPIED))
    needed = {e: next(n + 1 for n, m in enumerate(minima) if m >= e) for e in (20.0, 25.0, E_MAX)}
    for e, n in needed.items():
        print(f"smallest NBANDS with every transition below {e:g} eV: {n} (Ni, O); {n + NI_3P_BANDS} (Ni_pv, O)")
    cpu = sum(
        float(m or 0) * 60 + float(s) for m, s in re.findall(r"PWSCF\s*:\s*(?:(\d+)m)?\s*([\d.]+)s CPU", scf + text)
    )
    values = {
        "nbands_min_ni": needed[E_MAX],
        "nbands_min": needed[E_MAX] + NI_3P_BANDS,
        "nbands_min_25eV_ni": needed[25.0],
        "nbands_min_20eV_ni": needed[20.0],
        "gap_pw_eV": round(cbm - vbm, 3),
        "band_min_above_vbm_eV": [round(float(m), 2) for m in minima],
    }
    print(
        f"pw.x CPU {cpu:.1f} s; this call {time.monotonic() - t0:.1f} s wall, {time.process_time() - start:.1f} s CPU"
    )
    (OUT / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps({k: values[k] for k in ("nbands_min_ni", "nbands_min")}))


if __name__ == "__main__":
    PSEUDO_DIR, OUT = Path(sys.argv[1]), Path(sys.argv[2])
    main()
