#!/usr/bin/env bash
# Reference values of cu-eam-elastic: LAMMPS (Debian build of 29 Sep 2021) with the staged Cu_u3.eam (Foiles 1986).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./cu-eam-reproduce)
#   OUTDIR/runs/relax/            box/relax of a 5x5x5 conventional fcc cell (500 atoms) at zero pressure
#   OUTDIR/runs/<mode><strain>/   one directory per strained cell: uniaxial xx and engineering shear yz at
#                                 +-0.25%, +-0.5%, +-1%, atoms relaxed at fixed cell
# The elastic constants are linear least-squares slopes of stress against strain over all six strains. A second,
# independent estimate from ASE's own EAM implementation (energy-strain curvature) is printed as a cross-check.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
potential="$here/../../../tasks/cu-eam/cu-eam-elastic/workspace/Cu_u3.eam"
out="${1:-cu-eam-reproduce}"
mkdir -p "$out"
python3 "$here/elastic_reference.py" "$potential" "$out"
