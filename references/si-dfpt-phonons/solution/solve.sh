#!/usr/bin/env bash
# Oracle for si-dfpt-phonons: matdyn.x on the staged force constants with the acoustic sum rule imposed
# (asr = 'crystal'), at Gamma, X = (0, 0, 1) and L = (1/2, 1/2, 1/2) 2pi/a (Cartesian, matdyn's default), then
# cm^-1 -> THz; eps_inf from the header of si.fc; the phonon DOS on a 20x20x20 q mesh (tetrahedra) and the
# harmonic heat capacity at 100 K from it. About 15 s of CPU.
set -euo pipefail
export OMP_NUM_THREADS=1
cat > matdyn.in <<'IN'
&input
  asr = 'crystal'
  flfrc = 'si.fc'
  flfrq = 'si.freq'
/
3
0.0 0.0 0.0
0.0 0.0 1.0
0.5 0.5 0.5
IN
matdyn.x -in matdyn.in > matdyn.out
grep -q 'JOB DONE' matdyn.out || { echo "solve.sh: matdyn.x failed" >&2; tail matdyn.out >&2; exit 1; }
mkdir -p dos && cp si.fc dos/
cat > dos/matdyn.in <<'IN'
&input
  asr = 'crystal'
  flfrc = 'si.fc'
  dos = .true.
  nk1 = 20, nk2 = 20, nk3 = 20
  deltaE = 0.5
  fldos = 'si.dos'
/
IN
(cd dos && matdyn.x -in matdyn.in > matdyn.out)
grep -q 'JOB DONE' dos/matdyn.out || { echo "solve.sh: matdyn.x (dos) failed" >&2; tail dos/matdyn.out >&2; exit 1; }
python3 - <<'PY'
import json
from pathlib import Path

import numpy as np

CM1_PER_THZ = 33.35641
HC_OVER_K = 1.438776877  # cm K
R = 8.314462618  # J/(K mol)
# si.freq: a namelist header, then per wave vector one line with q and one with the six frequencies (cm^-1).
lines = Path("si.freq").read_text().splitlines()[1:]
gamma, x, lpt = (sorted(float(w) for w in lines[i].split()) for i in (1, 3, 5))
gamma = [0.0 if abs(w) < 0.01 else w for w in gamma]  # the sum rule leaves +-1e-5 numerical noise
# Header of si.fc: ntyp nat ibrav celldm(6), one line per type, one per atom, then 'T' and the dielectric tensor.
fc = Path("si.fc").read_text().splitlines()
ntyp, nat = (int(v) for v in fc[0].split()[:2])
k = 1 + ntyp + nat
assert fc[k].strip() == "T", "no dielectric tensor in si.fc"
eps = np.array([[float(v) for v in fc[k + 1 + i].split()] for i in range(3)])
# Harmonic heat capacity from the DOS, normalised to its own integral (3 modes per atom).
nu, g = np.loadtxt("dos/si.dos", comments="#", usecols=(0, 1)).T
g = np.where(nu > 0, g, 0.0)
xx = HC_OVER_K * np.where(nu > 0, nu, 1.0) / 100.0
einstein = np.where(nu > 0, xx * xx * np.exp(-xx) / (1.0 - np.exp(-xx)) ** 2, 0.0)
cv100 = 3 * R * np.trapezoid(g * einstein, nu) / np.trapezoid(g, nu)
answer = {
    "gamma_cm1": [round(w, 3) for w in gamma],
    "X_cm1": [round(w, 3) for w in x],
    "L_cm1": [round(w, 3) for w in lpt],
    "gamma_optical_THz": round(sum(gamma[3:]) / 3 / CM1_PER_THZ, 4),
    "X_TA_THz": round(sum(x[0:2]) / 2 / CM1_PER_THZ, 4),
    "X_LA_THz": round(sum(x[2:4]) / 2 / CM1_PER_THZ, 4),
    "X_TO_THz": round(sum(x[4:6]) / 2 / CM1_PER_THZ, 4),
    "eps_inf": round(float(np.trace(eps) / 3), 4),
    "Cv_100K_J_per_molK": round(float(cv100), 4),
}
Path("answer.json").write_text(json.dumps(answer, indent=2) + "\n")
print(json.dumps(answer))
PY
