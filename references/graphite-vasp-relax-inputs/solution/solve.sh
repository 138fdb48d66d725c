#!/usr/bin/env bash
# Oracle for graphite-vasp-relax-inputs: write INCAR, KPOINTS, POSCAR and POTCAR.spec for a PBE-D3 relaxation of
# cell and ions of AB graphite, as an expert would, in a form that differs on purpose from the reference set
# (D3 with Becke-Johnson damping, quasi-Newton steps, an energy stopping criterion, Methfessel-Paxton smearing of
# 0.1 eV, an odd Monkhorst-Pack mesh that contains Gamma, the structure built from its Cartesian positions with
# the layers at z = 0 and c/2), so that passing shows the grader compares effective values and the crystal.
set -euo pipefail
cat > INCAR <<'INCAR'
SYSTEM = graphite PBE-D3(BJ) full relaxation
ENCUT = 550          ! > 1.3 x ENMAX(C) = 520 eV against Pulay stress
PREC = Accurate
EDIFF = 1E-7
IVDW = 12            ! DFT-D3 with Becke-Johnson damping
ISIF = 3             ! relax ions, cell shape and volume
IBRION = 1
NSW = 60
EDIFFG = 1E-5        ! energy criterion (eV)
ISMEAR = 1; SIGMA = 0.1
INCAR
cat > KPOINTS <<'KPOINTS'
Monkhorst-Pack with odd subdivisions (contains Gamma)
0
Monkhorst-Pack
13 13 5
KPOINTS
echo "C" > POTCAR.spec
python3 - <<'PY'
import numpy as np

a, c = 2.464, 6.711
cell = np.array([[a / 2, -a * np.sqrt(3) / 2, 0.0], [a / 2, a * np.sqrt(3) / 2, 0.0], [0.0, 0.0, c]])
# Layer A at z = 0 with atoms at the origin and at (2/3, 1/3); layer B at z = c/2 shifted by one C-C bond.
frac = np.array([[0, 0, 0], [2 / 3, 1 / 3, 0], [0, 0, 0.5], [1 / 3, 2 / 3, 0.5]])
cart = frac @ cell
lines = ["AB graphite (oracle)", "1.0"]
lines += [" ".join(f"{x:.10f}" for x in v) for v in cell]
lines += ["C", "4", "Cartesian"]
lines += [" ".join(f"{x:.10f}" for x in r) for r in cart]
open("POSCAR", "w").write("\n".join(lines) + "\n")
PY
cat INCAR KPOINTS POSCAR POTCAR.spec
