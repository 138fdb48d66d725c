#!/usr/bin/env bash
# Oracle for ni-island-model: relax the fcc and hcp islands, the bare slab and the single adatoms with the staged
# Ni_u3.eam (cg, bottom two layers fixed), bulk Ni from a 3x3x3 cubic cell (ni_island.py, LAMMPS on one core);
# answer.json in the current folder. A few seconds of CPU.
set -euo pipefail
sol="${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}"
OMP_NUM_THREADS=1 python3 "$sol/ni_island.py" Ni_u3.eam initial.data final.data island > /dev/null
python3 - <<'PY'
import json
r = json.load(open("island/island.json"))
keys = ("island_hcp_minus_fcc_meV", "adatom_hcp_minus_fcc_meV", "binding_energy_eV_per_atom",
        "excess_energy_eV_per_atom", "island_height_A")
json.dump({k: r[k] for k in keys}, open("answer.json", "w"), indent=1)
PY
cat answer.json
