"""Diamond and beta-tin Si with the Stillinger-Weber and Tersoff potentials in LAMMPS (stdlib only).

For each potential: relax the diamond cube at zero pressure (box/relax iso), then relax the body-centred
tetragonal beta-tin cell with its two lattice lengths free (box/relax aniso) from the high-pressure cell, and
check that it stayed beta-tin (c/a near 0.55; diamond in the same tetragonal setting has c/a = sqrt 2).
Each LAMMPS run gets its own directory under runs/.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
POTENTIALS = {"sw": "Si.sw", "tersoff": "Si.tersoff"}

# beta-tin (I4_1/amd, Si on 4a): the 4-atom conventional cell, fractional coordinates
BETA_TIN_BASIS = ((0, 0, 0), (0.5, 0.5, 0.5), (0, 0.5, 0.25), (0.5, 0, 0.75))

SCRIPT = """units metal
boundary p p p
atom_style atomic
{lattice}
region box block 0 {nx} 0 {nx} 0 {nz}
create_box 1 box
create_atoms 1 box
mass 1 28.0855
pair_style {style}
pair_coeff * * {potential} Si
thermo_style custom step pe lx ly lz press pxx pyy pzz
thermo_modify format float %.12g
fix relax all box/relax {coupling} 0.0 vmax 0.001
minimize 1e-14 1e-10 10000 100000
unfix relax
minimize 1e-14 1e-10 10000 100000
print "RESULT lx $(lx:%.12f) ly $(ly:%.12f) lz $(lz:%.12f) pe $(pe:%.12f) natoms $(atoms) press $(press:%.6f)"
"""


def run_lammps(workdir: Path, script: str) -> dict[str, float]:
    """Run one LAMMPS input in its own directory and return the numbers of its RESULT line."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "in.lmp").write_text(script)
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    lines = [ln for ln in (workdir / "log.lammps").read_text().splitlines() if ln.startswith("RESULT")]
    if not lines:
        raise SystemExit(f"{workdir}: LAMMPS printed no RESULT line")
    tokens = lines[-1].split()[1:]
    return {k: float(v) for k, v in zip(tokens[::2], tokens[1::2], strict=True)}


def main() -> None:
    """Relax both phases with both potentials and print answer.json."""
    workspace = Path.cwd()
    runs = workspace / "runs"
    answer: dict[str, float] = {}
    for style, filename in POTENTIALS.items():
        potential = workspace / filename
        n = 3
        diamond = run_lammps(
            runs / f"{style}-diamond",
            SCRIPT.format(lattice="lattice diamond 5.43", nx=n, nz=n, style=style, potential=potential, coupling="iso"),
        )
        a0 = diamond["lx"] / n
        e_diamond = diamond["pe"] / diamond["natoms"]
        # beta-tin from the cell observed near the transition pressure, a = 4.69, c = 2.59 A; 4 x 4 x 8 cells
        a_start, c_start = 4.69, 2.59
        basis = " ".join(f"basis {x} {y} {z}" for x, y, z in BETA_TIN_BASIS)
        lattice = f"lattice custom 1.0 a1 {a_start} 0 0 a2 0 {a_start} 0 a3 0 0 {c_start} {basis}"
        tin = run_lammps(
            runs / f"{style}-beta-tin",
            SCRIPT.format(lattice=lattice, nx=4, nz=8, style=style, potential=potential, coupling="aniso"),
        )
        a_tin, b_tin, c_tin = tin["lx"] / 4, tin["ly"] / 4, tin["lz"] / 8
        if abs(a_tin - b_tin) > 1e-6 or not 0.4 < c_tin / a_tin < 0.7:
            raise SystemExit(f"{style}: beta-tin did not stay body-centred tetragonal: a={a_tin} b={b_tin} c={c_tin}")
        e_tin = tin["pe"] / tin["natoms"]
        answer |= {
            f"{style}_a0_angstrom": round(a0, 6),
            f"{style}_Ecoh_eV_per_atom": round(-e_diamond, 6),
            f"{style}_betasn_a_angstrom": round(a_tin, 6),
            f"{style}_betasn_c_angstrom": round(c_tin, 6),
            f"{style}_dE_betasn_eV_per_atom": round(e_tin - e_diamond, 6),
        }
        print(
            f"{style}: diamond a0 {a0:.5f} A E {e_diamond:.5f} eV/atom; beta-tin a {a_tin:.5f} c {c_tin:.5f} "
            f"c/a {c_tin / a_tin:.4f} (diamond would be {math.sqrt(2):.4f}), dE {e_tin - e_diamond:.5f} eV/atom",
            file=sys.stderr,
        )
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
