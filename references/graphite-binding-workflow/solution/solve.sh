#!/usr/bin/env bash
# Oracle for graphite-binding-workflow: chain the oracles of the steps, each in its own folder.
#   step1-setup/   graphite-pw-d3-inputs: pw.in for AB graphite at the measured structure with PBE + DFT-D3, run
#                  once with pw.x to confirm that the D3 energy is there
#   step2-scan/    graphite-c-scan at the pinned settings: five PBE-D3 runs (c = 6.6 ... 7.4 A), a graphene layer
#                  in a 20 A cell, cubic fit of the binding energy per atom
#   (step 3)       plain PBE at the fitted c_eq and a PBE layer (c_scan.py --pbe-at-ceq)
# and copy the final quantities into answer.json here. About 30 s of CPU on one core.
set -euo pipefail
sol="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}"
steps="$sol/steps"  # the step solutions, staged inside this folder
pseudo="$PWD/pseudo/C.pbe-rrkjus.UPF"
for d in step1-setup step2-scan; do mkdir -p "$d/pseudo" && cp "$pseudo" "$d/pseudo/"; done
(cd step1-setup && CMB_SOLUTION_DIR="$steps/graphite-pw-d3-inputs" \
    bash "$steps/graphite-pw-d3-inputs/solve.sh" > solve.log)
grep -q 'DFT-D3 Dispersion' step1-setup/solve.log || { echo "step 1: D3 not active" >&2; exit 1; }
echo "step 1: $(grep '^!' step1-setup/solve.log | tr -s ' ')"
(cd step2-scan && python3 "$steps/graphite-c-scan/c_scan.py" --pseudo pseudo \
    --c 6.6 6.8 7.0 7.2 7.4 --pbe-at-ceq --answer answer.json)
cp step2-scan/answer.json answer.json
cat answer.json
