#!/usr/bin/env bash
# The precomputed step nemd-conductance of si-ge-interface-phonons: a non-equilibrium MD run of the coherent
# Si/Ge(001) superlattice with the Tersoff (1989) potential, and the reference values of sige-nemd-conductance.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./sige-nemd-conductance-reproduce)
#   OUTDIR/run/          in.nemd and sige.data (nemd_deck.py), SiCGe.tersoff, log.lammps, temp_profile.dat
#   OUTDIR/workspace/    the files staged for the agent: in.nemd, sige.data, log.lammps, temp_profile.dat
#   OUTDIR/values.json   the reference values (values.py on OUTDIR/workspace)
#   OUTDIR/alternatives.json   the valid routes and the traps (alternatives.py)
#
# Pinned: LAMMPS 29 Sep 2021 (Debian `lmp`, serial, one MPI rank), SiCGe.tersoff Si(D) Ge; 640 atoms (2x2
# conventional cells, 40 Si + 40 Ge (001) planes at the 0 K cell of sige-interface-relax); 1 fs; 40 ps at 300 K
# (20 ps Berendsen + 20 ps NVE), 150 ps of settling and 1600 ps of production with Langevin slabs at 330 and
# 270 K (damping 0.1 ps, tally yes), plane temperatures averaged in 32 blocks of 50 ps. Fixed seeds: a serial
# run repeats bit for bit on the same build. About 25 minutes on one core.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-sige-nemd-conductance-reproduce}" && cd "${1:-sige-nemd-conductance-reproduce}" && pwd)
lmp=$(command -v lmp || true)
[[ -n "$lmp" ]] || { echo "reproduce.sh: LAMMPS (lmp) not on PATH" >&2; exit 1; }
potential="$here/../../../tasks/si-ge-interface-phonons/sige-interface-relax/workspace/SiCGe.tersoff"
rm -rf "$out/run" && mkdir -p "$out/run" "$out/workspace"
python3 "$here/nemd_deck.py" "$out/run"
cp "$potential" "$out/run/"
(cd "$out/run" && OMP_NUM_THREADS=1 /usr/bin/time -f "%e s wall %U s user %S s sys" -o time.txt \
    "$lmp" -in in.nemd -log log.lammps -screen none)
grep -q '^Total wall time' "$out/run/log.lammps" || { echo "reproduce.sh: the run did not finish" >&2; exit 1; }
cat "$out/run/time.txt"
cp "$out/run/in.nemd" "$out/run/sige.data" "$out/run/log.lammps" "$out/run/temp_profile.dat" "$out/workspace/"
python3 "$here/values.py" "$out/workspace" "$out/values.json"
python3 "$here/alternatives.py" "$out/workspace" > "$out/alternatives.json"
