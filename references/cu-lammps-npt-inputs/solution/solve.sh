#!/usr/bin/env bash
# Oracle for cu-lammps-npt-inputs: write cu.data (7x7x7 conventional fcc cells, 1372 atoms, at a = 3.63 A, close
# to the 300 K lattice constant so that the barostat has little to do) and an in.lmp that differs on purpose from
# the reference input set (1 fs timestep, damping written through variables and $(...) formulas, aniso coupling,
# an equilibration and a production run, 60 ps in all), so that passing shows the grader compares effective
# settings, not text. When lmp is at hand, a 200-step smoke run checks that LAMMPS accepts both files.
set -euo pipefail
python3 - <<'PY'
a, n = 3.63, 7
basis = [(0.0, 0.0, 0.0), (0.0, 0.5, 0.5), (0.5, 0.0, 0.5), (0.5, 0.5, 0.0)]
sites = [((i + u) * a, (j + v) * a, (k + w) * a)
         for i in range(n) for j in range(n) for k in range(n) for (u, v, w) in basis]
lines = ["fcc Cu, 7x7x7 conventional cells, a = 3.63 A", "", f"{len(sites)} atoms", "1 atom types", ""]
lines += [f"0.0 {n * a:.6f} {d}lo {d}hi" for d in "xyz"]
lines += ["", "Masses", "", "1 63.546", "", "Atoms # atomic", ""]
lines += [f"{i} 1 {x:.6f} {y:.6f} {z:.6f}" for i, (x, y, z) in enumerate(sites, start=1)]
with open("cu.data", "w") as f:
    f.write("\n".join(lines) + "\n")
PY
cat > in.lmp <<'LMP'
# NPT equilibration of fcc Cu at 300 K, 0 bar; EAM potential of Foiles, Baskes and Daw (funcfl file)
variable        T equal 300.0
variable        nequil index 20000
variable        nprod index 40000

units           metal
boundary        p p p
atom_style      atomic
read_data       cu.data
pair_style      eam
pair_coeff      * * Cu_u3.eam

timestep        0.001                       # ps (1 fs)
neighbor        2.0 bin
neigh_modify    every 1 delay 0 check yes

velocity        all create ${T} 20251 dist gaussian mom yes rot yes
fix             integrate all npt temp ${T} ${T} $(100.0*dt) aniso 0.0 0.0 $(1000.0*dt)

thermo          500
thermo_style    custom step time temp press vol lx ly lz pe etotal

run             ${nequil}
run             ${nprod}
LMP
if command -v lmp >/dev/null && [[ -f Cu_u3.eam ]]; then
    tmp=$(mktemp -d)
    cp in.lmp cu.data Cu_u3.eam "$tmp/"
    (cd "$tmp" && OMP_NUM_THREADS=1 lmp -in in.lmp -var nequil 100 -var nprod 100 -log log.lammps -screen none) \
        || { echo "solve.sh: LAMMPS rejected in.lmp" >&2; exit 1; }
    grep -A2 '^Step' "$tmp/log.lammps" | tail -2
    rm -rf "$tmp"
fi
