"""Reference a0, cohesive energy and C11, C12, C44 of fcc Cu with the Foiles u3 EAM potential.

Stress route: LAMMPS, P = -sigma in bar, six strains per mode, least-squares slope; the finite-strain points are
the Cauchy stresses sigma_xx and sigma_yy (= sigma_zz) of the relaxed cell stretched by +-4% along x.
Energy route (cross-check only): ASE's EAM calculator, curvature of E(strain) of the 4-atom cube.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
EV_A3_GPA = 160.21766208
BAR_PER_GPA = 1.0e4
CELLS = 5
STRAINS = (-0.01, -0.005, -0.0025, 0.0025, 0.005, 0.01)
FINITE = {"plus4": 0.04, "minus4": -0.04}  # uniaxial strains of the finite-strain points

COMMON = """units metal
boundary p p p
atom_style atomic
{structure}
pair_style eam
pair_coeff 1 1 {potential}
thermo_style custom step pe press pxx pyy pzz pyz pxz pxy
thermo_modify format float %.12g
min_modify line quadratic
"""


def lammps(workdir: Path, script: str) -> dict[str, float]:
    """Run LAMMPS in its own directory; return the RESULT line's numbers."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "in.lmp").write_text(script)
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    line = [ln for ln in (workdir / "log.lammps").read_text().splitlines() if ln.startswith("RESULT")][-1]
    tokens = line.split()[1:]
    return {k: float(v) for k, v in zip(tokens[::2], tokens[1::2], strict=True)}


def stress_route(potential: Path, out: Path) -> dict[str, float]:
    """a0, Ecoh, C11, C12, C44 from LAMMPS."""
    relax = COMMON.format(
        structure=f"lattice fcc 3.6\nregion box block 0 {CELLS} 0 {CELLS} 0 {CELLS}\ncreate_box 1 box\n"
        "create_atoms 1 box\nmass 1 63.546",
        potential=potential,
    ) + (
        "fix relax all box/relax iso 0.0 vmax 0.001\nminimize 0 1e-10 1000 10000\nunfix relax\n"
        "minimize 0 1e-10 1000 10000\n"
        'print "RESULT lx $(lx:%.12f) lz $(lz:%.12f) pe $(pe:%.12f) natoms $(atoms) press $(press:%.8f)"\n'
        "write_data relaxed.data\n"
    )
    r = lammps(out / "runs" / "relax", relax)
    data = (out / "runs" / "relax" / "relaxed.data").resolve()
    p: dict[str, list[dict[str, float]]] = {"xx": [], "yz": []}
    for mode in p:
        for eps in STRAINS:
            change = f"x scale {1 + eps:.12f}" if mode == "xx" else f"yz delta {eps * r['lz']:.12f}"
            script = COMMON.format(structure=f"read_data {data}", potential=potential) + (
                f"change_box all triclinic\nchange_box all {change} remap units box\n"
                "minimize 0 1e-10 1000 10000\n"
                'print "RESULT pxx $(pxx:%.8f) pyy $(pyy:%.8f) pzz $(pzz:%.8f) pyz $(pyz:%.8f)"\n'
            )
            p[mode].append(lammps(out / "runs" / f"{mode}{eps:+.4f}", script))
    finite = {}
    for name, eps_f in FINITE.items():
        script = COMMON.format(structure=f"read_data {data}", potential=potential) + (
            f"change_box all x scale {1 + eps_f:.12f} remap units box\n"
            "minimize 0 1e-10 1000 10000\n"
            'print "RESULT pxx $(pxx:%.8f) pyy $(pyy:%.8f) pzz $(pzz:%.8f) pyz $(pyz:%.8f)"\n'
        )
        row = lammps(out / "runs" / f"finite-xx{eps_f:+.2f}", script)
        finite[f"sigma_xx_at_{name}_GPa"] = -row["pxx"] / BAR_PER_GPA
        finite[f"sigma_yy_at_{name}_GPa"] = -0.5 * (row["pyy"] + row["pzz"]) / BAR_PER_GPA
    eps = np.array(STRAINS)

    def slope(mode: str, comp: str) -> float:
        sigma = -np.array([row[comp] for row in p[mode]]) / BAR_PER_GPA
        return float(np.polyfit(eps, sigma, 1)[0])

    return {
        "a0_angstrom": r["lx"] / CELLS,
        "Ecoh_eV_per_atom": -r["pe"] / r["natoms"],
        "C11_GPa": slope("xx", "pxx"),
        "C12_GPa": 0.5 * (slope("xx", "pyy") + slope("xx", "pzz")),
        "C44_GPa": slope("yz", "pyz"),
        **finite,
    }


