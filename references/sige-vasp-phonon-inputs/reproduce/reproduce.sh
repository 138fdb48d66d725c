#!/usr/bin/env bash
# Reference inputs of sige-vasp-phonon-inputs: the PBE lattice constants given in the prompt (eos.py, pw.x 6.7 with
# the Debian pseudopotentials, 2-atom cells, about 1.4 core-minutes) and phonopy's displaced 16-atom supercells at
# those lattice constants (make_poscars.py, phonopy 4.10, a second), compared with the committed POSCARs.
# Usage: reproduce.sh [OUTDIR]   writes OUTDIR/eos.json, OUTDIR/{Si,Ge}/POSCAR and OUTDIR/values.json
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-sige-vasp-phonon-inputs-reproduce}" && cd "${1:-sige-vasp-phonon-inputs-reproduce}" && pwd)
export OMP_NUM_THREADS=1
python3 "$here/eos.py" "$out"
python3 "$here/make_poscars.py" "$out"
for el in Si Ge; do cmp "$out/$el/POSCAR" "$here/../$el/POSCAR"; done
python3 - "$out" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
eos = json.loads((out / "eos.json").read_text())
values = {"a_Si_angstrom": round(eos["Si"]["a0_angstrom"], 4), "a_Ge_angstrom": round(eos["Ge"]["a0_angstrom"], 4)}
(out / "values.json").write_text(json.dumps(values, indent=2) + "\n")
print(json.dumps(values, indent=2))
PY
