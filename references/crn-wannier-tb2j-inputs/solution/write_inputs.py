"""Oracle for crn-wannier-tb2j-inputs: a static VASP 6 run that writes Wannier90 files of both spin channels of
AFM-[110]2 CrN in the staged relaxed cell, and the TB2J call that reads what VASP and Wannier90 then write.

The moments follow POSCAR's Cr order (up, up, down, down, as the prompt states); the band count covers the 16
semicore/N 2s bands, the 32 N 2p-Cr 3d bands and a window above them; symmetry is off for the full grid.
"""

from __future__ import annotations

import json
from pathlib import Path

lines = Path("POSCAR").read_text().splitlines()
species, counts = lines[5].split(), [int(x) for x in lines[6].split()]
assert species == ["Cr", "N"], species
magmom = ["3.0", "3.0", "-3.0", "-3.0"] + ["0.0"] * counts[1]
incar = {
    "SYSTEM": "CrN AFM-[110]2 Wannier90 interface",
    "PREC": "Accurate", "ENCUT": 550, "EDIFF": "1E-8", "LREAL": ".FALSE.", "ALGO": "Normal",
    "ISMEAR": 0, "SIGMA": 0.02,
    "ISPIN": 2, "MAGMOM": " ".join(magmom),
    "LDAU": ".TRUE.", "LDAUTYPE": 2, "LDAUL": "2 -1", "LDAUU": "3.0 0.0", "LDAUJ": "0.0 0.0",
    "LMAXMIX": 4, "LASPH": ".TRUE.",
    "NSW": 0, "IBRION": -1, "ISYM": -1, "NBANDS": 80,
    "LWANNIER90": ".TRUE.", "NUM_WANN": 32, "LWRITE_MMN_AMN": ".TRUE.",
}
Path("INCAR").write_text("".join(f"{k} = {v}\n" for k, v in incar.items()))
Path("KPOINTS").write_text("Wannier grid\n0\nGamma\n4 8 6\n0 0 0\n")
Path("POTCAR.spec").write_text("Cr_pv\nN\n")
args = {"posfile": "POSCAR", "prefix_up": "wannier90.1", "prefix_down": "wannier90.2", "elements": ["Cr"],
        "spinor": False, "kmesh": [4, 8, 6], "emin": -12.0, "emax": 0.0}
Path("tb2j.json").write_text(json.dumps(args, indent=1) + "\n")
print("wrote INCAR, KPOINTS, POTCAR.spec, tb2j.json (POSCAR kept as staged)")
