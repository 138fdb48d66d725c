#!/usr/bin/env bash
# Oracle for sige-vasp-phonon-inputs: phonopy's displaced 2x2x2 supercells of the fcc primitive cells of Si and Ge
# at the given PBE lattice constants (0.02 A, written by phonopy's VASP interface) and the INCAR/KPOINTS/
# POTCAR.spec of the two static force calculations, in Si/ and Ge/. Deliberately different in form from the
# reference set (KSPACING-free explicit Gamma meshes written as Monkhorst-Pack with a shift, other tag values).
set -euo pipefail
python3 - <<'PY'
from pathlib import Path

import numpy as np
from phonopy import Phonopy
from phonopy.interface.vasp import write_vasp
from phonopy.structure.atoms import PhonopyAtoms

prim = np.array([[0.0, 0.5, 0.5], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0]])
for el, a, k, smear in (("Si", 5.4754, 4, "ISMEAR = 0\nSIGMA = 0.02"), ("Ge", 5.7757, 8, "ISMEAR = 0\nSIGMA = 0.05")):
    unit = PhonopyAtoms(symbols=[el] * 2, cell=prim * a, scaled_positions=[[0, 0, 0], [0.25, 0.25, 0.25]])
    ph = Phonopy(unit, supercell_matrix=np.eye(3, dtype=int) * 2)
    ph.generate_displacements(distance=0.02)
    d = Path(el)
    d.mkdir(exist_ok=True)
    write_vasp(str(d / "POSCAR"), ph.supercells_with_displacements[0], direct=True)
    encut = {"Si": 400, "Ge": 350}[el]
    (d / "INCAR").write_text(
        f"# {el}: forces of phonopy's displaced supercell (0.02 A), static\n"
        f"PREC = Accurate\nENCUT = {encut}\nEDIFF = 1E-9\nNELM = 200\nIBRION = -1\n{smear}\n"
        "LREAL = .FALSE.\nADDGRID = .TRUE.\nLWAVE = .FALSE.\nLCHARG = .FALSE.\n"
    )
    # an odd-looking but equivalent mesh: Monkhorst-Pack with a half-step shift back onto Gamma
    (d / "KPOINTS").write_text(f"mesh through Gamma\n0\nMonkhorst-Pack\n{k} {k} {k}\n0.5 0.5 0.5\n")
    (d / "POTCAR.spec").write_text(f"{el}\n")
PY
