#!/usr/bin/env bash
# Oracle for cu-thermomechanics-workflow: chain the oracles of the three steps, each in its own folder.
#   step1-elastic/   cu-eam-elastic: relax fcc Cu, a0 and C11, C12, C44 from +-0.5% strains (LAMMPS)
#   step2-phonons/   cu-phonons at the a0 of step 1: phonopy + LAMMPS forces, Cv(300 K) per mole of atoms
#   step3-qha/       cu-qha: quasi-harmonic alpha_V, B_T and a at 300 K (phonopy + LAMMPS, seven volumes)
# and merge the final quantities into answer.json in the current folder. A minute or two on one core.
set -euo pipefail
sol="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}"
steps="$sol/steps"  # the step solutions, staged inside this folder
potential="$PWD/Cu_u3.eam"
mkdir -p step1-elastic step2-phonons step3-qha
(cd step1-elastic && python3 "$steps/cu-eam-elastic/elastic.py" "$potential" > answer.json)
a0=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["a0_angstrom"])' step1-elastic/answer.json)
(cd step2-phonons && python3 "$steps/cu-phonons/phonons.py" "$potential" "$a0" > answer.json)
(cd step3-qha && python3 "$steps/cu-qha/qha.py" "$potential" > answer.json)
python3 - <<'PY'
import json
elastic, phonons, qha = (json.load(open(f"{d}/answer.json")) for d in ("step1-elastic", "step2-phonons", "step3-qha"))
answer = {k: elastic[k] for k in ("C11_GPa", "C12_GPa", "C44_GPa")}
answer["Cv_300K_J_per_K_mol"] = phonons["Cv_300K_J_per_K_mol"]
answer.update({k: qha[k] for k in ("alpha_V_300K_per_K", "B_T_300K_GPa", "a_300K_angstrom")})
json.dump(answer, open("answer.json", "w"), indent=2)
PY
cat answer.json
