#!/usr/bin/env bash
# Oracle for ni-island-adp-saddle: relax both end states and run a 7-replica climbing-image NEB (quickmin) with the
# staged Ni.adp, pair_style adp (ni_saddle.py, LAMMPS under mpirun); answer.json in the current folder. Seconds of CPU.
set -euo pipefail
sol="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}"
python3 "$sol/ni_saddle.py" neb Ni.adp initial.data final.data neb > /dev/null
python3 - <<'PY'
import json
r = json.load(open("neb/neb.json"))
json.dump({k: r[k] for k in ("forward_barrier_eV", "reverse_barrier_eV", "reaction_energy_eV")}, open("answer.json", "w"), indent=1)
PY
cat answer.json
