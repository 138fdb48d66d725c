#!/usr/bin/env bash
# Oracle for bas-harmonic-force-constants: FORCE_SETS from the two pw.x outputs (phonopy-init -f), BORN from the ph.x
# output, then phonopy's API with the 11B mass set explicitly and the non-analytic correction (Gonze-Lee) on:
# TO and LO at Gamma (LO along [100]), X and L, the acoustic-optical gap on a 24^3 mesh.
set -euo pipefail
phonopy-init -f disp-001/pw.out disp-002/pw.out > phonopy-f.log 2>&1 \
    || { echo "solve.sh: phonopy-init -f failed" >&2; cat phonopy-f.log >&2; exit 1; }
python3 "$CMB_SOLUTION_DIR/phonons.py"
