#!/usr/bin/env bash
# Oracle for si-fd-phonons: phonopy (Python API) finite displacements in the 8-atom cube of diamond Si at the
# given a0 = 5.4755 A, pw.x forces (ecutwfc 30 Ry, Gamma-centred 4x4x4 mesh), frequencies at Gamma and X and
# Cv(300 K) per mole of atoms. One pw.x run, about 15 s of CPU. SI_A0 overrides the lattice constant (the
# workflow passes its own fitted value).
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/fd_phonons.py" \
    --a0 "${SI_A0:-5.4755}" --pseudo pseudo/Si.pbe-rrkj.UPF --ecut 30 --k 4 --distance 0.01 --mesh 20
cat answer.json
