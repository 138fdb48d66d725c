#!/usr/bin/env bash
# Oracle for si-dfpt-phonons: matdyn.x on the staged force constants with the acoustic sum rule imposed
# (asr = 'crystal'), at Gamma and X = (0, 0, 1) 2pi/a (Cartesian, matdyn's default), then cm^-1 -> THz.
set -euo pipefail
cat > matdyn.in <<'IN'
&input
  asr = 'crystal'
  flfrc = 'si.fc'
  flfrq = 'si.freq'
/
2
0.0 0.0 0.0
0.0 0.0 1.0
IN
OMP_NUM_THREADS=1 matdyn.x -in matdyn.in > matdyn.out
grep -q 'JOB DONE' matdyn.out || { echo "solve.sh: matdyn.x failed" >&2; tail matdyn.out >&2; exit 1; }
python3 - <<'PY'
import json
from pathlib import Path

CM1_PER_THZ = 33.35641
# si.freq: a namelist header, then per wave vector one line with q and one with the six frequencies (cm^-1).
lines = Path("si.freq").read_text().splitlines()[1:]
gamma, x = (sorted(float(w) for w in lines[i].split()) for i in (1, 3))
gamma = [0.0 if abs(w) < 0.01 else w for w in gamma]  # the sum rule leaves +-1e-5 numerical noise
answer = {
    "gamma_cm1": [round(w, 3) for w in gamma],
    "X_cm1": [round(w, 3) for w in x],
    "gamma_optical_THz": round(sum(gamma[3:]) / 3 / CM1_PER_THZ, 4),
    "X_TA_THz": round(sum(x[0:2]) / 2 / CM1_PER_THZ, 4),
    "X_LA_THz": round(sum(x[2:4]) / 2 / CM1_PER_THZ, 4),
    "X_TO_THz": round(sum(x[4:6]) / 2 / CM1_PER_THZ, 4),
}
Path("answer.json").write_text(json.dumps(answer, indent=2) + "\n")
print(json.dumps(answer))
PY
