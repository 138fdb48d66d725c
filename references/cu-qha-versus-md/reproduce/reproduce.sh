#!/usr/bin/env bash
# Reproduce the reference of cu-qha-versus-md: classical (and quantum) QHA of fcc Cu with the staged potential on
# 11 lattice constants, 2x2x2 / 3x3x3 / 4x4x4 supercells and three EOS forms (LAMMPS + phonopy 4.10), against the
# production-block averages of the staged NPT logs (the logs themselves come from the npt-md step, reproduced by
# references/cu-npt-expansion-analysis/reproduce). Writes OUTDIR/values.json and OUTDIR/variants.json, then
# prints the answers of the fairness cases. About 30 s of CPU on one core.
set -euo pipefail
out="$(mkdir -p "${1:?usage: reproduce.sh OUTDIR}" && cd "$1" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
task="$here/../../../tasks/cu-eam/cu-qha-versus-md/workspace"
export OMP_NUM_THREADS=1
python3 "$here/qvm_reference.py" "$task/Cu_u3.eam" "$task" "$out"
python3 "$here/alternatives.py" "$out"
