#!/usr/bin/env bash
# Regenerate the staged POSCAR and the reference input set of soc-anisotropy-inputs (pymatgen; no VASP run).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./soc-anisotropy-reproduce)
#   OUTDIR/workspace/POSCAR     the file staged for the agent
#   OUTDIR/inputs/              structure.cif, INCAR_collinear, INCAR_x, INCAR_z, KPOINTS, POTCAR.spec
#   OUTDIR/values.json          cell parameters, k spacing of the reference mesh, the two SAXIS directions
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-soc-anisotropy-reproduce}" && cd "${1:-soc-anisotropy-reproduce}" && pwd)
python3 "$here/make_inputs.py" "$out"
for f in structure.cif INCAR_collinear INCAR_x INCAR_z KPOINTS POTCAR.spec; do
    cmp -s "$out/inputs/$f" "$here/../$f" || echo "reproduce.sh: $f differs from the committed reference" >&2
done
cmp -s "$out/workspace/POSCAR" "$here/../../../tasks/fept-anisotropy/soc-anisotropy-inputs/workspace/POSCAR" \
    || echo "reproduce.sh: POSCAR differs from the staged workspace file" >&2
