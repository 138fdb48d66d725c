#!/usr/bin/env bash
# Oracle for si-eos: seven pw.x SCF runs of diamond Si (ecutwfc 30 Ry, Gamma-centred 12x12x12 mesh, within the
# 1 meV/atom target), each in its own folder, lattice constants +-4% around the experimental 5.431 A; third-order
# Birch-Murnaghan fit per atom. Writes answer.json and ev.csv here. About 20 s of CPU on one core.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/eos.py" \
    --pseudo pseudo/Si.pbe-rrkj.UPF --ecut 30 --k 12 --center 5.431 --span 0.04 --points 7
cat answer.json
