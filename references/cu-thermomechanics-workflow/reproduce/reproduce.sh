#!/usr/bin/env bash
# Reference values of cu-thermomechanics-workflow: the final quantities come from the reference runs of its
# steps, re-run here by their own reproduce scripts, one folder per step:
#   OUTDIR/cu-eam-elastic/   C11, C12, C44           (LAMMPS stress-strain, 500-atom cell)
#   OUTDIR/cu-phonons/       Cv(300 K)               (phonopy 4.10.0 + LAMMPS, 4x4x4 supercell, 40^3 mesh)
#   OUTDIR/cu-qha/           alpha_V, B_T, a(300 K)  (phonopy QHA + LAMMPS, 4x4x4 supercell, 11 volumes)
#   OUTDIR/values.json       the merged final quantities, keyed like reference.yaml
#   OUTDIR/workspace/Cu_u3.eam  the staged potential (copied by the first step's script)
# Usage: reproduce.sh [OUTDIR]      (default: ./cu-thermomechanics-reproduce). A few minutes.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
refs="$here/../.."
out=$(mkdir -p "${1:-cu-thermomechanics-reproduce}" && cd "${1:-cu-thermomechanics-reproduce}" && pwd)
for step in cu-eam-elastic cu-phonons cu-qha; do
    echo "== $step" >&2
    bash "$refs/$step/reproduce/reproduce.sh" "$out/$step" >&2
done
mkdir -p "$out/workspace"
cp "$out/cu-eam-elastic/workspace/Cu_u3.eam" "$out/workspace/" 2>/dev/null || true
python3 - "$out" > "$out/values.json" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
step = {s: json.loads((out / s / "values.json").read_text()) for s in ("cu-eam-elastic", "cu-phonons", "cu-qha")}
merged = {k: step["cu-eam-elastic"][k] for k in ("C11_GPa", "C12_GPa", "C44_GPa")}
merged["Cv_300K_J_per_K_mol"] = step["cu-phonons"]["Cv_300K_J_per_K_mol"]
merged.update({k: step["cu-qha"][k] for k in ("alpha_V_300K_per_K", "B_T_300K_GPa", "a_300K_angstrom")})
json.dump(merged, sys.stdout, indent=2)
print()
PY
cat "$out/values.json"
