#!/usr/bin/env bash
# Oracle for si-first-principles-workflow: chain the oracles of the three steps, each in its own folder.
#   step1-scf/      si-pw-scf-inputs: a converged SCF input (its ecutwfc and k mesh are read back from pw.in)
#   step2-eos/      si-eos with those settings: seven pw.x runs +-4% around the experimental 5.431 A, BM3 fit
#   step3-phonons/  si-fd-phonons at the a0 of step 2 with the cutoff of step 1: phonopy + pw.x forces in the
#                   8-atom cube (Gamma-centred 4x4x4), frequencies at Gamma and X, Cv(300 K) per mole of atoms
# and merge the final quantities into answer.json in the current folder. About a minute of CPU on one core.
set -euo pipefail
sol="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}"
steps="$sol/steps"  # the step solutions, staged inside this folder
pseudo="$PWD/pseudo/Si.pbe-rrkj.UPF"
for d in step1-scf step2-eos step3-phonons; do mkdir -p "$d/pseudo" && cp "$pseudo" "$d/pseudo/"; done
(cd step1-scf && CMB_SOLUTION_DIR="$steps/si-pw-scf-inputs" bash "$steps/si-pw-scf-inputs/solve.sh")
read -r ecut nk < <(python3 - step1-scf/pw.in <<'PY'
import re, sys
text = open(sys.argv[1]).read()
ecut = float(re.search(r"ecutwfc\s*=\s*([\d.]+)", text, re.I).group(1))
mesh = re.search(r"K_POINTS\s*\{?automatic\}?\s*\n\s*(\d+)\s+(\d+)\s+(\d+)", text, re.I)
print(ecut, max(int(n) for n in mesh.groups()))
PY
)
echo "step 1: ecutwfc = $ecut Ry, ${nk}x${nk}x${nk} mesh"
(cd step2-eos && python3 "$steps/si-eos/eos.py" --ecut "$ecut" --k "$nk" --center 5.431 --span 0.04 --points 7)
a0=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["a0_angstrom"])' step2-eos/answer.json)
echo "step 2: a0 = $a0 A"
(cd step3-phonons && python3 "$steps/si-fd-phonons/fd_phonons.py" --a0 "$a0" --ecut "$ecut" --k 4 --mesh 20)
python3 - <<'PY'
import json

eos, ph = (json.load(open(f"{d}/answer.json")) for d in ("step2-eos", "step3-phonons"))
answer = {k: eos[k] for k in ("a0_angstrom", "B0_GPa", "E0_eV_per_atom")}
answer.update({k: ph[k] for k in ("gamma_optical_THz", "X_TA_THz", "X_LA_THz", "X_TO_THz", "Cv_300K_J_per_molK")})
json.dump(answer, open("answer.json", "w"), indent=2)
PY
cat answer.json
