#!/usr/bin/env bash
# Reference of hgte-gated-subbands: kdotpy 1.4.1 on the 10/70/10 nm stack on CdTe with vtotal 30 meV (8 orbitals,
# axial, z step 0.25 nm and k steps of 0.0025 nm^-1, half the oracle's each), analysed by the oracle's tool
# (solution/hgte_fermi.py gated); then two alternatives the tolerances must accept: the potential drop reversed
# (vtotal -30) and the non-axial Hamiltonian along [100]. Cost: about 1.5 core-minutes on this machine kind.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./hgte-gated-reproduce)
#   OUTDIR/answer.json, reversed.json, noax.json   the three answers
#   OUTDIR/values.json                             the reference, under the keys of reference.yaml
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tool="$here/../solution/hgte_fermi.py"
out=$(mkdir -p "${1:-hgte-gated-reproduce}" && cd "${1:-hgte-gated-reproduce}" && pwd)
stack=(msubst CdTe mlayer HgCdTe 68% HgTe HgCdTe 68% llayer 10 70 10)
common=(kphi 0 erange -60 80 neig 40 split 0.01 targetenergy 0)
cd "$out"
kdotpy 2d 8o axial "${stack[@]}" zres 0.25 vtotal 30 k 0 0.3 / 120 "${common[@]}" out -ref > ref.log 2>&1
python3 "$tool" gated dispersion-ref.byband.csv ref.log > answer.json
kdotpy 2d 8o axial "${stack[@]}" zres 0.5 vtotal -30 k 0 0.3 / 60 "${common[@]}" out -rev > rev.log 2>&1
python3 "$tool" gated dispersion-rev.byband.csv rev.log > reversed.json
kdotpy 2d 8o noax "${stack[@]}" zres 0.5 vtotal 30 k 0 0.3 / 60 "${common[@]}" out -noax > noax.log 2>&1
python3 "$tool" gated dispersion-noax.byband.csv noax.log > noax.json
python3 - answer.json > values.json <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))  # the answer layout, flattened to the keys of reference.yaml
v = {k: a[k] for k in ("cnp_below_meV", "cnp_above_meV", "occupied_subbands", "most_split_pair", "density_total_1e11_cm2")}
v.update({f"kF_{b}_per_nm": x for b, x in a["kF_per_nm"].items()})
v.update({f"sdh_{b}_T": x for b, x in a["sdh_frequency_T"].items()})
print(json.dumps(v, indent=1))
PY
cat values.json
