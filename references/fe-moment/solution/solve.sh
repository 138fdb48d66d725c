#!/usr/bin/env bash
# Oracle for fe-moment: ferromagnetic (nspin 2) and non-magnetic (nspin 1) SCF runs of bcc Fe with pw.x, each in
# its own folder, with the settings the prompt fixes; writes answer.json here. About 20 s of CPU.
set -euo pipefail
command -v pw.x >/dev/null || { echo "solve.sh: pw.x not on PATH" >&2; exit 1; }
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/fe_moment.py"
