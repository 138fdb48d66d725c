"""Reference quasi-harmonic thermal expansion and bulk modulus of fcc Cu (Foiles u3 EAM) at 300 K, 0 pressure.

At each lattice constant a_i: the static energy per atom from LAMMPS and the harmonic phonon free energy from
phonopy with LAMMPS forces (one directory per LAMMPS run). phonopy's PhonopyQHA (Vinet EOS) gives V(T), the
volumetric expansion coefficient and the isothermal bulk modulus B_T(T). The reference uses a 4x4x4 conventional
supercell, a 24^3 mesh and 11 lattice constants from -2% to +3% around 3.615 A; the printed record adds 2x2x2
and 3x3x3 supercells, other EOS forms and volume ranges, and an independent QHA written here with numpy only
(Birch-Murnaghan as a cubic in V^(-2/3) at each temperature, alpha by central differences in T).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from phonopy import Phonopy, PhonopyQHA
from phonopy.structure.atoms import PhonopyAtoms

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
A0 = 3.615
EV_A3_GPA = 160.21766208
KJMOL_EV = 1.0 / 96.48533212  # kJ/mol -> eV
TEMPS = np.arange(0.0, 1001.0, 10.0)
FCC = [[0, 0, 0], [0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0]]


def lammps(workdir: Path, script: str) -> Path:
    """Run one LAMMPS input in its own directory."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "in.lmp").write_text(script)
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    return workdir


def static_energy(a: float, potential: Path, runs: Path) -> float:
    """Energy per atom (eV) of the perfect crystal at lattice constant a."""
    d = lammps(
        runs / f"static-a{a:.5f}",
        f"units metal\natom_style atomic\nlattice fcc {a:.10f}\nregion b block 0 3 0 3 0 3\ncreate_box 1 b\n"
        f"create_atoms 1 box\npair_style eam\npair_coeff 1 1 {potential}\nrun 0\n"
        'print "RESULT $(pe/atoms:%.12f)"\n',
    )
    line = [ln for ln in (d / "log.lammps").read_text().splitlines() if ln.startswith("RESULT")][-1]
    return float(line.split()[1])


def forces(cell: PhonopyAtoms, workdir: Path, potential: Path) -> np.ndarray:
    """LAMMPS forces on an orthorhombic supercell."""
    lx, ly, lz = np.diag(cell.cell)
    atoms = "\n".join(f"{i} 1 {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(cell.positions, 1))
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "cell.data").write_text(
        f"phonopy supercell\n\n{len(cell)} atoms\n1 atom types\n\n0 {lx:.12f} xlo xhi\n0 {ly:.12f} ylo yhi\n"
        f"0 {lz:.12f} zlo zhi\n\nMasses\n\n1 63.546\n\nAtoms # atomic\n\n{atoms}\n"
    )
    lammps(
        workdir,
        "units metal\natom_style atomic\nread_data cell.data\n"
        f"pair_style eam\npair_coeff 1 1 {potential}\n"
        "dump f all custom 1 forces.dump id fx fy fz\ndump_modify f sort id format float %.15e\nrun 0\n",
    )
    rows = (workdir / "forces.dump").read_text().splitlines()[9:]
    return np.array([[float(v) for v in r.split()[1:4]] for r in rows])


def free_energy(a: float, n: int, mesh: int, potential: Path, runs: Path) -> tuple[np.ndarray, ...]:
    """Harmonic F (kJ/mol), S and Cv (J/K/mol) per primitive cell (one atom) on TEMPS."""
    unit = PhonopyAtoms(symbols=["Cu"] * 4, cell=np.eye(3) * a, scaled_positions=FCC)
    ph = Phonopy(unit, supercell_matrix=np.eye(3, dtype=int) * n, primitive_matrix="F")
    ph.generate_displacements(distance=0.01)
    ph.forces = [
        forces(sc, runs / f"phonon-sc{n}-a{a:.5f}-disp{i:02d}", potential)
        for i, sc in enumerate(ph.supercells_with_displacements)
    ]
    ph.produce_force_constants()
    ph.symmetrize_force_constants()
    ph.run_mesh([mesh] * 3, is_gamma_center=True)
    ph.run_thermal_properties(temperatures=TEMPS)
    tp = ph.thermal_properties
    return tp.free_energy, tp.entropy, tp.heat_capacity


