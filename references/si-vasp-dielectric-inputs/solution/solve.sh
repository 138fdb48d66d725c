#!/usr/bin/env bash
# Oracle for si-vasp-dielectric-inputs: VASP inputs for eps_inf and Born charges of diamond Si by DFPT
# (LEPSILON) in one static run with clamped ions, written the way an expert would and deliberately in a form
# different from the reference input set (tetrahedron occupations, structure built with pymatgen from the
# conventional cell and reduced to the primitive one, a 14x14x14 mesh, ENCUT 320 eV).
set -euo pipefail
python3 - <<'PY'
from pymatgen.core import Lattice, Structure
from pymatgen.io.vasp import Poscar

a = 5.4755  # A, the PBE equilibrium of the study (given in the prompt)
cube = Structure.from_spacegroup("Fd-3m", Lattice.cubic(a), ["Si"], [[0, 0, 0]])
primitive = cube.get_primitive_structure()
assert len(cube) == 8 and len(primitive) == 2
Poscar(primitive, comment="diamond Si, primitive cell, a = 5.4755 A").write_file("POSCAR")
PY
cat > INCAR <<'IN'
SYSTEM = Si eps_inf and Born effective charges
# one static DFPT run with the ions clamped: no ionic steps, no force constants
IBRION = -1
NSW = 0
LEPSILON = .TRUE.
# insulator: tetrahedron method with Bloechl corrections
ISMEAR = -5
# accuracy of the ground state and of the response
PREC = Accurate
ENCUT = 320
EDIFF = 1E-8
LREAL = .FALSE.
LWAVE = .FALSE.
LCHARG = .FALSE.
IN
printf 'Gamma-centred mesh for eps_inf\n0\nGamma\n14 14 14\n0 0 0\n' > KPOINTS
printf 'Si\n' > POTCAR.spec
head -n 20 INCAR KPOINTS POSCAR POTCAR.spec
