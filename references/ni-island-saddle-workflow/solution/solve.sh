#!/usr/bin/env bash
# Oracle for ni-island-saddle-workflow, three stages in their own folders, each with the tool of its single task:
#   step-a/  the EAM climbing-image band (ni_saddle.py neb, Ni_u3.eam)
#   step-b/  the ADP climbing-image band from the same unrelaxed ends (ni_saddle.py neb, Ni.adp)
#   step-c/  the Hessian and unstable mode at the step-b saddle (ni_saddle.py certify, Ni.adp)
# then the final quantities into answer.json in the current folder. Seconds of CPU.
set -euo pipefail
steps="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/steps"
python3 "$steps/ni-island-eam-saddle/ni_saddle.py" neb Ni_u3.eam initial.data final.data step-a > /dev/null
python3 "$steps/ni-island-adp-saddle/ni_saddle.py" neb Ni.adp initial.data final.data step-b > /dev/null
python3 "$steps/ni-island-saddle-certification/ni_saddle.py" certify Ni.adp step-b/saddle.data initial.data final.data step-c > /dev/null
python3 - <<'PY'
import json
a, b, c = (json.load(open(f)) for f in ("step-a/neb.json", "step-b/neb.json", "step-c/certify.json"))
answer = {"eam_forward_barrier_eV": a["forward_barrier_eV"], "adp_forward_barrier_eV": b["forward_barrier_eV"],
          "adp_reverse_barrier_eV": b["reverse_barrier_eV"], "n_negative_modes": c["n_negative_eigenvalues"],
          "unstable_mode_frequency_THz": c["unstable_mode_frequency_THz"]}
json.dump(answer, open("answer.json", "w"), indent=1)
PY
cat answer.json