def energy_route(potential: Path, a0: float) -> dict[str, float]:
    """C11, C12, C44 from E(strain) curvatures with ASE's EAM implementation."""
    from ase.build import bulk
    from ase.calculators.eam import EAM

    calc = EAM(potential=str(potential))
    cube = bulk("Cu", "fcc", a=a0, cubic=True)
    vol = cube.get_volume()
    s = np.array([-0.01, -0.005, 0.0, 0.005, 0.01])

    def curvature(strain_of: object) -> float:
        energies = []
        for x in s:
            atoms = cube.copy()
            atoms.calc = calc
            atoms.set_cell(cube.cell.array @ (np.eye(3) + strain_of(x)).T, scale_atoms=True)  # type: ignore[operator]
            energies.append(atoms.get_potential_energy())
        return float(2 * np.polyfit(s, energies, 4)[2] / vol * EV_A3_GPA)

    def shear(x: float) -> np.ndarray:
        m = np.zeros((3, 3))
        m[1, 2] = m[2, 1] = x / 2  # engineering shear x = 2 eps_yz
        return m

    c11 = curvature(lambda x: np.diag([x, 0.0, 0.0]))
    c_vol = curvature(lambda x: np.diag([x, x, x]))  # = 3 C11 + 6 C12
    return {"C11_GPa": c11, "C12_GPa": (c_vol - 3 * c11) / 6, "C44_GPa": curvature(shear)}


def main() -> None:
    """Run both routes, print them, and write the reference values to OUTDIR/values.json."""
    potential, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    t0 = time.perf_counter()
    ref = stress_route(potential, out)
    t1 = time.perf_counter()
    print(f"LAMMPS stress route ({t1 - t0:.1f} s, 15 runs):")
    for k, v in ref.items():
        print(f"  {k}: {v:.6f}")
    # keyed like reference.yaml, rounded as committed there
    digits = {"a0_angstrom": 5, "Ecoh_eV_per_atom": 5, "C11_GPa": 2, "C12_GPa": 2, "C44_GPa": 2}
    digits |= {k: 4 for k in ref if k.startswith("sigma_")}
    (out / "values.json").write_text(json.dumps({k: round(ref[k], n) for k, n in digits.items()}, indent=2) + "\n")
    try:
        check = energy_route(potential, ref["a0_angstrom"])
    except ImportError:
        print("ASE not available: energy-route cross-check skipped")
        return
    print("ASE EAM energy route (cross-check):")
    for k, v in check.items():
        print(f"  {k}: {v:.3f}  ({100 * (v / ref[k] - 1):+.2f}% vs LAMMPS)")
    print("Linear extrapolation C_ij * eps of the finite-strain points (what linear elasticity predicts):")
    for name, eps_f in FINITE.items():
        for comp, c in (("xx", ref["C11_GPa"]), ("yy", ref["C12_GPa"])):
            key = f"sigma_{comp}_at_{name}_GPa"
            print(f"  {key}: {c * eps_f:.4f}  ({100 * (c * eps_f / ref[key] - 1):+.1f}% vs computed {ref[key]:.4f})")


if __name__ == "__main__":
    main()