def phonopy_qha(vols, energies, fe, eos="vinet", t_max=800.0) -> dict[str, float]:
    """alpha_V, B_T (GPa), V and a at 300 K from phonopy's QHA."""
    f, s, cv = (np.array(x).T for x in zip(*fe, strict=True))
    q = PhonopyQHA(
        volumes=vols,
        electronic_energies=energies,
        temperatures=TEMPS,
        free_energy=f,
        cv=cv,
        entropy=s,
        t_max=t_max,
        eos=eos,
        verbose=False,
    )
    k = int(np.argmin(abs(TEMPS - 300.0)))
    v = q.volume_temperature[k]
    return {
        "alpha_V_300K_per_K": float(q.thermal_expansion[k]),
        "B_T_300K_GPa": float(q.bulk_modulus_temperature[k]),
        "a_300K_angstrom": float((4 * v) ** (1 / 3)),
        "B_static_GPa": float(q.bulk_modulus * EV_A3_GPA),
    }


def own_qha(vols, energies, fe) -> dict[str, float]:
    """Independent QHA: BM3 (cubic in V^-2/3) fit of E + F_vib at 290, 300, 310 K; alpha by central difference."""
    v = np.array(vols)
    x = v ** (-2.0 / 3.0)
    out = {}
    for t in (290.0, 300.0, 310.0):
        k = int(np.argmin(abs(TEMPS - t)))
        g = np.array(energies) + np.array([f[0][k] for f in fe]) * KJMOL_EV
        c = np.polyfit(x, g, 3)
        d1, d2 = np.polyder(c), np.polyder(c, 2)
        roots = [r.real for r in np.roots(d1) if abs(r.imag) < 1e-12 and np.polyval(d2, r.real) > 0]
        x0 = min(roots, key=lambda r: abs(r - x.mean()))
        out[t] = (x0**-1.5, 4.0 / 9.0 * x0**3.5 * np.polyval(d2, x0) * EV_A3_GPA)
    alpha = (out[310.0][0] - out[290.0][0]) / 20.0 / out[300.0][0]
    return {
        "alpha_V_300K_per_K": alpha,
        "B_T_300K_GPa": out[300.0][1],
        "a_300K_angstrom": (4 * out[300.0][0]) ** (1 / 3),
    }


def main() -> None:
    """Print the record to stderr and the reference values as JSON to stdout."""
    warnings.simplefilter("ignore")
    potential, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    runs = out / "runs"
    a_list = A0 * (1 + np.linspace(-0.02, 0.03, 11))
    vols = [a**3 / 4 for a in a_list]
    energies = [static_energy(a, potential, runs) for a in a_list]
    print(" a (A)     V (A^3/atom)  E (eV/atom)", file=sys.stderr)
    for a, v, e in zip(a_list, vols, energies, strict=True):
        print(f" {a:.5f}  {v:.5f}  {e:.8f}", file=sys.stderr)
    results = {}
    for n in (2, 3, 4):
        t0 = time.perf_counter()
        fe = [free_energy(a, n, 24, potential, runs) for a in a_list]
        results[n] = fe
        print(f"{n}x{n}x{n} supercell ({time.perf_counter() - t0:.0f} s):", file=sys.stderr)
        for eos in ("vinet", "birch_murnaghan", "murnaghan"):
            print(f"  phonopy QHA {eos:16s} {phonopy_qha(vols, energies, fe, eos)}", file=sys.stderr)
        print(f"  own BM3 QHA (numpy)          {own_qha(vols, energies, fe)}", file=sys.stderr)
    fe = results[4]
    for lo, hi, m in ((-0.01, 0.02, 7), (-0.005, 0.005, 5), (-0.002, 0.002, 5)):
        sel = [i for i, a in enumerate(a_list) if lo - 1e-9 <= a / A0 - 1 <= hi + 1e-9]
        if len(sel) < 4:  # ranges narrower than the grid: compute them on their own grid
            sub = A0 * (1 + np.linspace(lo, hi, m))
            sv = [a**3 / 4 for a in sub]
            se = [static_energy(a, potential, runs) for a in sub]
            sf = [free_energy(a, 4, 24, potential, runs) for a in sub]
        else:
            sv, se, sf = [vols[i] for i in sel], [energies[i] for i in sel], [fe[i] for i in sel]
        try:
            r = phonopy_qha(sv, se, sf)
        except Exception as exc:  # noqa: BLE001 - a narrow range may make phonopy's QHA fail outright
            r = {"error": repr(exc)[:120]}
        print(f"  range {lo:+.3f}..{hi:+.3f} in a ({len(sv)} volumes): {r}", file=sys.stderr)
    reference = phonopy_qha(vols, energies, fe)
    json.dump(
        {
            "alpha_V_300K_per_K": float(f"{reference['alpha_V_300K_per_K']:.4e}"),
            "B_T_300K_GPa": round(reference["B_T_300K_GPa"], 2),
            "a_300K_angstrom": round(reference["a_300K_angstrom"], 5),
        },
        sys.stdout,
        indent=2,
    )
    print()


if __name__ == "__main__":
    main()
