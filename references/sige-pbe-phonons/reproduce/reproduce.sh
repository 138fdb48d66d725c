#!/usr/bin/env bash
# The precomputed step of sige-pbe-phonons: PBE lattice constants of Si and Ge (eos.py, 2-atom cells) and the
# pw.x forces of the phonopy-displaced 16-atom supercells at those lattice constants (supercells.py); then the
# reference frequencies from the forces (reference.py). pw.x 6.7 and phonopy 4.10; see cost.yaml for the time.
# Usage: reproduce.sh [OUTDIR]   writes OUTDIR/eos.json, OUTDIR/{Si,Ge}/..., OUTDIR/workspace/ and OUTDIR/values.json
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-sige-pbe-phonons-reproduce}" && cd "${1:-sige-pbe-phonons-reproduce}" && pwd)
export OMP_NUM_THREADS=1
python3 "$here/eos.py" "$out"
python3 "$here/supercells.py" "$out" Si Ge
python3 "$here/stage.py" "$out" "$out/workspace"
python3 "$here/reference.py" "$out/workspace" "$out"
