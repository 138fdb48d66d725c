#!/usr/bin/env bash
# Oracle for cu-lammps-npt-inputs: find the zero-pressure lattice constant of the potential at 1100 K with a short
# NPT run of the 864-atom crystal (10 ps equilibration, 40 ps averaging, 2 fs; about 20 s of CPU), write cu.data
# (6x6x6 conventional cells at that lattice constant, box from the origin) and an in.lmp that differs on purpose
# from the reference input set (1 fs timestep, damping written through variables and $(...) formulas, aniso
# coupling, an equilibration and a production run, 60 ps in all), so that passing shows the grader compares
# effective settings, not text. A 200-step smoke run then checks that LAMMPS accepts both files.
set -euo pipefail
command -v lmp >/dev/null || { echo "solve.sh: the oracle needs LAMMPS (lmp) to find the lattice constant" >&2; exit 1; }
[[ -f Cu_u3.eam ]] || { echo "solve.sh: Cu_u3.eam is not in the working folder" >&2; exit 1; }
probe=$(mktemp -d)
cp Cu_u3.eam "$probe/"
cat > "$probe/npt.in" <<'LMP'
units           metal
atom_style      atomic
lattice         fcc 3.615
region          box block 0 6 0 6 0 6
create_box      1 box
create_atoms    1 box
pair_style      eam
pair_coeff      1 1 Cu_u3.eam
timestep        0.002
velocity        all create 1100.0 59117 mom yes rot yes dist gaussian
fix             md all npt temp 1100.0 1100.0 0.2 iso 0.0 0.0 2.0
thermo          50
thermo_style    custom step temp press vol
run             5000
reset_timestep  0
run             20000
LMP
(cd "$probe" && OMP_NUM_THREADS=1 lmp -in npt.in -log log.lammps -screen none)
a=$(python3 - "$probe/log.lammps" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
start = [i for i, ln in enumerate(lines) if ln.split()[:1] == ["Step"]][-1]
col = lines[start].split().index("Volume")
vols = []
for ln in lines[start + 1:]:
    if ln.startswith("Loop time"):
        break
    vols.append(float(ln.split()[col]))
print(f"{(4 * sum(vols) / len(vols) / 864) ** (1 / 3):.3f}")  # to 1 mA, well inside the 0.1% asked
PY
)
rm -rf "$probe"
echo "zero-pressure lattice constant at 1100 K: $a A" >&2
python3 - "$a" <<'PY'
import sys
a, n = float(sys.argv[1]), 6
basis = [(0.0, 0.0, 0.0), (0.0, 0.5, 0.5), (0.5, 0.0, 0.5), (0.5, 0.5, 0.0)]
sites = [((i + u) * a, (j + v) * a, (k + w) * a)
         for i in range(n) for j in range(n) for k in range(n) for (u, v, w) in basis]
lines = [f"fcc Cu, 6x6x6 conventional cells at a = {a} A (its zero-pressure value at 1100 K)", "",
         f"{len(sites)} atoms", "1 atom types", ""]
lines += [f"0.0 {n * a:.6f} {d}lo {d}hi" for d in "xyz"]
lines += ["", "Masses", "", "1 63.546", "", "Atoms # atomic", ""]
lines += [f"{i} 1 {x:.6f} {y:.6f} {z:.6f}" for i, (x, y, z) in enumerate(sites, start=1)]
with open("cu.data", "w") as f:
    f.write("\n".join(lines) + "\n")
PY
cat > in.lmp <<'LMP'
# NPT equilibration of fcc Cu at 1100 K, 0 bar; EAM potential of Foiles, Baskes and Daw (funcfl file).
# cu.data holds the crystal at its zero-pressure lattice constant at 1100 K.
variable        T equal 1100.0
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
tmp=$(mktemp -d)
cp in.lmp cu.data Cu_u3.eam "$tmp/"
(cd "$tmp" && OMP_NUM_THREADS=1 lmp -in in.lmp -var nequil 100 -var nprod 100 -log log.lammps -screen none) \
    || { echo "solve.sh: LAMMPS rejected in.lmp" >&2; exit 1; }
grep -A2 '^ *Step' "$tmp/log.lammps" | tail -2
rm -rf "$tmp"
