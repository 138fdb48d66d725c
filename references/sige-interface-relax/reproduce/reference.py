"""Reference values of sige-interface-relax, with the alternatives and traps quoted in the grader and QC.md.

Usage: reference.py OUTDIR      writes OUTDIR/values.json (reference) and OUTDIR/alternatives.json
The reference uses cells other than the oracle's: a 2x2 conventional cross-section and 48 + 48 planes
(the oracle: 1x1 and 32 + 32). LAMMPS, pair_style tersoff, SiCGe.tersoff (Si(D), Ge), a few seconds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

LMP = shutil.which("lmp") or "lmp"
POT_DIR = Path("/usr/share/lammps/potentials")
MASS = {1: 28.0855, 2: 72.63}
CUBE = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.25, 0.25, 0.25], [0.75, 0.75, 0.25],
                 [0, 0.5, 0.5], [0.5, 0, 0.5], [0.25, 0.75, 0.75], [0.75, 0.25, 0.75]])  # fmt: skip
C11_GE, C12_GE = 128.5, 48.3  # GPa, measured elastic constants of Ge (room temperature), for the recall trap


def stack(types, a_par, spacings, n=1):
    pos, typ, plane = [], [], []
    z = 0.5 * spacings[-1]
    for k, t in enumerate(types):
        for ix in range(n):
            for iy in range(n):
                for fx, fy in CUBE[[2 * (k % 4), 2 * (k % 4) + 1], :2]:
                    pos.append([(fx + ix) * a_par, (fy + iy) * a_par, z])
                    typ.append(t)
                    plane.append(k)
        z += spacings[k]
    return np.diag([n * a_par, n * a_par, sum(spacings)]), np.array(pos), np.array(typ), np.array(plane)


def minimise(work: Path, cell, pos, types, box: str | None, pair: str, ftol: float = 1e-10) -> dict:
    work.mkdir(parents=True, exist_ok=True)
    lines = ["cell", "", f"{len(pos)} atoms", "2 atom types", f"0 {cell[0, 0]:.12f} xlo xhi",
             f"0 {cell[1, 1]:.12f} ylo yhi", f"0 {cell[2, 2]:.12f} zlo zhi", "", "Masses", "",
             f"1 {MASS[1]}", f"2 {MASS[2]}", "", "Atoms # atomic", ""]  # fmt: skip
    lines += [f"{i + 1} {t} {x:.12f} {y:.12f} {z:.12f}" for i, (t, (x, y, z)) in enumerate(zip(types, pos))]
    (work / "start.data").write_text("\n".join(lines) + "\n")
    fix = f"fix r all box/relax {box} 0.0 vmax 0.0005\n" if box else ""
    unfix = "unfix r\n" if box else ""
    mini = f"minimize 1e-16 {ftol:g} 5000 50000\n"
    (work / "in.lmp").write_text(
        "units metal\nboundary p p p\natom_style atomic\natom_modify map array sort 0 0\nread_data start.data\n"
        f"{pair}\nthermo_style custom step pe lx ly lz press\n{fix}{mini}{unfix}{mini}{fix}{mini}{unfix}{mini}"
        "write_dump all custom relaxed.dump id type x y z modify sort id format float %.12f\nrun 0\n"
        'print "RESULT $(pe:%.12f) $(lx:%.12f) $(ly:%.12f) $(lz:%.12f)"\n'
    )
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=work, check=True)
    line = [ln for ln in (work / "log.lammps").read_text().splitlines() if ln.startswith("RESULT")][-1]
    pe, lx, ly, lz = (float(w) for w in line.split()[1:])
    rows = (work / "relaxed.dump").read_text().splitlines()[9:]
    z = np.array([float(r.split()[4]) for r in rows])
    return {"pe": pe, "lx": lx, "ly": ly, "lz": lz, "z": z}


def superlattice(work, a_si, c_ge, e_si, e_ge_str, n_planes, n_cells, pair, box="z", ftol=1e-10, relax=True):
    types = [1] * n_planes + [2] * n_planes
    cell, pos, typ, plane = stack(types, a_si, [a_si / 4] * n_planes + [c_ge / 4] * n_planes, n_cells)
    if relax:
        r = minimise(work, cell, pos, typ, box, pair, ftol)
    else:
        r = minimise(work, cell, pos, typ, None, pair)  # only to get the energy: see below
        r = {**r, "z": pos[:, 2], "lx": cell[0, 0], "ly": cell[1, 1], "lz": cell[2, 2]}
    zp = np.array([r["z"][plane == k].mean() for k in range(2 * n_planes)])
    d1 = zp[n_planes] - zp[n_planes - 1]
    area = r["lx"] * r["ly"]
    gamma = (r["pe"] - n_planes * 2 * n_cells**2 * (e_si + e_ge_str)) / (2 * area)
    return {"spacing": d1, "gamma_meV_A2": 1000 * gamma, "pe": r["pe"], "area": area}


def single_point(work, cell, pos, types, pair):
    work.mkdir(parents=True, exist_ok=True)
    lines = ["cell", "", f"{len(pos)} atoms", "2 atom types", f"0 {cell[0, 0]:.12f} xlo xhi",
             f"0 {cell[1, 1]:.12f} ylo yhi", f"0 {cell[2, 2]:.12f} zlo zhi", "", "Masses", "",
             f"1 {MASS[1]}", f"2 {MASS[2]}", "", "Atoms # atomic", ""]  # fmt: skip
    lines += [f"{i + 1} {t} {x:.12f} {y:.12f} {z:.12f}" for i, (t, (x, y, z)) in enumerate(zip(types, pos))]
    (work / "start.data").write_text("\n".join(lines) + "\n")
    (work / "in.lmp").write_text(
        "units metal\nboundary p p p\natom_style atomic\nread_data start.data\n"
        f"{pair}\nrun 0\n" + 'print "RESULT $(pe:%.12f)"\n'
    )
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=work, check=True)
    line = [ln for ln in (work / "log.lammps").read_text().splitlines() if ln.startswith("RESULT")][-1]
    return float(line.split()[1])


def main() -> None:
    out = Path(sys.argv[1]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    runs = out / "runs"
    shutil.copyfile(POT_DIR / "SiCGe.tersoff", out / "SiCGe.tersoff")
    pot = out / "SiCGe.tersoff"
    pair = f"pair_style tersoff\npair_coeff * * {pot} Si(D) Ge"

    def bulk(tag, t, a, c, box, p=pair):
        cell, pos, typ, _ = stack([t] * 8, a, [c / 4] * 8, 2)
        r = minimise(runs / tag, cell, pos, typ, box, p)
        return r["lx"] / 2, r["lz"] / 2, r["pe"] / len(pos)

    a_si, _, e_si = bulk("cubic-Si", 1, 5.40, 5.40, "iso")
    a_ge, _, e_ge = bulk("cubic-Ge", 2, 5.70, 5.70, "iso")
    _, c_ge, e_ge_str = bulk("strained-Ge", 2, a_si, 5.70, "z")
    ref = superlattice(runs / "sl-48-2x2", a_si, c_ge, e_si, e_ge_str, 48, 2, pair)
    values = {
        "a_Si_angstrom": a_si,
        "a_Ge_angstrom": a_ge,
        "c_Ge_strained_angstrom": c_ge,
        "Ge_strain_energy_meV_per_atom": 1000 * (e_ge_str - e_ge),
        "interface_spacing_angstrom": ref["spacing"],
        "interface_energy_meV_per_A2": ref["gamma_meV_A2"],
    }
    (out / "values.json").write_text(json.dumps(values, indent=2) + "\n")

    alt: dict[str, float] = {}
    for n, cells in ((16, 1), (32, 1), (32, 2)):
        r = superlattice(runs / f"sl-{n}-{cells}x{cells}", a_si, c_ge, e_si, e_ge_str, n, cells, pair)
        alt[f"spacing_{n}planes_{cells}x{cells}"] = r["spacing"]
        alt[f"gamma_{n}planes_{cells}x{cells}"] = r["gamma_meV_A2"]
    r = superlattice(runs / "sl-loose", a_si, c_ge, e_si, e_ge_str, 32, 1, pair, ftol=1e-6)
    alt["spacing_ftol1e-6"], alt["gamma_ftol1e-6"] = r["spacing"], r["gamma_meV_A2"]
    # traps
    alt["gamma_not_halved"] = 2 * ref["gamma_meV_A2"]
    n_ge_atoms = 48 * 2 * 4
    alt["gamma_cubic_Ge_reference"] = ref["gamma_meV_A2"] + 1000 * n_ge_atoms * (e_ge_str - e_ge) / (2 * ref["area"])
    cell, pos, typ, plane = stack([1] * 48 + [2] * 48, a_si, [a_si / 4] * 48 + [c_ge / 4] * 48, 2)
    e_unrelaxed = single_point(runs / "sl-unrelaxed", cell, pos, typ, pair)
    alt["gamma_unrelaxed"] = 1000 * (e_unrelaxed - 48 * 8 * (e_si + e_ge_str)) / (2 * ref["area"])
    alt["spacing_mean_of_bulk"] = (a_si + c_ge) / 8
    r = superlattice(runs / "sl-aniso", a_si, c_ge, e_si, e_ge_str, 32, 1, pair, box="aniso")
    alt["spacing_aniso_relaxed"], alt["gamma_aniso_relaxed"] = r["spacing"], r["gamma_meV_A2"]
    # strained Ge without relaxing c (c = a_Si) and with cubic Ge spacing
    cell, pos, typ, _ = stack([2] * 8, a_si, [a_si / 4] * 8, 2)
    alt["strain_energy_c_equal_a_Si"] = 1000 * (single_point(runs / "ge-c-aSi", cell, pos, typ, pair) / 64 - e_ge)
    # linear elasticity with the measured elastic constants of Ge (what a well-read researcher would estimate)
    eps = a_si / a_ge - 1
    alt["c_elastic_measured"] = a_ge * (1 - 2 * C12_GE / C11_GE * eps)
    y = (C11_GE + C12_GE - 2 * C12_GE**2 / C11_GE) * 1e9
    alt["strain_energy_elastic_measured"] = y * eps**2 * (a_ge * 1e-10) ** 3 / 8 / 1.602176634e-19 * 1000
    # energy-curve fits instead of box/relax: cubic a from E(a), strained c from E(c) at a = a_Si (single points)
    def curve(tag, t, a_list, c_list):
        energies = []
        for k, (a, c) in enumerate(zip(a_list, c_list)):
            cell, pos, typ, _ = stack([t] * 8, a, [c / 4] * 8, 1)
            energies.append(single_point(runs / f"{tag}-{k}", cell, pos, typ, pair) / len(pos))
        return np.array(energies)

    x = np.linspace(-0.012, 0.012, 9)  # grids centred on round numbers, minimum from the fitted quartic

    def minimum(grid, e):
        p = np.polyfit(grid, e, 4)
        roots = np.roots(np.polyder(p))
        real = roots[np.abs(roots.imag) < 1e-12].real
        best = real[np.argmin(np.abs(real - grid.mean()))]
        return float(best), float(np.polyval(p, best))

    for tag, t, centre in (("Si", 1, 5.43), ("Ge", 2, 5.66)):
        grid = centre * (1 + x)
        alt[f"a_{tag}_energy_fit"] = minimum(grid, curve(f"eos-{tag}", t, grid, grid))[0]
    grid = 5.81 * (1 + x)
    c_fit, e_fit = minimum(grid, curve("ecurve-Ge", 2, [a_si] * len(grid), grid))
    alt["c_Ge_energy_fit"] = c_fit
    alt["strain_energy_energy_fit"] = 1000 * (e_fit - e_ge)
    # other parameter sets of the Debian files (pure elements only, both atom types mapped to the one element;
    # none of them has Si-Ge entries)
    for tag, t, a, p in (("Si(B)", 1, 5.43, f"pair_style tersoff\npair_coeff * * {pot} Si(B) Si(B)"),
                         ("Si.tersoff", 1, 5.43, f"pair_style tersoff\npair_coeff * * {POT_DIR / 'Si.tersoff'} Si Si"),
                         ("Ge.tersoff", 2, 5.66, f"pair_style tersoff\npair_coeff * * {POT_DIR / 'Ge.tersoff'} Ge Ge")):  # fmt: skip
        try:
            alt[f"a_{tag}"] = bulk(f"other-{tag}", t, a, a, "iso", p)[0]
        except subprocess.CalledProcessError:
            alt[f"a_{tag}"] = float("nan")
    (out / "alternatives.json").write_text(json.dumps(alt, indent=2) + "\n")
    print(json.dumps(values, indent=2))
    print(json.dumps(alt, indent=2))


if __name__ == "__main__":
    main()
