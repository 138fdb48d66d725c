#!/usr/bin/env bash
# Oracle for fept-moments: one noncollinear spin-orbit pw.x run of L1_0 FePt (moments along c) with the settings the
# prompt fixes; writes answer.json here. About five minutes of CPU on one core.
set -euo pipefail
command -v pw.x >/dev/null || { echo "solve.sh: pw.x not on PATH" >&2; exit 1; }
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/fept_moments.py"
