#!/usr/bin/env bash
# Reference of graphite-binding-workflow: its final quantities are those of the graphite-c-scan reference scan at
# the same pinned settings (PBE-D3 and plain PBE on a fine grid of c, graphene layers in cells of several
# heights), so this runs that script.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./graphite-binding-workflow-reproduce)
#   OUTDIR/runs/<name>/    one folder per pw.x run
#   OUTDIR/values.json     c_eq_angstrom, E_b_meV_per_atom, pbe_E_b_at_c_eq_meV_per_atom, pbe_binds_at_c_eq
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec bash "$here/../../graphite-c-scan/reproduce/reproduce.sh" "${1:-graphite-binding-workflow-reproduce}"
