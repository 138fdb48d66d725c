#!/usr/bin/env bash
# Regenerate the staged POSCAR and the reference input set of slab-dipole-inputs (ASE + pymatgen; no VASP run).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./slab-dipole-reproduce)
#   OUTDIR/workspace/POSCAR                                   the file staged for the agent
#   OUTDIR/inputs/{structure.cif,INCAR,KPOINTS,POTCAR.spec}   the files beside reference.yaml
#   OUTDIR/values.json                                        centre of mass, DIPOL window, cell height
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-slab-dipole-reproduce}" && cd "${1:-slab-dipole-reproduce}" && pwd)
python3 "$here/make_inputs.py" "$out"
for f in structure.cif INCAR KPOINTS POTCAR.spec; do
    cmp -s "$out/inputs/$f" "$here/../$f" || echo "reproduce.sh: $f differs from the committed reference" >&2
done
cmp -s "$out/workspace/POSCAR" "$here/../../../tasks/vasp-hard-cases/slab-dipole-inputs/workspace/POSCAR" \
    || echo "reproduce.sh: POSCAR differs from the staged workspace file" >&2
