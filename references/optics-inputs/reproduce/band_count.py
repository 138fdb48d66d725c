"""How many bands a complete dielectric function of Si up to 15 eV needs, from a real band structure (QE 6.7).

Usage: python3 band_count.py PSEUDO_FILE OUTDIR

VASP is not available here, so the bound on NBANDS that graders/optics-inputs.yaml applies comes from the PBE band
structure of the same crystal computed with pw.x: diamond Si at a = 5.431 A, norm-conserving Si.pbe-rrkj.UPF,
ecutwfc 24 Ry, SCF on an unshifted 8x8x8 mesh, then a non-self-consistent run with 40 bands on the same mesh
(29 irreducible points). Every interband transition with energy below E_max is included when the highest band kept
lies at least E_max above the valence-band maximum at every k point; the script prints, for each band N, its
lowest energy above the VBM over the mesh, and the smallest N for E_max = 15 eV.

Cross-check of what too few bands do to the spectrum: epsilon.x (independent-particle epsilon_2, no local fields)
on a 6x6x6 mesh without symmetry, with 8 bands (VASP's default for this cell), 16 and 24; the script prints the
lowest photon energy at which epsilon_2 differs by more than 1% from the 24-band result (where epsilon_2 exceeds 1%
of its maximum). Writes OUTDIR/values.json; one folder per run under OUTDIR/runs/.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

E_MAX = 15.0
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


def pw_text(calc: str, nbnd: int | None, k: int, nosym: bool) -> str:
    extra = f", nbnd = {nbnd}" if nbnd else ""
    extra += ", nosym = .true., noinv = .true." if nosym else ""
    verb = ", verbosity = 'high'" if calc == "nscf" else ""
    return f"""&control
  calculation = '{calc}', prefix = 'si', outdir = './out', pseudo_dir = './pseudo'{verb}
/
&system
  ibrav = 2, celldm(1) = 10.2631, nat = 2, ntyp = 1, ecutwfc = 24.0{extra}
/
&electrons
  conv_thr = 1.0d-10, diago_full_acc = .true.
/
ATOMIC_SPECIES
Si 28.0855 {PSEUDO.name}
ATOMIC_POSITIONS crystal
Si 0.00 0.00 0.00
Si 0.25 0.25 0.25
K_POINTS automatic
{k} {k} {k} 0 0 0
"""


def pw(folder: Path, name: str, text: str) -> str:
    (folder / f"{name}.in").write_text(text)
    with open(folder / f"{name}.out", "w") as fh:
        subprocess.run(["pw.x", "-in", f"{name}.in"], cwd=folder, stdout=fh, stderr=subprocess.STDOUT, check=True,
                       env=ENV)
    return (folder / f"{name}.out").read_text()


def fresh(name: str) -> Path:
    d = OUT / "runs" / name
    if d.exists():
        shutil.rmtree(d)
    (d / "pseudo").mkdir(parents=True)
    shutil.copyfile(PSEUDO, d / "pseudo" / PSEUDO.name)
    return d


def band_minima() -> list[float]:
    d = fresh("bands")
    pw(d, "scf", pw_text("scf", None, 8, False))
    text = pw(d, "nscf", pw_text("nscf", 40, 8, False))
    final = text[text.index("End of band structure calculation"):]
    blocks = re.findall(r"bands \(ev\):\s*\n(.*?)(?=\n\s*\n)", final, re.S)
    eig = np.array([[float(x) for x in re.findall(r"-?\d+\.\d+", b)] for b in blocks])
    vbm = eig[:, 3].max()  # 8 electrons: 4 occupied bands
    return [float(x) for x in eig.min(axis=0) - vbm]


def epsilon(nbnd: int) -> tuple[np.ndarray, np.ndarray]:
    d = fresh(f"eps_nb{nbnd}")
    pw(d, "scf", pw_text("scf", None, 6, False))
    pw(d, "nscf", pw_text("nscf", nbnd, 6, True))
    (d / "eps.in").write_text("&inputpp\n  outdir = './out', prefix = 'si', calculation = 'eps'\n/\n"
                              "&energy_grid\n  smeartype = 'gauss', intersmear = 0.1, wmin = 0.0, wmax = 30.0, nw = 1500\n/\n")
    with open(d / "eps.out", "w") as fh:
        subprocess.run(["epsilon.x", "-in", "eps.in"], cwd=d, stdout=fh, stderr=subprocess.STDOUT, check=True, env=ENV)
    data = np.loadtxt(d / "epsi_si.dat", comments="#")
    return data[:, 0], data[:, 1:4].mean(axis=1)


def main() -> None:
    with ThreadPoolExecutor(min(2, os.cpu_count() or 1)) as pool:
        f_bands = pool.submit(band_minima)
        f_eps = {nb: pool.submit(epsilon, nb) for nb in (8, 16, 24)}
        minima = f_bands.result()
        eps = {nb: f.result() for nb, f in f_eps.items()}
    print("band N: lowest energy above the VBM over the 8x8x8 mesh (eV)")
    print("  " + ", ".join(f"{n + 1}: {m:.2f}" for n, m in enumerate(minima) if n >= 4))
    needed = next(n + 1 for n, m in enumerate(minima) if m >= E_MAX)
    print(f"smallest NBANDS with every transition below {E_MAX} eV: {needed}")
    w, ref = eps[24]
    first_bad = {}
    for nb in (8, 16):
        rel = np.abs(eps[nb][1] - ref) / np.maximum(ref, 1e-12)
        bad = w[(rel > 0.01) & (ref > 0.01 * ref.max())]
        first_bad[nb] = float(bad.min()) if len(bad) else None
        print(f"epsilon_2 with {nb} bands: first photon energy >1% off the 24-band result: {first_bad[nb]}")
    values = {"nbands_min": needed, "band_min_above_vbm_eV": [round(m, 2) for m in minima[:24]],
              "eps2_first_error_8_bands_eV": first_bad[8]}
    (OUT / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps({"nbands_min": needed}))


if __name__ == "__main__":
    PSEUDO = Path(sys.argv[1]).resolve()
    OUT = Path(sys.argv[2]).resolve()
    OUT.mkdir(parents=True, exist_ok=True)
    main()
