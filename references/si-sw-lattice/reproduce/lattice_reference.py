"""Reference values of si-sw-lattice: diamond and beta-tin Si with Stillinger-Weber and Tersoff (LAMMPS).

Route 1 (the reference values): zero-pressure relaxations, box/relax iso for the diamond cube (4x4x4 cells,
512 atoms) and box/relax aniso for beta-tin (5x5x10 conventional cells, 1000 atoms, started from a = 4.8,
c = 2.6 A), tight tolerances.
Route 2 (cross-check): energy scans at fixed fractional coordinates (every atom of both structures sits on a
site without free parameters, so scaling the cell is exact): E(a) of the 8-atom cube fitted by a quartic, and
E(a, c) of the 4-atom beta-tin cell on a 9x9 grid fitted by a full quartic in (a, c).
Writes OUTDIR/values.json (keys of reference.yaml) and one directory per LAMMPS run under OUTDIR/runs/.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
BASIS = {
    "diamond": (
        (0, 0, 0),
        (0, 0.5, 0.5),
        (0.5, 0, 0.5),
        (0.5, 0.5, 0),
        (0.25, 0.25, 0.25),
        (0.25, 0.75, 0.75),
        (0.75, 0.25, 0.75),
        (0.75, 0.75, 0.25),
    ),
    "beta-tin": ((0, 0, 0), (0.5, 0.5, 0.5), (0, 0.5, 0.25), (0.5, 0, 0.75)),
}

HEAD = """units metal
boundary p p p
atom_style atomic
"""


def lattice(kind: str, a: float, c: float) -> str:
    """A LAMMPS lattice command for the conventional cell of `kind`."""
    basis = " ".join(f"basis {x} {y} {z}" for x, y, z in BASIS[kind])
    return f"lattice custom 1.0 a1 {a:.10f} 0 0 a2 0 {a:.10f} 0 a3 0 0 {c:.10f} {basis}"


def body(style: str, potential: Path, nx: int, nz: int) -> str:
    """Box, atoms and potential."""
    return (
        f"region box block 0 {nx} 0 {nx} 0 {nz}\ncreate_box 1 box\ncreate_atoms 1 box\nmass 1 28.0855\n"
        f"pair_style {style}\npair_coeff * * {potential} Si\n"
        "thermo_style custom step pe lx ly lz press pxx pyy pzz\nthermo_modify format float %.14g\n"
    )


def lammps(workdir: Path, script: str) -> list[dict[str, float]]:
    """Run LAMMPS in its own directory; every RESULT line's numbers."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "in.lmp").write_text(script)
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    rows = []
    for line in (workdir / "log.lammps").read_text().splitlines():
        if line.startswith("RESULT"):
            tokens = line.split()[1:]
            rows.append({k: float(v) for k, v in zip(tokens[::2], tokens[1::2], strict=True)})
    return rows


def relax(out: Path, style: str, potential: Path) -> dict[str, float]:
    """Route 1: box/relax of both phases."""
    result = 'print "RESULT lx $(lx:%.12f) ly $(ly:%.12f) lz $(lz:%.12f) pe $(pe:%.12f) n $(atoms)"\n'
    minimize = "minimize 1e-16 1e-12 20000 200000\n"
    d = lammps(
        out / "runs" / f"{style}-diamond-relax",
        HEAD
        + lattice("diamond", 5.40, 5.40)
        + "\n"
        + body(style, potential, 4, 4)
        + f"fix r all box/relax iso 0.0 vmax 0.0005\n{minimize}unfix r\n{minimize}"
        + result,
    )[-1]
    t = lammps(
        out / "runs" / f"{style}-beta-tin-relax",
        HEAD
        + lattice("beta-tin", 4.8, 2.6)
        + "\n"
        + body(style, potential, 5, 10)
        + f"fix r all box/relax aniso 0.0 vmax 0.0005\n{minimize}unfix r\n{minimize}"
        + result,
    )[-1]
    a_t, c_t = t["lx"] / 5, t["lz"] / 10
    if not 0.4 < c_t / a_t < 0.7:
        raise SystemExit(f"{style}: beta-tin relaxed to c/a = {c_t / a_t:.3f}, not beta-tin")
    e_d, e_t = d["pe"] / d["n"], t["pe"] / t["n"]
    return {
        f"{style}_a0_angstrom": d["lx"] / 4,
        f"{style}_Ecoh_eV_per_atom": -e_d,
        f"{style}_betasn_a_angstrom": a_t,
        f"{style}_betasn_c_angstrom": c_t,
        f"{style}_dE_betasn_eV_per_atom": e_t - e_d,
    }


