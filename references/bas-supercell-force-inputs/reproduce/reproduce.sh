#!/usr/bin/env bash
# Convergence behind the bounds of bas-supercell-force-inputs (the force calculations themselves are the
# reproduction of bas-harmonic-force-constants): the plane-wave cutoff and the k-point sampling that converge
# the LDA total energy of BAs (a = 4.7225 A, B.pz-vbc.UPF + As.pz-bhs.UPF) to 1 mRy/atom.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./bas-supercell-force-inputs-reproduce)
#   OUTDIR/ecut.dat      ecutwfc (Ry), E (Ry/cell), E - E(120 Ry) in mRy/atom; 6x6x6 shifted mesh
#   OUTDIR/kmesh.dat     mesh, shift, E, E - E(8x8x8 shifted) in mRy/atom; 70 Ry
#   OUTDIR/supercell.dat the k sampling of the 64-atom cubic supercell (2x2x2 conventional cells) unfolded onto
#                        the primitive cell as explicit k lists: Gamma only, 2x2x2 shifted, 2x2x2 unshifted
#   OUTDIR/values.json   ecutwfc_min_ry, the supercell errors
#   OUTDIR/eos.dat, eos.json  the LDA equation of state behind a = 4.7225 A (eos.py: seven energies, 70 Ry,
#                        6x6x6 shifted mesh, Birch-Murnaghan fit)
# Measured here: convergence.py 121 s of CPU (3.3 min wall, shared machine), eos.py 50 s.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-bas-supercell-force-inputs-reproduce}" && cd "${1:-bas-supercell-force-inputs-reproduce}" && pwd)
command -v pw.x >/dev/null || { echo "reproduce.sh: pw.x not on PATH" >&2; exit 1; }
export OMP_NUM_THREADS=1
mkdir -p "$out/pseudo" "$out/runs"
cp /usr/share/espresso/pseudo/B.pz-vbc.UPF /usr/share/espresso/pseudo/As.pz-bhs.UPF "$out/pseudo/"
python3 "$here/convergence.py" "$out"
python3 "$here/eos.py" "$out"
