"""Forces on many displaced copies of one supercell from a single LAMMPS run (`rerun` over a dump file)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"


def _write_data(path: Path, cell: np.ndarray, positions: np.ndarray, mass: float) -> None:
    # LAMMPS needs a lower-triangular cell; the cells here are orthogonal supercells of the cube.
    if np.abs(cell - np.diag(np.diag(cell))).max() > 1e-10:
        raise ValueError("only orthogonal supercells are handled here")
    lx, ly, lz = np.diag(cell)
    lines = [
        "supercell",
        "",
        f"{len(positions)} atoms",
        "1 atom types",
        f"0 {lx:.12f} xlo xhi",
        f"0 {ly:.12f} ylo yhi",
        f"0 {lz:.12f} zlo zhi",
        "",
        "Masses",
        "",
        f"1 {mass}",
        "",
        "Atoms # atomic",
        "",
    ]
    lines += [f"{i + 1} 1 {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(positions)]
    path.write_text("\n".join(lines) + "\n")


def _write_frames(path: Path, cell: np.ndarray, frames: list[np.ndarray]) -> None:
    lx, ly, lz = np.diag(cell)
    out: list[str] = []
    for step, pos in enumerate(frames):
        out += [
            "ITEM: TIMESTEP",
            str(step),
            "ITEM: NUMBER OF ATOMS",
            str(len(pos)),
            "ITEM: BOX BOUNDS pp pp pp",
            f"0 {lx:.12f}",
            f"0 {ly:.12f}",
            f"0 {lz:.12f}",
            "ITEM: ATOMS id x y z",
        ]
        out += [f"{i + 1} {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(pos)]
    path.write_text("\n".join(out) + "\n")


def forces(
    workdir: Path, cell: np.ndarray, frames: list[np.ndarray], pair_style: str, potential: Path, mass: float = 28.0855
) -> np.ndarray:
    """Forces (eV/A), shape (n_frames, n_atoms, 3), for Cartesian positions `frames` in one periodic cell."""
    workdir.mkdir(parents=True, exist_ok=True)
    _write_data(workdir / "supercell.data", cell, frames[0], mass)
    _write_frames(workdir / "displaced.dump", cell, frames)
    (workdir / "in.lmp").write_text(
        "units metal\nboundary p p p\natom_style atomic\natom_modify map array\n"
        "read_data supercell.data\n"
        f"pair_style {pair_style}\npair_coeff * * {potential} Si\n"
        "dump f all custom 1 forces.dump id fx fy fz\n"
        "dump_modify f sort id format float %.15g\n"
        "rerun displaced.dump dump x y z box no\n"
    )
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    n = len(frames[0])
    lines = (workdir / "forces.dump").read_text().splitlines()
    out = np.empty((len(frames), n, 3))
    block = n + 9
    if len(lines) != block * len(frames):
        raise RuntimeError(f"{workdir}: forces.dump has {len(lines)} lines, expected {block * len(frames)}")
    for k in range(len(frames)):
        rows = lines[k * block + 9 : (k + 1) * block]
        out[k] = np.array([[float(w) for w in r.split()[1:4]] for r in rows])
    return out
