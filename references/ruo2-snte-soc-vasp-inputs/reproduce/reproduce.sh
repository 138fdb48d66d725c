#!/usr/bin/env bash
# Stage the inputs of ruo2-snte-soc-vasp-inputs (the interface POSCAR and the collinear relaxation INCAR that the
# previous step's oracle builds from its staged slabs) and write the reference inputs (numpy only, under a second;
# no simulation code). The reference POSCAR beside reference.yaml is the same structure in direct coordinates; the
# grader compares crystals, not text.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./ruo2-snte-soc-reproduce)
#   OUTDIR/workspace/{POSCAR,INCAR.collinear}   the staged files
#   OUTDIR/{INCAR,KPOINTS,POSCAR,POTCAR.spec}    the reference inputs (POSCAR as staged)
#   OUTDIR/values.json                           the reference values, keyed like reference.yaml
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prev="$here/../../ruo2-snte-interface-vasp-inputs"
out=$(mkdir -p "${1:-ruo2-snte-soc-reproduce}" && cd "${1:-ruo2-snte-soc-reproduce}" && pwd)
tmp=$(mktemp -d)
python3 "$prev/reproduce/make_slabs.py" "$tmp"
python3 "$prev/solution/write_inputs.py" "$tmp" --out "$tmp/inputs" >/dev/null
mkdir -p "$out/workspace"
cp "$tmp/inputs/POSCAR" "$out/workspace/POSCAR"
cp "$tmp/inputs/INCAR" "$out/workspace/INCAR.collinear"
rm -rf "$tmp"
(cd "$out" && cp workspace/POSCAR workspace/INCAR.collinear . && python3 "$here/../solution/write_inputs.py" . && rm INCAR.collinear)
echo '{"ldauu_eV": [0.0, 0.0, 2.0, 0.0]}' > "$out/values.json"
