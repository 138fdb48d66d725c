#!/usr/bin/env bash
# Oracle for si-dfpt-thermodynamics: matdyn.x on the staged force constants (asr = 'crystal') over a
# Gamma-centred 16x16x16 mesh of the Brillouin zone, every mode weighted equally (3 modes per atom); the
# zero-point energy, F and S at 300 K, and the temperature where F vanishes, per atom. About a second of CPU.
set -euo pipefail
export OMP_NUM_THREADS=1
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/thermo.py" si.fc --n 16 \
    > answer.json
cat answer.json
