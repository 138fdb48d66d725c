#!/usr/bin/env bash
# Oracle for hgte-gated-subbands: kdotpy on the 10/70/10 nm stack on CdTe with a 30 meV potential difference
# across the whole stack (vtotal), 8 orbitals, axial, z step 0.5 nm, k 0-0.3 nm^-1 in 0.005 steps; then the
# Fermi-level analysis (hgte_fermi.py gated). About 10 s.
set -euo pipefail
sol="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}"
mkdir -p kdotpy-run
kdotpy 2d 8o axial msubst CdTe mlayer HgCdTe 68% HgTe HgCdTe 68% llayer 10 70 10 zres 0.5 vtotal 30 \
    k 0 0.3 / 60 kphi 0 erange -60 80 neig 40 split 0.01 targetenergy 0 outdir kdotpy-run out -gated \
    > kdotpy-run/kdotpy.log 2>&1
python3 "$sol/hgte_fermi.py" gated kdotpy-run/dispersion-gated.byband.csv kdotpy-run/kdotpy.log > answer.json
cat answer.json
