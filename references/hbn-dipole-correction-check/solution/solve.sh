#!/usr/bin/env bash
# Oracle for hbn-dipole-correction-check: three pw.x SCF runs of the staged relaxed AB bilayer at the task's
# lighter settings (25 A with the dipole correction, 25 A and 35 A without), pp.x plot_num 11 and average.x, each
# in its own folder under runs/ (dipole_check.py). Two MPI processes with two k-point pools where mpirun is
# installed. About 75 s of wall time on 2 cores.
set -euo pipefail
np=1
command -v mpirun >/dev/null && np=2
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/dipole_check.py" \
    --relax ab.relax.out --pseudo pseudo --answer answer.json --np "$np"
