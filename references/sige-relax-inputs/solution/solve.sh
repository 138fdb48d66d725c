#!/usr/bin/env bash
# Oracle for sige-relax-inputs: write in.lmp for the coherent relaxation of the staged sige.data (types 1 = Ge,
# 2 = Si as ASE wrote them), deliberately different in form from the reference input set (variables, a second
# box relaxation, its own tolerances), and smoke-run it when LAMMPS is installed.
set -euo pipefail
cat > in.lmp <<'LMP'
# Coherent Si/Ge(001) superlattice: atoms and the [001] period relaxed, in-plane lattice kept at Si's
variable        ftol equal 1.0e-10
units           metal
boundary        p p p
atom_style      atomic
read_data       sige.data
mass            1 72.630     # Ge (ASE's alphabetical type order)
mass            2 28.0855    # Si
pair_style      tersoff
pair_coeff      * * SiCGe.tersoff Ge Si(D)
neighbor        2.0 bin
thermo          100
thermo_style    custom step pe lx ly lz press pzz fnorm
fix             cell all box/relax z 0.0 vmax 0.0005 nreset 50
minimize        1.0e-14 ${ftol} 5000 50000
minimize        1.0e-14 ${ftol} 5000 50000
unfix           cell
min_modify      line quadratic
minimize        0.0 ${ftol} 5000 50000
write_data      relaxed.data
LMP
if command -v lmp > /dev/null 2>&1; then
  lmp -in in.lmp -log log.lammps -screen none
  grep -q "Masses" relaxed.data
fi
