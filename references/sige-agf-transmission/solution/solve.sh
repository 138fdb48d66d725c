#!/usr/bin/env bash
# Oracle for sige-agf-transmission: mode-resolved AGF (decimated lead Green's functions, Bloch matrices, scattering
# states of the incoming Si channels, flux-normalised t and r, eta lowered until T + R = 1 within 1e-6) for the
# staged sige_device.h5 at the nine frequencies; answer.json in the current folder. About 5 s of CPU.
set -euo pipefail
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/transmission.py" sige_device.h5 > answer.json
cat answer.json
