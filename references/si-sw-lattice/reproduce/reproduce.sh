#!/usr/bin/env bash
# Reference values of si-sw-lattice: LAMMPS (Debian build of 29 Sep 2021) with the staged Si.sw (Stillinger and
# Weber 1985) and Si.tersoff (Tersoff 1988) potentials.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-sw-lattice-reproduce)
#   OUTDIR/runs/<potential>-diamond-relax/     box/relax iso of a 4x4x4 diamond cube (512 atoms)
#   OUTDIR/runs/<potential>-beta-tin-relax/    box/relax aniso of 5x5x10 beta-tin cells (1000 atoms)
#   OUTDIR/runs/<potential>-*-scan/            energy scans at fixed fractional coordinates (cross-check)
#   OUTDIR/runs/<potential>-beta-tin-{unrelaxed,iso}/   what the traps give (printed, not reference values)
#   OUTDIR/values.json                         the reference values, keyed like reference.yaml
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
workspace="$here/../../../tasks/si-thermal-transport/si-sw-lattice/workspace"
out="${1:-si-sw-lattice-reproduce}"
mkdir -p "$out"
python3 "$here/lattice_reference.py" "$workspace" "$out"
