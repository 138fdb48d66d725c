#!/usr/bin/env bash
# Reference of hgte-landau-levels: kdotpy 1.4.1 on the flat-band 10/70/10 nm stack on CdTe (8 orbitals, axial).
# The Landau levels at B = 3.6 and 4.5 T with half the oracle's z step (0.25 nm), LL index up to 30 and 40 states
# per LL index; the B = 0 dispersion at z step 0.25 nm and k steps of 0.0025 nm^-1; both analysed by the oracle's
# tool (solution/hgte_ll.py). Two alternatives the tolerances must accept are also written: the oracle's coarser
# settings (oracle.json), and the Onsager count from the non-axial B = 0 dispersion along [100] (noax.json).
# Cost: about 2 core-minutes on this machine kind (four kdotpy runs).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./hgte-ll-reproduce)
#   OUTDIR/answer.json   the reference answer      OUTDIR/values.json   the same, under the keys of reference.yaml
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tool="$here/../solution/hgte_ll.py"
out=$(mkdir -p "${1:-hgte-ll-reproduce}" && cd "${1:-hgte-ll-reproduce}" && pwd)
export OMP_NUM_THREADS=1
stack=(msubst CdTe mlayer HgCdTe 68% HgTe HgCdTe 68% llayer 10 70 10 split 0.01)
cd "$out"
kdotpy ll 8o axial "${stack[@]}" zres 0.25 b 3.6 4.5 / 1 llmax 30 neig 1200 targetenergy 10 erange -30 50 cpus 1 \
    out -ref > ll-ref.log 2>&1
kdotpy 2d 8o axial "${stack[@]}" zres 0.25 k 0 0.3 / 120 kphi 0 erange -60 80 neig 40 targetenergy 0 cpus 1 \
    out -b0ref > b0-ref.log 2>&1
python3 "$tool" bdependence-ref.csv dispersion-b0ref.byband.csv > answer.json
# alternative 1: the oracle's settings (z step 0.5 nm, LL index up to 20, 30 states per LL index)
kdotpy ll 8o axial "${stack[@]}" zres 0.5 b 3.6 4.5 / 1 llmax 20 neig 600 targetenergy 10 erange -30 50 cpus 1 \
    out -ora > ll-ora.log 2>&1
kdotpy 2d 8o axial "${stack[@]}" zres 0.5 k 0 0.3 / 60 kphi 0 erange -60 80 neig 40 targetenergy 0 cpus 1 \
    out -b0ora > b0-ora.log 2>&1
python3 "$tool" bdependence-ora.csv dispersion-b0ora.byband.csv > oracle.json
# alternative 2: the zero-field contours of the non-axial Hamiltonian along [100]
kdotpy 2d 8o noax "${stack[@]}" zres 0.5 k 0 0.3 / 60 kphi 0 erange -60 80 neig 40 targetenergy 0 cpus 1 \
    out -b0noax > b0-noax.log 2>&1
python3 "$tool" bdependence-ref.csv dispersion-b0noax.byband.csv > noax.json
python3 - answer.json > values.json <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))  # the answer layout is flat: its keys are those of reference.yaml
print(json.dumps(a, indent=1))
PY
cat values.json
