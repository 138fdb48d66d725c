"""Write the VASP inputs of the spin-orbit self-consistent run of the interface slab (standard library only).

Reads the staged POSCAR and INCAR.collinear, keeps the structure, turns each collinear starting moment m into the
vector (0, 0, m) along the surface normal (the default SAXIS is z), and writes INCAR, KPOINTS, POSCAR and
POTCAR.spec for a non-collinear PBE+U+SOC single point on a dense Gamma-centred mesh without symmetry reduction.

Usage: python3 write_inputs.py [WORKDIR]
"""

import re
import shutil
import sys
from pathlib import Path


def collinear_moments(incar: str) -> list[float]:
    """The MAGMOM of the collinear INCAR, run-length form expanded."""
    line = re.search(r"^\s*MAGMOM\s*=\s*(.+)$", incar, re.M).group(1).split("!")[0].split("#")[0]
    out = []
    for tok in line.split():
        if "*" in tok:
            n, v = tok.split("*")
            out += [float(v)] * int(n)
        else:
            out.append(float(tok))
    return out


def main() -> None:
    """Write the four files in the working folder."""
    work = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    moments = collinear_moments((work / "INCAR.collinear").read_text())
    vectors = " ".join(f"0 0 {m:g}" for m in moments)
    incar = f"""SYSTEM = RuO2(100)/SnTe(110) interface, PBE+U with spin-orbit coupling, self-consistent on a dense mesh
PREC = Accurate
ENCUT = 520
EDIFF = 1E-7
ISMEAR = 0; SIGMA = 0.02
LSORBIT = .TRUE.
GGA_COMPAT = .FALSE.
MAGMOM = {vectors}
ISYM = -1
LDAU = .TRUE.
LDAUTYPE = 2
LDAUL = -1 -1 2 -1
LDAUU = 0 0 2.0 0
LDAUJ = 0 0 0 0
LMAXMIX = 4
LASPH = .TRUE.
LDIPOL = .TRUE.
IDIPOL = 3
LORBIT = 11
NBANDS = 480
NSW = 0
LWAVE = .TRUE.
"""
    if (work / "POSCAR").resolve() != (Path.cwd() / "POSCAR").resolve():
        shutil.copyfile(work / "POSCAR", "POSCAR")
    Path("INCAR").write_text(incar)
    Path("KPOINTS").write_text("Gamma-centred dense mesh, 1 point along the normal\n0\nGamma\n  15 11 1\n  0 0 0\n")
    Path("POTCAR.spec").write_text("Sn_d\nTe\nRu_pv\nO\n")


if __name__ == "__main__":
    main()
