"""Reference Gamma and X frequencies of diamond Si with the Stillinger-Weber potential.

Route 1 (the reference values, no phonopy): relax the cube in LAMMPS, displace one atom of each sublattice by
+-h along x, y, z in a 3x3x3 supercell of the cube (216 atoms), build the force constants by central
differences, and diagonalise the 6x6 dynamical matrix of the two-atom primitive cell at Gamma and at
X = (2 pi / a0)(1, 0, 0) by a direct lattice sum (minimum-image vectors; SW reaches second neighbours only).
Route 2 (cross-check): phonopy with a 2x2x2 supercell and its default 0.03 A displacement.
Mode Grueneisen parameters gamma = -d ln(nu) / d ln(V): route 1 at a0 (1 +- 0.5%), central differences (and
+-1% for the record).
Writes OUTDIR/values.json and one directory per LAMMPS run under OUTDIR/runs/.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
MASS = 28.0855
# sqrt(eV / (A^2 amu)) in rad/s, divided by 2 pi and 1e12: THz
THZ = np.sqrt(1.602176634e-19 / 1e-20 / 1.66053906660e-27) / (2 * np.pi) / 1e12
CUBE = np.array(
    [
        [0, 0, 0],
        [0, 0.5, 0.5],
        [0.5, 0, 0.5],
        [0.5, 0.5, 0],
        [0.25, 0.25, 0.25],
        [0.25, 0.75, 0.75],
        [0.75, 0.25, 0.75],
        [0.75, 0.75, 0.25],
    ]
)


def run(workdir: Path, script: str) -> str:
    """Run LAMMPS in its own directory, return its log."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "in.lmp").write_text(script)
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    return (workdir / "log.lammps").read_text()


def relax(out: Path, potential: Path) -> float:
    """Zero-pressure a0 of the 4x4x4 cube."""
    log = run(
        out / "runs" / "relax",
        "units metal\nboundary p p p\natom_style atomic\nlattice diamond 5.40\nregion box block 0 4 0 4 0 4\n"
        f"create_box 1 box\ncreate_atoms 1 box\nmass 1 {MASS}\npair_style sw\npair_coeff * * {potential} Si\n"
        "thermo_style custom step pe lx press\nfix r all box/relax iso 0.0 vmax 0.0005\n"
        "minimize 1e-16 1e-12 20000 200000\nunfix r\nminimize 1e-16 1e-12 20000 200000\n"
        'print "RESULT $(lx/4:%.12f)"\n',
    )
    return float([ln for ln in log.splitlines() if ln.startswith("RESULT")][-1].split()[1])


