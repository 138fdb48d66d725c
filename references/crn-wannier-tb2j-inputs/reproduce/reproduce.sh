#!/usr/bin/env bash
# Rebuild the staged POSCAR of crn-wannier-tb2j-inputs and the hidden POSCAR.reference from the pw.x relaxation
# staged for crn-relaxed-structure (its latest geometry; reproduce/make_poscar.py). Nothing else of this task is
# computed: the reference deck (INCAR, KPOINTS, POTCAR.spec, tb2j.json) is written by hand from VASP's and TB2J's
# documentation (QC.md). The relaxation itself is references/crn-relaxed-structure/reproduce/.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./crn-wannier-reproduce)
#   OUTDIR/workspace/POSCAR    the staged cell
#   OUTDIR/values.json         the public reference values (no computed ones)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$(mkdir -p "${1:-crn-wannier-reproduce}" && cd "${1:-crn-wannier-reproduce}" && pwd)
mkdir -p "$out/workspace"
python3 "$here/make_poscar.py" "$root/tasks/crn-magnons/crn-relaxed-structure/workspace/relax.out" > "$out/workspace/POSCAR"
cmp -s "$out/workspace/POSCAR" "$root/tasks/crn-magnons/crn-wannier-tb2j-inputs/workspace/POSCAR" \
    || echo "reproduce.sh: POSCAR differs from the staged one" >&2
cat > "$out/values.json" <<'JSON'
{"ldauu_eV": [3.0, 0.0], "ldauj_eV": [0.0, 0.0], "ldaul_window": [2, -0.5], "prefix_up": "wannier90.1",
 "prefix_down": "wannier90.2", "elements": ["Cr"], "spinor": false, "emax_eV": 0.0}
JSON
cat "$out/values.json"
