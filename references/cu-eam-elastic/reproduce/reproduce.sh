#!/usr/bin/env bash
# Reference values of cu-eam-elastic: LAMMPS (Debian build of 29 Sep 2021) with the staged Cu_u3.eam (Foiles 1986).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./cu-eam-reproduce)
#   OUTDIR/values.json            the reference values, keyed like reference.yaml
#   OUTDIR/workspace/Cu_u3.eam    the staged potential, copied from the LAMMPS distribution (Debian's lammps-data
#                                 ships it as /usr/share/lammps/potentials/Cu_u3.eam; CMB_LAMMPS_POTENTIALS
#                                 overrides the folder) when it is there
#   OUTDIR/runs/relax/            box/relax of a 5x5x5 conventional fcc cell (500 atoms) at zero pressure
#   OUTDIR/runs/<mode><strain>/   one directory per strained cell: uniaxial xx and engineering shear yz at
#                                 +-0.25%, +-0.5%, +-1%, atoms relaxed at fixed cell
# The elastic constants are linear least-squares slopes of stress against strain over all six strains. A second,
# independent estimate from ASE's own EAM implementation (energy-strain curvature) is printed as a cross-check.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
potential="$here/../../../tasks/cu-eam/cu-eam-elastic/workspace/Cu_u3.eam"
out="${1:-cu-eam-reproduce}"
mkdir -p "$out/workspace"
shipped="${CMB_LAMMPS_POTENTIALS:-/usr/share/lammps/potentials}/Cu_u3.eam"
if [[ -f "$shipped" ]]; then
    cp "$shipped" "$out/workspace/Cu_u3.eam"
    cmp -s "$shipped" "$potential" && echo "Cu_u3.eam: identical to the LAMMPS distribution's copy" \
        || echo "Cu_u3.eam: differs from $shipped" >&2
fi
python3 "$here/elastic_reference.py" "$potential" "$out"
cat "$out/values.json"
