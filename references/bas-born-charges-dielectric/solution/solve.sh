#!/usr/bin/env bash
# Oracle for bas-born-charges-dielectric: dynmat.x on the staged Gamma dynamical matrix with the acoustic sum
# rule on the force constants and the Born charges (asr = 'crystal'), once per isotope (amass) and once per
# limit: q -> 0 along [100] for the LO mode. eps_inf and Z* from bas.dyn (charge neutrality imposed by
# subtracting the mean); eps_0 from the Lyddane-Sachs-Teller relation.
set -euo pipefail
for iso in 11 10; do
    mass=$([[ $iso == 11 ]] && echo 11.0093 || echo 10.0129)
    cat > "dynmat-$iso.in" <<IN
&input
  fildyn = 'bas.dyn'
  asr = 'crystal'
  amass(1) = $mass
  amass(2) = 74.9216
  q(1) = 1.0, q(2) = 0.0, q(3) = 0.0
  filout = 'dynmat-$iso.modes'
/
IN
    dynmat.x < "dynmat-$iso.in" > "dynmat-$iso.out" 2>&1
    grep -q 'JOB DONE' "dynmat-$iso.out" || { echo "solve.sh: dynmat.x failed" >&2; tail "dynmat-$iso.out" >&2; exit 1; }
done
python3 "$CMB_SOLUTION_DIR/dielectric.py"
