#!/usr/bin/env bash
# Oracle for si-sw-md-inputs: write in.lmp for NVT MD of diamond Si with the staged Stillinger-Weber potential
# at 500 K, as an expert would, in a form that differs on purpose from the reference input set (variables, a
# damping written as 100 timesteps through $(100*dt), velocities for 500 K with a different seed) so that passing
# shows that the grader reads effective settings, not text. If LAMMPS is installed, runs 20 steps of it as a
# smoke test (a few seconds).
set -euo pipefail
cat > in.lmp <<'LMP'
# Diamond Si, Stillinger-Weber, NVT (Nose-Hoover) at 500 K for 50 ps
variable        T      equal 500.0
variable        nsteps equal 50000

units           metal              # eV, angstrom, ps: the units of Si.sw
atom_style      atomic
boundary        p p p

lattice         diamond 5.431      # cubic lattice constant in angstrom (metal units)
region          cell block 0 6 0 6 0 6
create_box      1 cell             # one atom type ...
create_atoms    1 box
mass            1 28.0855

pair_style      sw
pair_coeff      * * Si.sw Si       # ... mapped to the one element of the file

timestep        0.001              # 1 fs in ps
velocity        all create ${T} 87287 dist gaussian mom yes rot yes
fix             thermostat all nvt temp ${T} ${T} $(100.0*dt)

thermo_style    custom step temp pe etotal press
thermo          500
run             ${nsteps}
LMP
if command -v lmp >/dev/null && [[ -f Si.sw ]]; then
    tmp=$(mktemp -d)
    sed 's/^run .*/run 20/' in.lmp > "$tmp/in.lmp"
    cp Si.sw "$tmp/"
    (cd "$tmp" && lmp -in in.lmp -log log.lammps -screen none) || { echo "solve.sh: LAMMPS rejected in.lmp" >&2; exit 1; }
    rm -rf "$tmp"
fi
cat in.lmp
