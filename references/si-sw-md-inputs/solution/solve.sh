#!/usr/bin/env bash
# Oracle for si-sw-md-inputs: find the zero-pressure lattice constant of SW Si at 500 K with a short NPT run of
# the 1728-atom crystal (5 ps equilibration, 10 ps averaging, 1 fs; about 20 s of CPU), then write in.lmp for the
# NVT run at that lattice constant, as an expert would, in a form that differs on purpose from the reference input
# set (variables, a damping written as 100 timesteps through $(100*dt), velocities for 500 K with a different seed)
# so that passing shows that the grader reads effective settings, not text. A 20-step smoke run checks that LAMMPS
# accepts the script.
set -euo pipefail
command -v lmp >/dev/null || { echo "solve.sh: the oracle needs LAMMPS (lmp) to find the lattice constant" >&2; exit 1; }
[[ -f Si.sw ]] || { echo "solve.sh: Si.sw is not in the working folder" >&2; exit 1; }
probe=$(mktemp -d)
cp Si.sw "$probe/"
cat > "$probe/npt.in" <<'LMP'
units           metal
atom_style      atomic
lattice         diamond 5.431
region          box block 0 6 0 6 0 6
create_box      1 box
create_atoms    1 box
mass            1 28.0855
pair_style      sw
pair_coeff      * * Si.sw Si
timestep        0.001
velocity        all create 500.0 31337 mom yes rot yes dist gaussian
fix             md all npt temp 500.0 500.0 0.1 iso 0.0 0.0 1.0
thermo          20
thermo_style    custom step temp press lx
run             5000
reset_timestep  0
run             10000
LMP
(cd "$probe" && OMP_NUM_THREADS=1 lmp -in npt.in -log log.lammps -screen none)
a=$(python3 - "$probe/log.lammps" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
start = [i for i, ln in enumerate(lines) if ln.split()[:1] == ["Step"]][-1]
col = lines[start].split().index("Lx")
lx = []
for ln in lines[start + 1:]:
    if ln.startswith("Loop time"):
        break
    lx.append(float(ln.split()[col]))
print(f"{sum(lx) / len(lx) / 6:.5f}")
PY
)
rm -rf "$probe"
echo "zero-pressure lattice constant of SW Si at 500 K: $a A" >&2
cat > in.lmp <<LMP
# Diamond Si, Stillinger-Weber, NVT (Nose-Hoover) at 500 K for 50 ps, at the zero-pressure volume of 500 K
variable        T      equal 500.0
variable        nsteps equal 50000

units           metal              # eV, angstrom, ps: the units of Si.sw
atom_style      atomic
boundary        p p p

lattice         diamond $a    # zero-pressure lattice constant at 500 K (NPT MD), angstrom
region          cell block 0 6 0 6 0 6
create_box      1 cell             # one atom type ...
create_atoms    1 box
mass            1 28.0855

pair_style      sw
pair_coeff      * * Si.sw Si       # ... mapped to the one element of the file

timestep        0.001              # 1 fs in ps
velocity        all create \${T} 87287 dist gaussian mom yes rot yes
fix             thermostat all nvt temp \${T} \${T} \$(100.0*dt)

thermo_style    custom step temp pe etotal press
thermo          500
run             \${nsteps}
LMP
tmp=$(mktemp -d)
sed 's/^run .*/run 20/' in.lmp > "$tmp/in.lmp"
cp Si.sw "$tmp/"
(cd "$tmp" && lmp -in in.lmp -log log.lammps -screen none) || { echo "solve.sh: LAMMPS rejected in.lmp" >&2; exit 1; }
rm -rf "$tmp"
cat in.lmp
