"""Reference values of fe-moment: spin moment and magnetic energy of bcc Fe from pw.x (QE 6.7).

Usage: python3 fe_moment.py PSEUDO_FILE OUTDIR

The calculation the prompt defines: bcc Fe at a = 2.866 A in the one-atom primitive cell (ibrav 3), PBE with the
staged ultrasoft Fe.pbe-nd-rrkjus.UPF, ecutwfc 35 Ry, ecutrho 280 Ry, Marzari-Vanderbilt smearing 0.02 Ry, an
unshifted 16x16x16 Monkhorst-Pack mesh; ferromagnetic (nspin 2, starting_magnetization 0.5) and non-magnetic
(nspin 1). conv_thr 1e-10 Ry. The moment is the total magnetization of the cell (one atom), the energy difference
the difference of the two total energies ('!' lines), converted with 1 Ry = 13.605693123 eV.

Cross-checks, reported but not used as reference: the same pair at 24x24x24 (k convergence), and the quantities a
careless reading would report instead (the site moment in pw.x's integration sphere, the absolute magnetization).
Writes OUTDIR/values.json; one directory per run under OUTDIR/runs/.
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

RY_EV = 13.605693123
CELLDM = 5.41596  # bohr, a = 2.866 A


def pw_input(spin: bool, k: int) -> str:
    mag = "nspin = 2, starting_magnetization(1) = 0.5" if spin else "nspin = 1"
    return f"""&control
  calculation = 'scf', prefix = 'fe', outdir = './out', pseudo_dir = './pseudo'
/
&system
  ibrav = 3, celldm(1) = {CELLDM}, nat = 1, ntyp = 1, ecutwfc = 35.0, ecutrho = 280.0,
  occupations = 'smearing', smearing = 'mv', degauss = 0.02, {mag}
/
&electrons
  conv_thr = 1.0d-10, mixing_beta = 0.3
/
ATOMIC_SPECIES
Fe 55.845 {PSEUDO.name}
ATOMIC_POSITIONS crystal
Fe 0.0 0.0 0.0
K_POINTS automatic
{k} {k} {k} 0 0 0
"""


def run(name: str, spin: bool, k: int) -> dict:
    d = OUT / "runs" / name
    if d.exists():
        shutil.rmtree(d)
    (d / "pseudo").mkdir(parents=True)
    shutil.copyfile(PSEUDO, d / "pseudo" / PSEUDO.name)
    (d / "pw.in").write_text(pw_input(spin, k))
    with open(d / "pw.out", "w") as fh:
        subprocess.run(["pw.x", "-in", "pw.in"], cwd=d, stdout=fh, stderr=subprocess.STDOUT, check=True,
                       env={**os.environ, "OMP_NUM_THREADS": "1"})
    text = (d / "pw.out").read_text()
    if "convergence has been achieved" not in text:
        raise SystemExit(f"{name}: not converged")
    out = {"E": float(re.findall(r"^!\s+total energy\s+=\s+(\S+) Ry", text, re.M)[-1])}
    if spin:
        out["m_total"] = float(re.findall(r"total magnetization\s+=\s+(\S+) Bohr", text)[-1])
        out["m_abs"] = float(re.findall(r"absolute magnetization\s+=\s+(\S+) Bohr", text)[-1])
        out["m_site"] = float(re.findall(r"atom:\s+1\s+charge:\s+\S+\s+magn:\s+(\S+)", text)[-1])
    shutil.rmtree(d / "out", ignore_errors=True)
    return out


def main() -> None:
    with ThreadPoolExecutor(min(2, os.cpu_count() or 1)) as pool:
        jobs = {name: pool.submit(run, name, spin, k) for name, spin, k in
                (("fm", True, 16), ("nm", False, 16), ("fm_k24", True, 24), ("nm_k24", False, 24))}
        r = {name: f.result() for name, f in jobs.items()}
    de = (r["fm"]["E"] - r["nm"]["E"]) * RY_EV
    de24 = (r["fm_k24"]["E"] - r["nm_k24"]["E"]) * RY_EV
    print(f"16x16x16: E(FM) = {r['fm']['E']:.8f} Ry, E(NM) = {r['nm']['E']:.8f} Ry, dE = {de:.5f} eV/atom; "
          f"total magnetization {r['fm']['m_total']:.2f}, absolute {r['fm']['m_abs']:.2f}, "
          f"site (sphere) {r['fm']['m_site']:.4f} muB")
    print(f"24x24x24: dE = {de24:.5f} eV/atom, total magnetization {r['fm_k24']['m_total']:.2f} muB")
    values = {"moment_muB_per_atom": r["fm"]["m_total"], "dE_FM_NM_eV_per_atom": round(de, 5)}
    (OUT / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps(values))


if __name__ == "__main__":
    PSEUDO = Path(sys.argv[1]).resolve()
    OUT = Path(sys.argv[2]).resolve()
    OUT.mkdir(parents=True, exist_ok=True)
    main()
