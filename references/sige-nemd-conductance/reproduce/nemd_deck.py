"""Input deck of the precomputed NEMD run of sige-nemd-conductance (step nemd-conductance).

Usage: nemd_deck.py OUTDIR [--steps-eq N] [--steps-settle N] [--steps-prod N] [--block N]
Writes OUTDIR/sige.data (the coherent Si/Ge(001) superlattice, 2x2 conventional cells in the plane, NSI + NGE
(001) planes, the 0 K cell of sige-interface-relax: a = a_Si in the plane, Si planes a_Si/4 apart, Ge planes
c_Ge/4 apart, the two interface spacings at the relaxed value) and OUTDIR/in.nemd (the LAMMPS deck).
Atom ids run plane by plane (8 atoms a plane), so a plane's index is floor((id-1)/8).
"""

from __future__ import annotations

import argparse
from pathlib import Path

A_SI = 5.432005  # A, cubic Si with Tersoff 1989 (references/sige-interface-relax/reference.yaml)
C_GE = 5.814537  # A, Ge strained to a_Si in the plane, c relaxed
D_INT = 1.407359  # A, Si-Ge plane spacing at the relaxed interface
MASS = {1: 28.0855, 2: 72.63}
NSI, NGE = 40, 40  # (001) planes of each element: 10 conventional cells each
NCELL = 2  # 2x2 conventional cross-section, 8 atoms per plane
HOT = range(18, 22)  # four Si planes in the middle of the Si layer (one conventional cell)
COLD = range(58, 62)  # four Ge planes in the middle of the Ge layer
SITES = [(0.0, 0.0), (0.5, 0.5), (0.25, 0.25), (0.75, 0.75), (0.0, 0.5), (0.5, 0.0), (0.25, 0.75), (0.75, 0.25)]
T_HOT, T_COLD, DAMP, DT = 330.0, 270.0, 0.1, 0.001  # K, K, ps, ps


def structure() -> tuple[list[float], list[tuple[int, int, float, float, float]], float]:
    """Plane heights, atoms (id, type, x, y, z) and the box length along z."""
    spacings = [A_SI / 4] * (NSI - 1) + [D_INT] + [C_GE / 4] * (NGE - 1) + [D_INT]
    z, heights = 0.5 * A_SI / 4, []
    for s in spacings:
        heights.append(z)
        z += s
    lz = sum(spacings)
    atoms = []
    for k, h in enumerate(heights):
        t = 1 if k < NSI else 2
        for ix in range(NCELL):
            for iy in range(NCELL):
                for fx, fy in SITES[2 * (k % 4) : 2 * (k % 4) + 2]:
                    atoms.append((len(atoms) + 1, t, (fx + ix) * A_SI, (fy + iy) * A_SI, h))
    return heights, atoms, lz


def write(out: Path, steps_eq: int, steps_settle: int, steps_prod: int, block: int, seed: int = 4928) -> None:
    out.mkdir(parents=True, exist_ok=True)
    heights, atoms, lz = structure()
    lx = NCELL * A_SI
    lines = ["Si/Ge(001) superlattice, 2x2 conventional cells, 40 Si + 40 Ge planes (Tersoff 1989 0 K cell)", "",
             f"{len(atoms)} atoms", "2 atom types", f"0 {lx:.10f} xlo xhi", f"0 {lx:.10f} ylo yhi",
             f"0 {lz:.10f} zlo zhi", "", "Masses", "", f"1 {MASS[1]}", f"2 {MASS[2]}", "", "Atoms # atomic", ""]  # fmt: skip
    lines += [f"{i} {t} {x:.8f} {y:.8f} {z:.8f}" for i, t, x, y, z in atoms]
    (out / "sige.data").write_text("\n".join(lines) + "\n")
    npl = 8  # atoms a plane
    hot = f"{HOT[0] * npl + 1}:{(HOT[-1] + 1) * npl}"
    cold = f"{COLD[0] * npl + 1}:{(COLD[-1] + 1) * npl}"
    nrep = block // 10
    deck = f"""# NEMD of the coherent Si/Ge(001) superlattice, Tersoff (1989) potential, LAMMPS 29 Sep 2021
# Hot slab: Si planes {HOT[0]}-{HOT[-1]} (atom ids {hot}), Langevin {T_HOT:g} K; cold slab: Ge planes {COLD[0]}-{COLD[-1]}
# (ids {cold}), Langevin {T_COLD:g} K; damping {DAMP:g} ps; all atoms integrated with fix nve.
# Planes are numbered 0-{NSI + NGE - 1} along z (0-{NSI - 1} Si, {NSI}-{NSI + NGE - 1} Ge); plane k holds atom ids 8k+1 ... 8k+8.
units metal
boundary p p p
atom_style atomic
atom_modify map array
read_data sige.data
pair_style tersoff
pair_coeff * * SiCGe.tersoff Si(D) Ge
timestep {DT:g}

group hot id {hot}
group cold id {cold}
variable plane atom floor((id-1)/8)+1
compute layer all chunk/atom v_plane nchunk once ids once compress no

velocity all create 300.0 {seed} mom yes rot no dist gaussian
fix integrate all nve

# equilibration at 300 K everywhere (velocity rescaling of the whole cell, then free NVE)
fix eq all temp/berendsen 300.0 300.0 0.1
thermo 1000
thermo_style custom step temp pe etotal press
run {steps_eq // 2}
unfix eq
run {steps_eq - steps_eq // 2}

# NEMD: Langevin thermostats on the two slabs, tallying the energy they remove from their atoms (eV, cumulative)
reset_timestep 0
fix thot hot langevin {T_HOT:g} {T_HOT:g} {DAMP:g} {seed + 1} tally yes zero yes
fix tcold cold langevin {T_COLD:g} {T_COLD:g} {DAMP:g} {seed + 2} tally yes zero yes
compute Thot hot temp
compute Tcold cold temp
thermo 1000
thermo_style custom step time temp c_Thot c_Tcold pe etotal f_thot f_tcold
thermo_modify format float %.8g
# settling of the gradient (not analysed)
run {steps_settle}

# production: plane temperatures averaged over blocks of {block} steps ({block * DT:g} ps), sampled every 10 steps
reset_timestep 0
fix thot hot langevin {T_HOT:g} {T_HOT:g} {DAMP:g} {seed + 3} tally yes zero yes
fix tcold cold langevin {T_COLD:g} {T_COLD:g} {DAMP:g} {seed + 4} tally yes zero yes
fix profile all ave/chunk 10 {nrep} {block} layer temp norm sample ave one file temp_profile.dat
run {steps_prod}
"""
    (out / "in.nemd").write_text(deck)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("out", type=Path)
    p.add_argument("--steps-eq", type=int, default=40000)
    p.add_argument("--steps-settle", type=int, default=150000)
    p.add_argument("--steps-prod", type=int, default=1600000)
    p.add_argument("--block", type=int, default=50000)
    a = p.parse_args()
    write(a.out, a.steps_eq, a.steps_settle, a.steps_prod, a.block)


if __name__ == "__main__":
    main()
