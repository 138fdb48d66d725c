#!/usr/bin/env bash
# Oracle for si-eos: seven pw.x SCF runs of diamond Si (ecutwfc 30 Ry, Gamma-centred 8x8x8 mesh), each in its own
# folder, lattice constants +-4% around 5.47 A; third-order Birch-Murnaghan fit per atom. Writes answer.json and
# ev.csv here. About 10 s of CPU on one core.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/eos.py" \
    --pseudo pseudo/Si.pbe-rrkj.UPF --ecut 30 --k 8 --center 5.47 --span 0.04 --points 7
cat answer.json
