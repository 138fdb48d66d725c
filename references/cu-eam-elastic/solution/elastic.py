"""Lattice constant, cohesive energy, cubic elastic constants and finite-strain stresses of fcc Cu with LAMMPS.

Stdlib only.

Each LAMMPS run gets its own directory under runs/. Sign and unit conventions, the usual traps:
- LAMMPS reports the pressure tensor P = -sigma (positive in compression), in bar under `units metal`;
- `change_box ... delta` is in lattice units unless `units box` is given;
- a tilt yz = gamma * lz is an engineering shear strain gamma = 2 eps_yz, and sigma_yz = C44 * gamma.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
BAR_PER_GPA = 1.0e4
STRAIN = 0.005
CELLS = 4  # 4x4x4 conventional cells: 14.5 A, more than twice the 4.95 A cutoff

HEADER = """units metal
boundary p p p
atom_style atomic
{structure}
pair_style eam
pair_coeff 1 1 {potential}
thermo_style custom step pe lx ly lz press pxx pyy pzz pyz pxz pxy
thermo_modify format float %.12g
min_modify line quadratic
"""

RELAX = """lattice fcc {a_guess}
region box block 0 {n} 0 {n} 0 {n}
create_box 1 box
create_atoms 1 box
mass 1 63.546"""

RELAX_BODY = """fix relax all box/relax iso 0.0 vmax 0.001
minimize 0 1e-12 10000 100000
unfix relax
minimize 0 1e-12 10000 100000
print "RESULT lx $(lx:%.12f) lz $(lz:%.12f) pe $(pe:%.12f) natoms $(atoms) press $(press:%.6f)"
write_data relaxed.data
"""

STRAINED_BODY = """change_box all triclinic
change_box all {change} remap units box
minimize 0 1e-12 10000 100000
print "RESULT pxx $(pxx:%.8f) pyy $(pyy:%.8f) pzz $(pzz:%.8f) pyz $(pyz:%.8f) pxz $(pxz:%.8f) pxy $(pxy:%.8f)"
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
    """Relax, strain, and print answer.json."""
    potential = Path(sys.argv[1]).resolve()
    # The lattice constant on the potential file's second line is only a starting guess for the relaxation.
    a_guess = float(potential.read_text().splitlines()[1].split()[2])
    runs = Path("runs").resolve()
    relaxed = run_lammps(
        runs / "relax",
        HEADER.format(structure=RELAX.format(a_guess=a_guess, n=CELLS), potential=potential) + RELAX_BODY,
    )
    a0 = relaxed["lx"] / CELLS
    ecoh = -relaxed["pe"] / relaxed["natoms"]
    data = runs / "relax" / "relaxed.data"

    stress: dict[tuple[str, int], dict[str, float]] = {}
    for mode in ("xx", "yz"):
        for sign in (1, -1):
            eps = sign * STRAIN
            # Uniaxial: stretch x by (1 + eps). Shear: tilt yz by gamma * lz, an engineering strain gamma = eps.
            change = f"x scale {1 + eps:.10f}" if mode == "xx" else f"yz delta {eps * relaxed['lz']:.12f}"
            header = HEADER.format(structure=f"read_data {data}", potential=potential)
            script = header + STRAINED_BODY.format(change=change)
            stress[mode, sign] = run_lammps(runs / f"{mode}{'+' if sign > 0 else '-'}", script)

    # Finite-strain points: the relaxed cube stretched by +-4% along x (box edge set with `x final`, atoms remapped
    # and relaxed at fixed cell); the Cauchy stress of the strained cell is minus its pressure tensor.
    finite: dict[str, float] = {}
    for name, eps in (("plus4", 0.04), ("minus4", -0.04)):
        header = HEADER.format(structure=f"read_data {data}", potential=potential)
        change = f"x final 0.0 {(1 + eps) * relaxed['lx']:.12f}"
        row = run_lammps(runs / f"finite-{name}", header + STRAINED_BODY.format(change=change))
        finite[f"sigma_xx_at_{name}_GPa"] = round(-row["pxx"] / BAR_PER_GPA, 4)
        finite[f"sigma_yy_at_{name}_GPa"] = round(-0.5 * (row["pyy"] + row["pzz"]) / BAR_PER_GPA, 4)

    def slope(mode: str, component: str) -> float:
        # sigma = -P; central difference over +-STRAIN; bar -> GPa.
        dp = stress[mode, 1][component] - stress[mode, -1][component]
        return -dp / (2 * STRAIN) / BAR_PER_GPA

    answer = {
        "a0_angstrom": round(a0, 6),
        "Ecoh_eV_per_atom": round(ecoh, 6),
        "C11_GPa": round(slope("xx", "pxx"), 3),
        "C12_GPa": round(0.5 * (slope("xx", "pyy") + slope("xx", "pzz")), 3),
        "C44_GPa": round(slope("yz", "pyz"), 3),
        **finite,
    }
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
