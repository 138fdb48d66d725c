#!/usr/bin/env bash
# Runs the four pw.x decks of the anisotropy-energy step one after another on one core (QE 6.7, no MPI,
# OMP_NUM_THREADS=1), dense mesh first; keeps each run's input, output and /usr/bin/time -v record.
#
# Usage: run.sh OUTDIR      (pseudopotentials from CMB_QE_PSEUDO_DIR, default /usr/share/espresso/pseudo)
#   OUTDIR/fept_k{08,12}_t{00,90}.{in,out,time}
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
pseudo="${CMB_QE_PSEUDO_DIR:-/usr/share/espresso/pseudo}"
command -v pw.x >/dev/null || { echo "run.sh: pw.x not on PATH" >&2; exit 1; }
python3 "$here/decks.py" "$out"
mkdir -p "$out/pseudo"
cp "$pseudo/Fe.rel-pbe-spn-rrkjus_psl.0.2.1.UPF" "$pseudo/Pt.rel-pbe-n-rrkjus.UPF" "$out/pseudo/"
cd "$out"
for stem in fept_k12_t00 fept_k12_t90 fept_k08_t00 fept_k08_t90; do
  OMP_NUM_THREADS=1 /usr/bin/time -v -o "$stem.time" pw.x -in "$stem.in" > "$stem.out" 2>&1
  grep -q "JOB DONE" "$stem.out" || { echo "run.sh: $stem did not finish" >&2; exit 1; }
  rm -rf out
done
rm -rf pseudo