def supercell(a0: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Cell (3x3) and Cartesian positions of the n x n x n supercell of the cube, cube by cube."""
    cells = np.array([[i, j, k] for i in range(n) for j in range(n) for k in range(n)])
    frac = (cells[:, None, :] + CUBE[None, :, :]).reshape(-1, 3) / n
    cell = np.eye(3) * a0 * n
    return cell, frac @ cell


def lammps_forces(workdir: Path, cell: np.ndarray, frames: list[np.ndarray], potential: Path) -> np.ndarray:
    """Forces for each frame: one LAMMPS run per frame (plain and slow, but independent of the oracle's rerun)."""
    out = []
    length = cell[0, 0]
    for k, pos in enumerate(frames):
        d = workdir / f"frame{k:02d}"
        d.mkdir(parents=True, exist_ok=True)
        atoms = "\n".join(f"{i + 1} 1 {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(pos))
        (d / "cell.data").write_text(
            f"frame {k}\n\n{len(pos)} atoms\n1 atom types\n0 {length:.12f} xlo xhi\n"
            f"0 {length:.12f} ylo yhi\n0 {length:.12f} zlo zhi\n\nMasses\n\n1 {MASS}\n\n"
            f"Atoms # atomic\n\n{atoms}\n"
        )
        run(
            d,
            "units metal\nboundary p p p\natom_style atomic\natom_modify map array\nread_data cell.data\n"
            f"pair_style sw\npair_coeff * * {potential} Si\n"
            "dump f all custom 1 forces.dump id fx fy fz\ndump_modify f sort id format float %.15g\nrun 0\n",
        )
        rows = (d / "forces.dump").read_text().splitlines()[9:]
        out.append(np.array([[float(w) for w in r.split()[1:4]] for r in rows]))
    return np.array(out)


def direct_route(out: Path, potential: Path, a0: float, h: float = 0.005, tag: str = "direct") -> dict[str, float]:
    """Route 1: force constants by central differences and a direct lattice sum."""
    n = 3
    cell, pos = supercell(a0, n)
    movers = [0, 4]  # atom 0: sublattice A at (0,0,0); atom 4: sublattice B at (1/4,1/4,1/4)a0
    frames = []
    for s in movers:
        for alpha in range(3):
            for sign in (1, -1):
                p = pos.copy()
                p[s, alpha] += sign * h
                frames.append(p)
    f = lammps_forces(out / "runs" / tag, cell, frames, potential).reshape(2, 3, 2, len(pos), 3)
    phi = -(f[:, :, 0] - f[:, :, 1]) / (2 * h)  # phi[s, alpha, j, beta]
    sublattice = np.array([0 if i % 8 < 4 else 1 for i in range(len(pos))])
    length = a0 * n

    def frequencies(q: np.ndarray) -> np.ndarray:
        dyn = np.zeros((6, 6), complex)
        for si, s in enumerate(movers):
            r = pos - pos[s]
            r -= length * np.round(r / length)  # minimum image
            phase = np.exp(1j * r @ q)
            for t in (0, 1):
                mask = sublattice == t
                block = np.einsum("ajb,j->ab", phi[si][:, mask, :], phase[mask])
                dyn[3 * si : 3 * si + 3, 3 * t : 3 * t + 3] = block / MASS
        dyn = 0.5 * (dyn + dyn.conj().T)
        w2 = np.linalg.eigvalsh(dyn)
        return np.sign(w2) * np.sqrt(np.abs(w2)) * THZ

    g = frequencies(np.zeros(3))
    x = frequencies(np.array([2 * np.pi / a0, 0.0, 0.0]))
    print(f"direct route at a = {a0:.6f} A: Gamma {np.round(g, 4)}, X {np.round(x, 4)} THz")
    return {
        "a0_angstrom": a0,
        "Gamma_optical_THz": float(g[3:].mean()),
        "X_TA_THz": float(x[:2].mean()),
        "X_LA_THz": float(x[2:4].mean()),
        "X_TO_THz": float(x[4:].mean()),
    }


GRUNEISEN_STRAIN = 0.005  # lattice constants a0 (1 +- 0.5%) for the mode Grueneisen parameters


def gruneisen(out: Path, potential: Path, a0: float, s: float = GRUNEISEN_STRAIN) -> dict[str, float]:
    """gamma = -d ln(nu) / d ln(V) at a0, central differences of the direct route at a0 (1 +- s)."""
    plus = direct_route(out, potential, a0 * (1 + s), tag=f"direct-a{1 + s:.4f}")
    minus = direct_route(out, potential, a0 * (1 - s), tag=f"direct-a{1 - s:.4f}")
    dlnv = 3 * np.log((1 + s) / (1 - s))
    return {
        key.replace("_THz", "").replace("Gamma_optical", "gamma_Gamma_optical").replace("X_", "gamma_X_"):
        -float(np.log(plus[key] / minus[key]) / dlnv)
        for key in ("Gamma_optical_THz", "X_TA_THz", "X_LA_THz", "X_TO_THz")
    }


def phonopy_route(out: Path, potential: Path, a0: float) -> dict[str, float]:
    """Route 2: phonopy, 2x2x2 supercell, 0.03 A."""
    from phonopy import Phonopy
    from phonopy.structure.atoms import PhonopyAtoms

    unit = PhonopyAtoms(symbols=["Si"] * 8, cell=np.eye(3) * a0, scaled_positions=CUBE, masses=[MASS] * 8)
    ph = Phonopy(unit, supercell_matrix=np.eye(3, dtype=int) * 2, primitive_matrix="F")
    ph.generate_displacements(distance=0.03)
    scs = ph.supercells_with_displacements
    ph.forces = lammps_forces(out / "runs" / "phonopy", scs[0].cell, [s.positions for s in scs], potential)
    ph.produce_force_constants()
    ph.run_qpoints([np.zeros(3), ph.primitive.cell @ np.array([1 / a0, 0, 0])])
    g, x = np.sort(ph.qpoints.frequencies, axis=1)
    return {
        "a0_angstrom": a0,
        "Gamma_optical_THz": float(g[3:].mean()),
        "X_TA_THz": float(x[:2].mean()),
        "X_LA_THz": float(x[2:4].mean()),
        "X_TO_THz": float(x[4:].mean()),
    }


def main() -> None:
    """Both routes; values.json from the direct route."""
    potential, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    a0 = relax(out, potential)
    ref = direct_route(out, potential, a0)
    modes = gruneisen(out, potential, a0)
    wide = gruneisen(out, potential, a0, 0.01)
    for key, value in modes.items():
        print(f"{key:24s} {value:+.4f}   (+-1% in a: {wide[key]:+.4f})")
    experiment_gamma = {"gamma_Gamma_optical": 0.98, "gamma_X_TA": -1.4}
    for key, value in experiment_gamma.items():
        print(f"{key:24s} experiment ~{value:+.2f}")
    ref |= {"gamma_Gamma_optical": modes["gamma_Gamma_optical"], "gamma_X_TA": modes["gamma_X_TA"]}
    try:
        check = phonopy_route(out, potential, a0)
    except ImportError:
        check = None
        print("phonopy not available: cross-check skipped")
    experiment = {"Gamma_optical_THz": 15.53, "X_TA_THz": 4.49, "X_LA_THz": 12.32, "X_TO_THz": 13.90}
    for key, value in ref.items():
        if key.startswith("gamma_"):
            continue
        extra = f"   phonopy {check[key]:.4f} ({check[key] / value - 1:+.2e})" if check else ""
        exp = f"   experiment ~{experiment[key]} ({experiment[key] / value - 1:+.1%})" if key in experiment else ""
        print(f"{key:20s} {value:.5f}{extra}{exp}")
    (out / "values.json").write_text(json.dumps(ref, indent=2) + "\n")


if __name__ == "__main__":
    main()
