#!/usr/bin/env bash
# Reference values of cu-phonons: phonopy (pinned 4.10.0) with forces from LAMMPS (Debian 29 Sep 2021) and the
# staged Cu_u3.eam, fcc Cu at a = 3.615 A.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./cu-phonons-reproduce)
#   OUTDIR/runs/sc<n>-disp-<i>/   one LAMMPS force run per displaced supercell (n = 2, 3, 4 conventional cells)
#   OUTDIR/workspace/Cu_u3.eam  the staged potential, copied from LAMMPS's potentials folder (Debian lammps-data)
#   OUTDIR/values.json            the reference values (4x4x4 supercell, 40^3 mesh), keyed like reference.yaml
# Prints supercell and mesh convergence and an independent X-point estimate (ASE EAM + ase.phonons).
# About 30 s.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
potential="$here/../../../tasks/cu-eam/cu-phonons/workspace/Cu_u3.eam"
out=$(mkdir -p "${1:-cu-phonons-reproduce}" && cd "${1:-cu-phonons-reproduce}" && pwd)
mkdir -p "$out/workspace"
shipped="${CMB_LAMMPS_POTENTIALS:-/usr/share/lammps/potentials}/Cu_u3.eam"  # the staged file's origin
if [[ -f "$shipped" ]]; then
    cp "$shipped" "$out/workspace/Cu_u3.eam"
    cmp -s "$shipped" "$potential" || echo "Cu_u3.eam: the staged file differs from $shipped" >&2
fi
python3 -c 'import phonopy, sys; print("phonopy", phonopy.__version__, file=sys.stderr)'
python3 "$here/phonon_reference.py" "$potential" "$out" > "$out/values.json"
cat "$out/values.json"