def scans(out: Path, style: str, potential: Path, ref: dict[str, float]) -> dict[str, float]:
    """Route 2: energy scans at fixed fractional coordinates around the relaxed cells."""
    a0 = ref[f"{style}_a0_angstrom"]
    lines = []
    for a in np.linspace(0.98 * a0, 1.02 * a0, 9):
        lines.append(
            f"clear\n{HEAD}{lattice('diamond', a, a)}\n{body(style, potential, 1, 1)}run 0\n"
            f'print "RESULT a {a:.10f} e $(pe/atoms:%.14f)"\n'
        )
    rows = lammps(out / "runs" / f"{style}-diamond-scan", "".join(lines))
    a = np.array([r["a"] for r in rows])
    e = np.array([r["e"] for r in rows])
    p = np.polyfit(a - a0, e, 4)
    fine = np.linspace(-0.02 * a0, 0.02 * a0, 40001)
    i = int(np.argmin(np.polyval(p, fine)))
    a_d, e_d = a0 + fine[i], float(np.polyval(p, fine[i]))

    at, ct = ref[f"{style}_betasn_a_angstrom"], ref[f"{style}_betasn_c_angstrom"]
    grid = list(itertools.product(np.linspace(0.985, 1.015, 9), repeat=2))
    lines = []
    for sa, sc in grid:
        lines.append(
            f"clear\n{HEAD}{lattice('beta-tin', sa * at, sc * ct)}\n{body(style, potential, 2, 3)}run 0\n"
            f'print "RESULT a {sa * at:.10f} c {sc * ct:.10f} e $(pe/atoms:%.14f)"\n'
        )
    rows = lammps(out / "runs" / f"{style}-beta-tin-scan", "".join(lines))
    x = np.array([r["a"] - at for r in rows])
    y = np.array([r["c"] - ct for r in rows])
    e = np.array([r["e"] for r in rows])
    terms = [(i, j) for i in range(5) for j in range(5) if i + j <= 4]
    coef = np.linalg.lstsq(np.array([x**i * y**j for i, j in terms]).T, e, rcond=None)[0]

    def energy(v: np.ndarray) -> float:
        return float(sum(cf * v[0] ** i * v[1] ** j for cf, (i, j) in zip(coef, terms, strict=True)))

    v = np.zeros(2)
    for _ in range(50):  # Newton steps on the fitted surface
        h = 1e-5
        g = np.array([(energy(v + h * u) - energy(v - h * u)) / (2 * h) for u in np.eye(2)])
        hess = np.array(
            [
                [
                    (
                        energy(v + h * u + h * w)
                        - energy(v + h * u - h * w)
                        - energy(v - h * u + h * w)
                        + energy(v - h * u - h * w)
                    )
                    / (4 * h * h)
                    for w in np.eye(2)
                ]
                for u in np.eye(2)
            ]
        )
        v = v - np.linalg.solve(hess, g)
    return {
        f"{style}_a0_angstrom": a_d,
        f"{style}_Ecoh_eV_per_atom": -e_d,
        f"{style}_betasn_a_angstrom": at + v[0],
        f"{style}_betasn_c_angstrom": ct + v[1],
        f"{style}_dE_betasn_eV_per_atom": energy(v) - e_d,
    }


def traps(out: Path, style: str, potential: Path, ref: dict[str, float]) -> None:
    """Print what the careless routes give: beta-tin unrelaxed at the high-pressure cell, or relaxed iso."""
    result = 'print "RESULT lx $(lx:%.12f) lz $(lz:%.12f) e $(pe/atoms:%.12f)"\n'
    fixed = lammps(
        out / "runs" / f"{style}-beta-tin-unrelaxed",
        HEAD + lattice("beta-tin", 4.69, 2.59) + "\n" + body(style, potential, 2, 4) + "run 0\n" + result,
    )[-1]
    iso = lammps(
        out / "runs" / f"{style}-beta-tin-iso",
        HEAD
        + lattice("beta-tin", 4.69, 2.59)
        + "\n"
        + body(style, potential, 2, 4)
        + "fix r all box/relax iso 0.0 vmax 0.001\nminimize 1e-16 1e-12 20000 200000\n"
        + result,
    )[-1]
    e_d = -ref[f"{style}_Ecoh_eV_per_atom"]
    print(f"  trap, beta-tin unrelaxed at a = 4.69, c = 2.59 A: dE = {fixed['e'] - e_d:.4f} eV/atom")
    print(
        f"  trap, beta-tin relaxed iso (c/a kept 0.552): a = {iso['lx'] / 2:.4f}, c = {iso['lz'] / 4:.4f} A, "
        f"dE = {iso['e'] - e_d:.4f} eV/atom"
    )


def main() -> None:
    """Both routes for both potentials; values.json from route 1."""
    workspace, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    values: dict[str, float] = {}
    for style in ("sw", "tersoff"):
        potential = workspace / f"Si.{style}"
        t0 = time.perf_counter()
        ref = relax(out, style, potential)
        check = scans(out, style, potential, ref)
        print(f"{style} ({time.perf_counter() - t0:.1f} s): box/relax value, energy-scan value, difference")
        for key, value in ref.items():
            print(f"  {key:32s} {value:12.6f} {check[key]:12.6f} {check[key] - value:+.1e}")
        traps(out, style, potential, ref)
        values |= ref
    (out / "values.json").write_text(json.dumps(values, indent=2) + "\n")


if __name__ == "__main__":
    main()
