#!/usr/bin/env bash
# Regenerate the reference input set of graphite-vasp-relax-inputs (pymatgen; no VASP run, a few seconds).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./graphite-vasp-relax-reproduce)
#   OUTDIR/inputs/{INCAR,KPOINTS,POSCAR,POTCAR.spec}   identical to the files beside reference.yaml
#   OUTDIR/values.json                                lattice parameters, ENCUT bound, k spacing of the mesh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-graphite-vasp-relax-reproduce}" && cd "${1:-graphite-vasp-relax-reproduce}" && pwd)
python3 "$here/make_inputs.py" "$out"
for f in INCAR KPOINTS POSCAR POTCAR.spec; do
    cmp -s "$out/inputs/$f" "$here/../$f" || echo "reproduce.sh: $f differs from the committed reference" >&2
done
