#!/usr/bin/env bash
# Reference values of cu-qha: quasi-harmonic approximation with phonopy (pinned 4.10.0) and LAMMPS (Debian
# 29 Sep 2021) forces and energies from the staged Cu_u3.eam.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./cu-qha-reproduce)
#   OUTDIR/runs/static-a<a>/                    static energy at each lattice constant
#   OUTDIR/runs/phonon-sc<n>-a<a>-disp<i>/      one LAMMPS force run per displaced supercell
#   OUTDIR/workspace/Cu_u3.eam  the staged potential, copied from LAMMPS's potentials folder (Debian lammps-data)
#   OUTDIR/values.json                          reference values (4x4x4 supercell, 11 volumes, Vinet)
# Prints supercell, EOS and volume-range dependence and an independent numpy QHA. A few minutes.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
potential="$here/../../../tasks/cu-eam/cu-qha/workspace/Cu_u3.eam"
out=$(mkdir -p "${1:-cu-qha-reproduce}" && cd "${1:-cu-qha-reproduce}" && pwd)
mkdir -p "$out/workspace"
shipped="${CMB_LAMMPS_POTENTIALS:-/usr/share/lammps/potentials}/Cu_u3.eam"  # the staged file's origin
if [[ -f "$shipped" ]]; then
    cp "$shipped" "$out/workspace/Cu_u3.eam"
    cmp -s "$shipped" "$potential" || echo "Cu_u3.eam: the staged file differs from $shipped" >&2
fi
python3 -c 'import phonopy, sys; print("phonopy", phonopy.__version__, file=sys.stderr)'
python3 "$here/qha_reference.py" "$potential" "$out" > "$out/values.json"
cat "$out/values.json"
