#!/usr/bin/env bash
# Reference values of si-sw-phonons: LAMMPS (Debian build of 29 Sep 2021) with the staged Si.sw; phonopy only
# for the cross-check.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-sw-phonons-reproduce)
#   OUTDIR/runs/relax/          box/relax of a 4x4x4 diamond cube at zero pressure
#   OUTDIR/runs/direct/frameNN/ one LAMMPS run per displaced 3x3x3 supercell (+-0.005 A, two atoms x 3 axes)
#   OUTDIR/runs/phonopy/frameNN/  phonopy's displaced 2x2x2 supercell (cross-check)
#   OUTDIR/values.json          a0 and the Gamma and X frequencies from the direct route
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
potential="$here/../../../tasks/si-thermal-transport/si-sw-phonons/workspace/Si.sw"
out="${1:-si-sw-phonons-reproduce}"
mkdir -p "$out"
python3 "$here/phonons_reference.py" "$potential" "$out"
