"""Oracle for fe-moment: run pw.x for ferromagnetic and non-magnetic bcc Fe with the prompt's settings.

Each run gets its own folder. The moment is the total magnetization of the one-atom cell (the spin moment per
atom); the site moment pw.x prints for its integration sphere is a different quantity. The energy difference is
converted from Ry to eV and kept per atom (one atom per cell).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

RY_EV = 13.605693123

TEMPLATE = """&CONTROL
  calculation = 'scf'
  prefix = 'fe_{tag}'
  outdir = './tmp'
  pseudo_dir = '../pseudo'
/
&SYSTEM
  ibrav = 3
  A = 2.866
  nat = 1
  ntyp = 1
  ecutwfc = 35
  ecutrho = 280
  occupations = 'smearing'
  smearing = 'marzari-vanderbilt'
  degauss = 0.02
  {spin}
/
&ELECTRONS
  conv_thr = 1.0d-9
  mixing_beta = 0.4
/
ATOMIC_SPECIES
  Fe  55.845  Fe.pbe-nd-rrkjus.UPF
ATOMIC_POSITIONS {{crystal}}
  Fe  0.0  0.0  0.0
K_POINTS {{automatic}}
  16 16 16 0 0 0
"""


def scf(tag: str, spin: str) -> str:
    folder = Path(tag)
    folder.mkdir(exist_ok=True)
    (folder / "pw.in").write_text(TEMPLATE.format(tag=tag, spin=spin))
    with open(folder / "pw.out", "w") as out:
        subprocess.run(["pw.x", "-in", "pw.in"], cwd=folder, stdout=out, stderr=subprocess.STDOUT, check=True,
                       env={**os.environ, "OMP_NUM_THREADS": "1"})
    text = (folder / "pw.out").read_text()
    if "convergence has been achieved" not in text:
        raise SystemExit(f"{tag}: SCF did not converge")
    return text


def energy(text: str) -> float:
    return float(re.findall(r"^!\s+total energy\s+=\s+(\S+)\s+Ry", text, re.M)[-1])


fm = scf("fm", "nspin = 2\n  starting_magnetization(1) = 0.4")
nm = scf("nm", "nspin = 1")
moment = float(re.findall(r"total magnetization\s+=\s+(\S+)\s+Bohr mag/cell", fm)[-1])
answer = {"moment_muB_per_atom": moment, "dE_FM_NM_eV_per_atom": (energy(fm) - energy(nm)) * RY_EV}
Path("answer.json").write_text(json.dumps(answer, indent=1) + "\n")
print(json.dumps(answer))
