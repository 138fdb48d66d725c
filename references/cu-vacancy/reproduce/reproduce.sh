#!/usr/bin/env bash
# Reference values of cu-vacancy: LAMMPS (Debian build of 29 Sep 2021) with the staged Cu_u3.eam (Foiles 1986).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./cu-vacancy-reproduce)
#   OUTDIR/runs/n<N>/   one LAMMPS run per supercell of NxNxN conventional cells (N = 3, 4, 5): perfect crystal
#                       relaxed at zero pressure, one atom removed, defect cell unrelaxed / relaxed at fixed cell /
#                       relaxed at zero pressure (minimize etol 0, ftol 1e-12 eV/A, box/relax iso 0)
#   OUTDIR/workspace/Cu_u3.eam  the staged potential, copied from LAMMPS's potentials folder (Debian lammps-data)
#   OUTDIR/values.json  the reference values (4x4x4 cell, the one the prompt prescribes), keyed like reference.yaml
# Prints the size convergence and an independent unrelaxed value from ASE's EAM code. About a minute in all.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
potential="$here/../../../tasks/cu-eam/cu-vacancy/workspace/Cu_u3.eam"
out=$(mkdir -p "${1:-cu-vacancy-reproduce}" && cd "${1:-cu-vacancy-reproduce}" && pwd)
mkdir -p "$out/workspace"
shipped="${CMB_LAMMPS_POTENTIALS:-/usr/share/lammps/potentials}/Cu_u3.eam"  # the staged file's origin
if [[ -f "$shipped" ]]; then
    cp "$shipped" "$out/workspace/Cu_u3.eam"
    cmp -s "$shipped" "$potential" || echo "Cu_u3.eam: the staged file differs from $shipped" >&2
fi
python3 "$here/vacancy_reference.py" "$potential" "$out" > "$out/values.json"
cat "$out/values.json"
