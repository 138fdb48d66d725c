#!/usr/bin/env bash
# Reference values of si-sw-transport-workflow: the final quantities come from the reference runs of its steps,
# re-run here by their own reproduce scripts, one folder per step:
#   OUTDIR/si-sw-lattice/   SW a0, beta-tin - diamond energies of SW and Tersoff (LAMMPS box/relax + scans)
#   OUTDIR/si-sw-phonons/   Gamma optical and X TA frequencies (direct force-constant route, phonopy check)
#   OUTDIR/si-sw-kappa/     kappa(300 K), RTA and LBTE (phono3py 4.10.0 command line, prescribed settings)
#   OUTDIR/values.json      the merged final quantities, keyed like reference.yaml
# Usage: reproduce.sh [OUTDIR]      (default: ./si-sw-transport-reproduce). A few minutes.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
refs="$here/../.."
out=$(mkdir -p "${1:-si-sw-transport-reproduce}" && cd "${1:-si-sw-transport-reproduce}" && pwd)
for step in si-sw-lattice si-sw-phonons si-sw-kappa; do
    echo "== $step" >&2
    bash "$refs/$step/reproduce/reproduce.sh" "$out/$step" >&2
done
python3 - "$out" > "$out/values.json" <<'PY'
import json
import sys
from pathlib import Path

out = Path(sys.argv[1])
step = {s: json.loads((out / s / "values.json").read_text()) for s in ("si-sw-lattice", "si-sw-phonons", "si-sw-kappa")}
merged = {k: step["si-sw-lattice"][k] for k in ("sw_a0_angstrom", "sw_dE_betasn_eV_per_atom",
                                                "tersoff_dE_betasn_eV_per_atom")}
merged |= {k: step["si-sw-phonons"][k] for k in ("Gamma_optical_THz", "X_TA_THz")}
merged |= step["si-sw-kappa"]
json.dump(merged, sys.stdout, indent=2)
print()
PY
cat "$out/values.json"
