#!/usr/bin/env bash
# Precomputed NPT logs of cu-npt-expansion-analysis and its reference values.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./cu-npt-expansion-reproduce)
#   OUTDIR/runs/T<temperature>/    one LAMMPS run per temperature: npt.in, Cu_u3.eam, log.lammps
#   OUTDIR/workspace/npt_<T>K.log  the logs staged for the agent (copies of runs/T*/log.lammps)
#   OUTDIR/values.json             the reference values, keyed like reference.yaml
#
# Pinned settings: LAMMPS 29 Sep 2021 (Debian `lmp`, serial, one process), the staged Foiles u3 EAM potential,
# 864 atoms (6x6x6 conventional cells) started at a = 3.615 A, timestep 2 fs; per temperature: 20 ps NVT at
# fixed volume (Nose-Hoover, Tdamp 0.2 ps), 20 ps NPT equilibration and 60 ps NPT production (iso 0 bar,
# Pdamp 2 ps), thermo every 250 steps. Seeds are fixed; a serial run repeats bit for bit on the same build.
# About 1-3 minutes per temperature on one core.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
potential="$here/../../../tasks/cu-eam/cu-eam-elastic/workspace/Cu_u3.eam"
out=$(mkdir -p "${1:-cu-npt-expansion-reproduce}" && cd "${1:-cu-npt-expansion-reproduce}" && pwd)
lmp=$(command -v lmp || command -v lmp_serial || true)
[[ -n "$lmp" ]] || { echo "reproduce.sh: LAMMPS (lmp) not on PATH" >&2; exit 1; }
temperatures=(100 200 300 400 500)
seeds=(4711 4723 4733 4751 4759)
mkdir -p "$out/runs" "$out/workspace"
for i in "${!temperatures[@]}"; do
    t=${temperatures[$i]}
    run="$out/runs/T$t"
    rm -rf "$run" && mkdir -p "$run"
    cp "$here/npt.in" "$potential" "$run/"
    start=$EPOCHREALTIME
    (cd "$run" && OMP_NUM_THREADS=1 "$lmp" -in npt.in -var T "$t" -var seed "${seeds[$i]}" -log log.lammps \
        -screen none)
    grep -q '^Total wall time' "$run/log.lammps" || { echo "reproduce.sh: run at $t K did not finish" >&2; exit 1; }
    printf 'T = %s K done (%.0f s)\n' "$t" "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{print b-a}')"
    cp "$run/log.lammps" "$out/workspace/npt_${t}K.log"
done
python3 "$here/expansion_reference.py" "$out"/workspace/npt_*K.log > "$out/values.json"
cat "$out/values.json"
