#!/usr/bin/env bash
# The staged kappa file of si-sw-kappa-analysis: phono3py 4.10.0 (command line) + LAMMPS (Debian build of
# 29 Sep 2021) with the Stillinger-Weber Si.sw staged for si-sw-kappa, RTA on a 19x19x19 mesh, 100-1000 K in
# steps of 50 K (a few minutes on one core). Settings are pinned in kappa_file.py.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-sw-kappa-analysis-reproduce)
#   OUTDIR/runs/phono3py/            POSCAR-unitcell, phono3py_disp.yaml, FORCES_FC3, the phono3py-load run
#   OUTDIR/runs/forces/              one LAMMPS rerun over the 111 displaced supercells
#   OUTDIR/workspace/kappa-m191919.hdf5   the file staged for the agent
#   OUTDIR/values.json               the reference values read from it
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
potential="$here/../../../tasks/si-thermal-transport/si-sw-kappa/workspace/Si.sw"
out=$(mkdir -p "${1:-si-sw-kappa-analysis-reproduce}" && cd "${1:-si-sw-kappa-analysis-reproduce}" && pwd)
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
python3 "$here/kappa_file.py" "$potential" "$out"
