"""Reference values of fept-moments (QE 6.7 pw.x): one spin-orbit SCF run of L1_0 FePt, magnetisation along c.

Usage: python3 moments.py PSEUDO_DIR OUTDIR

L1_0 FePt in its 2-atom primitive tetragonal cell at the experimental lattice constants (a = 3.853 A, c = 3.713 A
of the face-centred tetragonal cell; a_t = a / sqrt 2, ibrav 6), Fe at the origin, Pt at the body centre. PBE with
the fully relativistic ultrasoft Fe.rel-pbe-spn-rrkjus_psl.0.2.1.UPF (3s3p semicore) and Pt.rel-pbe-n-rrkjus.UPF
of Debian's quantum-espresso-data; noncollinear spinors with spin-orbit coupling, moments started along z
(angle1 = 0), ecutwfc 45 Ry, ecutrho 450 Ry, Marzari-Vanderbilt smearing 0.007 Ry, unshifted 8x8x6 mesh,
conv_thr 1e-9 Ry. The same input on 12x12x9 and 16x16x12 is the m || z half of the study's anisotropy runs.
Reference values: the z component of the last total magnetization, and the magnitudes of the Fe and Pt moments
in the last per-atom blocks. Writes OUTDIR/values.json.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

BOHR_A = 0.529177210903
A_T, C = 3.853 / 2**0.5, 3.713
PSEUDOS = {"Fe": "Fe.rel-pbe-spn-rrkjus_psl.0.2.1.UPF", "Pt": "Pt.rel-pbe-n-rrkjus.UPF"}


def pw_input(n: int) -> str:
    """The spin-orbit SCF input along z on an unshifted n x n x 3n/4 mesh."""
    return f"""&control
  calculation = 'scf', prefix = 'fept', outdir = './out', pseudo_dir = './pseudo'
/
&system
  ibrav = 6, celldm(1) = {A_T / BOHR_A:.6f}, celldm(3) = {C / A_T:.6f}, nat = 2, ntyp = 2,
  ecutwfc = 45.0, ecutrho = 450.0,
  occupations = 'smearing', smearing = 'mv', degauss = 0.007,
  noncolin = .true., lspinorb = .true.,
  starting_magnetization(1) = 0.6, starting_magnetization(2) = 0.1,
  angle1(1) = 0.0, angle2(1) = 0.0, angle1(2) = 0.0, angle2(2) = 0.0
/
&electrons
  conv_thr = 1.0d-9, mixing_beta = 0.3
/
ATOMIC_SPECIES
Fe 55.845 {PSEUDOS["Fe"]}
Pt 195.084 {PSEUDOS["Pt"]}
ATOMIC_POSITIONS crystal
Fe 0.0 0.0 0.0
Pt 0.5 0.5 0.5
K_POINTS automatic
{n} {n} {3 * n // 4} 0 0 0
"""


def main(pseudo_dir: Path, out: Path) -> None:
    """Run the 8x8x6 SCF and write the reference values."""
    d = out / "runs" / "fept_mz_k8"
    if d.exists():
        shutil.rmtree(d)
    (d / "pseudo").mkdir(parents=True)
    for p in PSEUDOS.values():
        shutil.copyfile(pseudo_dir / p, d / "pseudo" / p)
    (d / "pw.in").write_text(pw_input(8))
    start = time.monotonic()
    with open(d / "pw.out", "w") as fh:
        subprocess.run(["pw.x", "-in", "pw.in"], cwd=d, stdout=fh, stderr=subprocess.STDOUT, check=True,
                       env={**os.environ, "OMP_NUM_THREADS": "1"})
    text = (d / "pw.out").read_text()
    if "JOB DONE" not in text or "convergence has been achieved" not in text:
        raise SystemExit("fept_mz_k8: pw.x did not converge")
    shutil.rmtree(d / "out", ignore_errors=True)
    shutil.rmtree(d / "pseudo", ignore_errors=True)
    total = [float(x) for x in re.findall(r"total magnetization\s+=\s+(\S+)\s+(\S+)\s+(\S+)\s+Bohr", text)[-1]]
    last = text[text.rindex("iteration #"):]
    sites = [[float(x) for x in m] for m in re.findall(r"magnetization :\s+(\S+)\s+(\S+)\s+(\S+)", last)]
    values = {"total_moment_muB": total[2], "fe_moment_muB": round(math.hypot(*sites[0]), 4),
              "pt_moment_muB": round(math.hypot(*sites[1]), 4)}
    absolute = re.findall(r"absolute magnetization\s+=\s+(\S+)", text)[-1]
    print(f"{time.monotonic() - start:.0f} s; absolute magnetization {absolute}")
    print(json.dumps(values))
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")


if __name__ == "__main__":
    OUT = Path(sys.argv[2]).resolve()
    OUT.mkdir(parents=True, exist_ok=True)
    main(Path(sys.argv[1]).resolve(), OUT)
