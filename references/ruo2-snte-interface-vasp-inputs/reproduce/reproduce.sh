#!/usr/bin/env bash
# Regenerate the two slabs staged for ruo2-snte-interface-vasp-inputs and the reference input set (numpy only,
# under a second; no simulation code).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./ruo2-snte-interface-reproduce)
#   OUTDIR/workspace/{SnTe_110_slab.vasp,RuO2_100_slab.vasp}   the staged files
#   OUTDIR/{POSCAR,INCAR,KPOINTS,POTCAR.spec}                   the reference inputs
#   OUTDIR/values.json                                          the reference values, keyed like reference.yaml
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-ruo2-snte-interface-reproduce}" && cd "${1:-ruo2-snte-interface-reproduce}" && pwd)
python3 "$here/make_slabs.py" "$out/workspace"
python3 "$here/../solution/write_inputs.py" "$out/workspace" --out "$out"
cat > "$out/values.json" <<'JSON'
{"ldauu_eV": [0.0, 0.0, 2.0, 0.0], "ldaul_window": [-0.5, -0.5, 2, -0.5]}
JSON
