"""Oracle for fept-moments: one noncollinear spin-orbit SCF run of L1_0 FePt with the magnetisation along c.

Written independently of the reference reproduction: the cell through A and C in angstrom, its own prefix and
mixing; the moments are read from the last per-atom blocks and the last total magnetization of the output.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
from pathlib import Path

A_T, C = 3.853 / math.sqrt(2), 3.713
PW_IN = f"""&CONTROL
  calculation = 'scf'
  prefix = 'fept_c'
  outdir = './tmp'
  pseudo_dir = '/usr/share/espresso/pseudo'
/
&SYSTEM
  ibrav = 6
  A = {A_T:.6f}
  C = {C:.6f}
  nat = 2
  ntyp = 2
  ecutwfc = 45
  ecutrho = 450
  occupations = 'smearing'
  smearing = 'marzari-vanderbilt'
  degauss = 0.007
  noncolin = .true.
  lspinorb = .true.
  starting_magnetization(1) = 0.6
  starting_magnetization(2) = 0.1
  angle1(1) = 0.0
  angle1(2) = 0.0
/
&ELECTRONS
  conv_thr = 1.0d-10
  mixing_beta = 0.4
/
ATOMIC_SPECIES
  Fe  55.845  Fe.rel-pbe-spn-rrkjus_psl.0.2.1.UPF
  Pt  195.084 Pt.rel-pbe-n-rrkjus.UPF
ATOMIC_POSITIONS {{crystal}}
  Fe  0.0  0.0  0.0
  Pt  0.5  0.5  0.5
K_POINTS {{automatic}}
  8 8 6 0 0 0
"""

Path("pw.in").write_text(PW_IN)
with open("pw.out", "w") as out:
    subprocess.run(["pw.x", "-in", "pw.in"], stdout=out, stderr=subprocess.STDOUT, check=True,
                   env={**os.environ, "OMP_NUM_THREADS": "1"})
text = Path("pw.out").read_text()
if "convergence has been achieved" not in text:
    raise SystemExit("SCF did not converge")
total = [float(x) for x in re.findall(r"total magnetization\s+=\s+(\S+)\s+(\S+)\s+(\S+)\s+Bohr mag/cell", text)[-1]]
last = text[text.rindex("iteration #"):]
sites = [[float(x) for x in m] for m in re.findall(r"magnetization :\s+(\S+)\s+(\S+)\s+(\S+)", last)]
answer = {"total_moment_muB": total[2], "fe_moment_muB": round(math.hypot(*sites[0]), 5),
          "pt_moment_muB": round(math.hypot(*sites[1]), 5)}
Path("answer.json").write_text(json.dumps(answer, indent=1) + "\n")
print(json.dumps(answer))
