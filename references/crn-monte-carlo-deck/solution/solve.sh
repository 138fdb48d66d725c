#!/usr/bin/env bash
# Oracle for crn-monte-carlo-deck: write the VAMPIRE deck (input, crn.mat, crn.ucf) from the staged POSCAR and the
# model exchange of the prompt, doubled into VAMPIRE's per-pair convention and converted to joules.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/write_deck.py"
