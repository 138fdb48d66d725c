#!/usr/bin/env bash
# The precomputed DFPT of si-dfpt-phonons: QE 6.7 pw.x + ph.x on a 4x4x4 q grid + q2r.x, then the reference
# frequencies with matdyn.x.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-dfpt-phonons-reproduce)
#   OUTDIR/runs/dfpt/        scf.in/out, ph.in/out, si.dyn0-8, q2r.in/out, si.fc (one folder, one chain)
#   OUTDIR/runs/matdyn/      matdyn.x with asr = 'crystal' (the reference), 'simple' and 'no' (printed)
#   OUTDIR/workspace/        si.fc, scf.in, ph.in, q2r.in: the files staged for the agent
#   OUTDIR/values.json       gamma_cm1, X_cm1 (six frequencies each, ascending), gamma_optical_THz, X_TA_THz,
#                            X_LA_THz, X_TO_THz
# Pinned settings: diamond Si at a0 = 5.4755 A (celldm(1) = 10.3472 bohr, the PBE equilibrium of the study's EOS
# step), Si.pbe-rrkj.UPF, ecutwfc 30 Ry, 4x4x4 Monkhorst-Pack mesh shifted by half a step, conv_thr 1e-12;
# ph.x tr2_ph 1e-16 on the 4x4x4 q grid (8 irreducible points; for an insulator ph.x also computes the dielectric
# tensor and Born charges at Gamma, which land in si.fc); q2r.x imposes no sum rule (zasr = 'no'), so both the
# acoustic sum rule and charge neutrality are left to the analysis. One MPI process: about 4 minutes of CPU.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pseudo="$here/../../../tasks/si-first-principles/si-fd-phonons/workspace/pseudo/Si.pbe-rrkj.UPF"
out=$(mkdir -p "${1:-si-dfpt-phonons-reproduce}" && cd "${1:-si-dfpt-phonons-reproduce}" && pwd)
for exe in pw.x ph.x q2r.x matdyn.x; do
    command -v "$exe" >/dev/null || { echo "reproduce.sh: $exe not on PATH" >&2; exit 1; }
done
export OMP_NUM_THREADS=1
run="$out/runs/dfpt"
rm -rf "$run" && mkdir -p "$run/pseudo" "$out/workspace"
cp "$pseudo" "$run/pseudo/"
cat > "$run/scf.in" <<'IN'
&control
  calculation = 'scf'
  prefix = 'si'
  outdir = './out'
  pseudo_dir = './pseudo'
/
&system
  ibrav = 2
  celldm(1) = 10.3472
  nat = 2
  ntyp = 1
  ecutwfc = 30.0
/
&electrons
  conv_thr = 1.0d-12
/
ATOMIC_SPECIES
Si 28.0855 Si.pbe-rrkj.UPF
ATOMIC_POSITIONS crystal
Si 0.00 0.00 0.00
Si 0.25 0.25 0.25
K_POINTS automatic
4 4 4 1 1 1
IN
cat > "$run/ph.in" <<'IN'
Phonons of diamond Si on a 4x4x4 q grid
&inputph
  prefix = 'si'
  outdir = './out'
  fildyn = 'si.dyn'
  tr2_ph = 1.0d-16
  ldisp = .true.
  nq1 = 4, nq2 = 4, nq3 = 4
/
IN
cat > "$run/q2r.in" <<'IN'
&input
  fildyn = 'si.dyn'
  zasr = 'no'
  flfrc = 'si.fc'
/
IN
(cd "$run" && pw.x -in scf.in > scf.out && ph.x -in ph.in > ph.out && q2r.x -in q2r.in > q2r.out)
grep -q 'JOB DONE' "$run/ph.out" || { echo "reproduce.sh: ph.x did not finish" >&2; exit 1; }
grep -E 'PWSCF .*WALL' "$run/scf.out"; grep -E 'PHONON .*WALL' "$run/ph.out" | tail -1
for f in si.fc scf.in ph.in q2r.in; do cp "$run/$f" "$out/workspace/$f"; done

mkdir -p "$out/runs/matdyn"
cp "$run/si.fc" "$out/runs/matdyn/"
for asr in crystal simple no; do
    cat > "$out/runs/matdyn/matdyn-$asr.in" <<IN
&input
  asr = '$asr'
  flfrc = 'si.fc'
  flfrq = 'freq-$asr.dat'
/
2
0.0 0.0 0.0
0.0 0.0 1.0
IN
    (cd "$out/runs/matdyn" && matdyn.x -in "matdyn-$asr.in" > "matdyn-$asr.out")
    echo "asr = $asr (cm^-1, Gamma then X):"; grep -v '[a-z&]' "$out/runs/matdyn/freq-$asr.dat" | awk 'NF == 6'
done
python3 - "$out" <<'PY'
import json, sys
from pathlib import Path

out = Path(sys.argv[1])
CM1_PER_THZ = 33.35641  # 1 THz = 33.35641 cm^-1
rows = [
    [float(x) for x in line.split()]
    for line in (out / "runs/matdyn/freq-crystal.dat").read_text().splitlines()
    if len(line.split()) == 6 and "=" not in line
]
gamma, x = sorted(rows[0]), sorted(rows[1])
gamma = [0.0 if abs(w) < 1e-3 else w for w in gamma]
values = {
    "gamma_cm1": [round(w, 2) for w in gamma],
    "X_cm1": [round(w, 2) for w in x],
    "gamma_optical_THz": round(sum(gamma[3:]) / 3 / CM1_PER_THZ, 4),
    "X_TA_THz": round(sum(x[0:2]) / 2 / CM1_PER_THZ, 4),
    "X_LA_THz": round(sum(x[2:4]) / 2 / CM1_PER_THZ, 4),
    "X_TO_THz": round(sum(x[4:6]) / 2 / CM1_PER_THZ, 4),
}
(out / "values.json").write_text(json.dumps(values, indent=2) + "\n")
print(json.dumps(values))
PY
