#!/usr/bin/env bash
# Oracle for hgte-landau-levels: kdotpy ll on the flat-band 10/70/10 nm stack on CdTe (8 orbitals, axial, z step
# 0.5 nm, LL index up to 20, 30 states per LL index around +10 meV) at B = 3.6 and 4.5 T, kdotpy 2d of the same
# layer at B = 0 for the Onsager count, then the level count (hgte_ll.py). About half a core-minute.
set -euo pipefail
sol="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}"
export OMP_NUM_THREADS=1
mkdir -p kdotpy-run
stack=(msubst CdTe mlayer HgCdTe 68% HgTe HgCdTe 68% llayer 10 70 10 zres 0.5 split 0.01)
kdotpy ll 8o axial "${stack[@]}" b 3.6 4.5 / 1 llmax 20 neig 600 targetenergy 10 erange -30 50 cpus 1 \
    outdir kdotpy-run out -ll > kdotpy-run/ll.log 2>&1
kdotpy 2d 8o axial "${stack[@]}" k 0 0.3 / 60 kphi 0 erange -60 80 neig 40 targetenergy 0 cpus 1 \
    outdir kdotpy-run out -b0 > kdotpy-run/b0.log 2>&1
python3 "$sol/hgte_ll.py" kdotpy-run/bdependence-ll.csv kdotpy-run/dispersion-b0.byband.csv > answer.json
cat answer.json
