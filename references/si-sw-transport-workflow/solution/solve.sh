#!/usr/bin/env bash
# Oracle for si-sw-transport-workflow: chain the oracles of the three steps, each in its own folder.
#   step1-lattice/   si-sw-lattice: diamond and beta-tin with SW and Tersoff (LAMMPS box/relax)
#   step2-phonons/   si-sw-phonons at the SW a0 of step 1 (phonopy + LAMMPS forces)
#   step3-kappa/     si-sw-kappa at the same a0 with the prescribed settings (phono3py + LAMMPS, RTA and LBTE)
# and merge the final quantities into answer.json in the current folder. About a minute on one core.
set -euo pipefail
sol="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}"
steps="$sol/steps"  # the step solutions, staged inside this folder
mkdir -p step1-lattice step2-phonons step3-kappa
cp Si.sw Si.tersoff step1-lattice/
cp Si.sw step2-phonons/
cp Si.sw step3-kappa/
(cd step1-lattice && python3 "$steps/si-sw-lattice/lattice.py" > answer.json)
a0=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["sw_a0_angstrom"])' step1-lattice/answer.json)
(cd step2-phonons && python3 "$steps/si-sw-phonons/phonons.py" "$a0" > answer.json)
(cd step3-kappa && python3 "$steps/si-sw-kappa/kappa.py" "$a0" > answer.json)
python3 - <<'PY'
import json
lattice, phonons, kappa = (json.load(open(f"{d}/answer.json")) for d in ("step1-lattice", "step2-phonons", "step3-kappa"))
answer = {k: lattice[k] for k in ("sw_a0_angstrom", "sw_dE_betasn_eV_per_atom", "tersoff_dE_betasn_eV_per_atom")}
answer |= {k: phonons[k] for k in ("Gamma_optical_THz", "X_TA_THz")}
answer |= kappa
json.dump(answer, open("answer.json", "w"), indent=2)
PY
cat answer.json
