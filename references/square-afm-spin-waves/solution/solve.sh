#!/usr/bin/env bash
# Oracle for square-afm-spin-waves: fit J1 and J2 to the staged energies (bonds counted once), then linear
# spin-wave theory of the Neel state with a converged Brillouin-zone sum. Writes answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/lswt.py" energies.csv > answer.json
cat answer.json
