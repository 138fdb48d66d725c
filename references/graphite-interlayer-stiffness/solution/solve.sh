#!/usr/bin/env bash
# Oracle for graphite-interlayer-stiffness: parse the 19 staged PBE-D3 pw.x outputs in the current folder, fit the
# cell energy against c (sextic over +-0.8 A), and write answer.json here: the curvature per cell, the B2g
# breathing frequency of the layer chain and its Grueneisen parameter along c.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/stiffness.py"
