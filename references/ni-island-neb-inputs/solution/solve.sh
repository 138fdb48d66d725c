#!/usr/bin/env bash
# Oracle for ni-island-neb-inputs: write in.neb (a climbing-image band of 7 replicas, FIRE, the bottom two layers
# held) in a form other than the reference deck's, and final.coords from the staged hcp_relaxed.data; smoke-run
# the band in a scratch folder when lmp and mpirun are installed (seconds).
set -euo pipefail
cat > in.neb <<'LMP'
# Concerted fcc -> hcp glide of the Ni heptamer on Ni(111): climbing-image NEB, Foiles EAM
# mpirun -np 7 lmp -partition 7x1 -in in.neb
units           metal
boundary        p p p
atom_style      atomic
atom_modify     map array sort 0 0.0
read_data       fcc_relaxed.data
pair_style      eam
pair_coeff      1 1 Ni_u3.eam

variable        low atom z<13.0
group           held variable low
group           mobile subtract all held
fix             freeze held setforce 0.0 0.0 0.0
fix             nudge mobile neb 5.0 parallel neigh

thermo          50
min_style       fire
timestep        0.002
neb             0.0 5.0e-4 3000 3000 50 final final.coords
LMP
python3 - <<'PY'
lines = open("hcp_relaxed.data").read().splitlines()
n = int(next(ln.split()[0] for ln in lines if ln.strip().endswith("atoms")))
start = next(i for i, ln in enumerate(lines) if ln.startswith("Atoms")) + 2
rows = sorted((int(w[0]), w[2:5]) for w in (ln.split() for ln in lines[start : start + n]))
with open("final.coords", "w") as fh:
    fh.write(f"{n}\n")
    fh.writelines(f"{i} {x} {y} {z}\n" for i, (x, y, z) in rows)
PY
if command -v lmp > /dev/null 2>&1 && command -v mpirun > /dev/null 2>&1; then
  mkdir -p smoke
  cp in.neb final.coords fcc_relaxed.data Ni_u3.eam smoke/
  root=()
  [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
  (cd smoke && OMP_NUM_THREADS=1 mpirun -np 7 --oversubscribe "${root[@]}" lmp -partition 7x1 -in in.neb \
     -log log.lammps -screen none > /dev/null)
  tail -n 1 smoke/log.lammps | awk '{print "band: steps", $1, "max force", $2, "eV/A, forward barrier", $7, "eV"}'
fi
