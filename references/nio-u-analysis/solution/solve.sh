#!/usr/bin/env bash
# Oracle for nio-u-analysis: parse the staged pw.x outputs (applied U, band gap from eigenvalues and occupations,
# Ni site moment at 4.17 A; volume and energy of every run), fit the equilibrium lattice constant of each six-run
# series and d(gap)/dU over the series with U > 0. Writes answer.json here.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/analyse_nio.py"
