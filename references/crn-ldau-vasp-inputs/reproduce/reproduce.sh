#!/usr/bin/env bash
# Regenerate the reference input set of crn-ldau-vasp-inputs (pymatgen; no VASP run, a few seconds).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./crn-vasp-reproduce)
#   OUTDIR/inputs/{INCAR,KPOINTS,POSCAR,POTCAR.spec}   identical to the files beside reference.yaml
#   OUTDIR/values.json                                cell of the AFM-[110]2 cell, k spacing of the mesh, U
# The pw.x relaxation that this input set stands for is references/crn-relaxed-structure/reproduce/.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-crn-vasp-reproduce}" && cd "${1:-crn-vasp-reproduce}" && pwd)
python3 "$here/make_inputs.py" "$out"
for f in INCAR KPOINTS POSCAR POTCAR.spec; do
    cmp -s "$out/inputs/$f" "$here/../$f" || echo "reproduce.sh: $f differs from the committed reference" >&2
done
