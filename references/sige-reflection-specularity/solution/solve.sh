#!/usr/bin/env bash
# Oracle for sige-reflection-specularity: the AGF scattering matrix of sige-agf-transmission (transmission.py,
# agf.py) with the Si-lead channels resolved by in-plane wave vector (velocity and the two in-plane translation
# operators diagonalised together in each degenerate set), then the specular and diffuse reflected fluxes;
# answer.json in the current folder. About 5 s of CPU.
set -euo pipefail
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/specularity.py" sige_device.h5 > answer.json
cat answer.json
