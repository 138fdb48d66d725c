"""Oracle for soc-anisotropy-inputs: force-theorem MAE inputs for the staged L1_0 FePt cell.

Three INCARs from one dictionary of shared settings (so cutoff, smearing and mesh are identical), a dense
Gamma-centred mesh from a target spacing, MAGMOM written per ion from the POSCAR's species line.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

lines = Path("POSCAR").read_text().splitlines()
scale = float(lines[1])
cell = np.array([[float(x) for x in lines[i].split()[:3]] for i in (2, 3, 4)]) * scale
species = lines[5].split()
counts = [int(n) for n in lines[6].split()]
ions = [sp for sp, n in zip(species, counts) for _ in range(n)]
moment = {"Fe": 3.0, "Pt": 0.3}

shared = {"ENCUT": 450, "PREC": "Accurate", "EDIFF": "1E-8", "ISMEAR": 1, "SIGMA": 0.05, "LMAXMIX": 4,
          "LASPH": ".TRUE.", "LREAL": ".FALSE.", "NELM": 120}


def write(name: str, extra: dict) -> None:
    Path(name).write_text("".join(f"{k} = {v}\n" for k, v in {**shared, **extra}.items()))


write("INCAR_collinear", {"ISPIN": 2, "MAGMOM": " ".join(str(moment[s]) for s in ions), "LCHARG": ".TRUE.",
                          "LWAVE": ".FALSE."})
for label, axis in (("x", "1 0 0"), ("z", "0 0 1")):
    write(f"INCAR_{label}", {
        "ICHARG": 11, "LSORBIT": ".TRUE.", "LNONCOLLINEAR": ".TRUE.", "ISYM": 0, "GGA_COMPAT": ".FALSE.",
        "SAXIS": axis, "MAGMOM": "  ".join(f"0 0 {moment[s]}" for s in ions), "LORBMOM": ".TRUE.",
        "LCHARG": ".FALSE.", "LWAVE": ".FALSE.",
    })

recip = np.linalg.norm(np.linalg.inv(cell).T, axis=1) * 2 * math.pi
mesh = [math.ceil(b / 0.1) for b in recip]
Path("KPOINTS").write_text(f"dense mesh for the MAE\n0\nGamma\n{' '.join(map(str, mesh))}\n0 0 0\n")
Path("POTCAR.spec").write_text("\n".join({"Fe": "Fe_pv", "Pt": "Pt"}[s] for s in species) + "\n")
print("mesh", mesh)
