#!/usr/bin/env bash
# Oracle for graphite-c-scan: five pw.x SCF runs of AB graphite with PBE-D3 at the pinned settings
# (c = 6.6 ... 7.4 A at a = 2.464 A), one for a graphene layer in a 20 A cell, each in its own folder under
# runs/; cubic fit of the binding energy per atom. Writes answer.json here. About 20 s of CPU on one core.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/c_scan.py" \
    --pseudo pseudo --c 6.6 6.8 7.0 7.2 7.4 --answer answer.json
cat answer.json
