#!/usr/bin/env bash
# Oracle for sige-interface-relax: LAMMPS relaxations with the staged SiCGe.tersoff (elements Si(D) and Ge):
# cubic Si and Ge, coherently strained Ge, and a 32 + 32 plane superlattice in the 1x1 cell; answer.json in the
# current folder. Seconds of CPU.
set -euo pipefail
python3 "${CMB_SOLUTION_DIR:?CMB_SOLUTION_DIR must point at this solution folder}/relax.py" > answer.json
cat answer.json
