#!/usr/bin/env bash
# Oracle for sige-interface-workflow, three stages in their own folders:
#   step-a/  relax cubic Si, strained Ge and the staged intermixed superlattice and build the force-constant blocks
#            (build_device.py, LAMMPS with the staged SiCGe.tersoff; the relaxations of sige-interface-relax)
#   step-b/  the mode-resolved AGF transmission of sige-agf-transmission on those blocks
#   step-c/  the specularity of sige-reflection-specularity on the same blocks
# then the final quantities into answer.json in the current folder. About a minute of CPU.
set -euo pipefail
sol="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}"
steps="$sol/steps"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
mkdir -p step-a step-b step-c
cp SiCGe.tersoff sige_intermixed.data step-a/
(cd step-a && python3 "$sol/build_device.py" sige_intermixed.data sige_device.h5 > step-a.json)
(cd step-b && python3 "$steps/sige-agf-transmission/transmission.py" ../step-a/sige_device.h5 > answer.json)
(cd step-c && python3 "$steps/sige-reflection-specularity/specularity.py" ../step-a/sige_device.h5 > answer.json)
python3 - <<'PY'
import json
a = json.load(open("step-a/step-a.json"))
b = json.load(open("step-b/answer.json"))
c = json.load(open("step-c/answer.json"))
answer = {"c_Ge_strained_angstrom": a["c_Ge_strained_angstrom"], "transmission": {k: b[k] for k in ("frequencies_THz", "n_Si", "n_Ge", "Xi")},
          "reflection": {k: c[k] for k in ("frequencies_THz", "p_all", "n_0", "R_0", "p_0")}}
json.dump(answer, open("answer.json", "w"), indent=1)
PY
cat answer.json
