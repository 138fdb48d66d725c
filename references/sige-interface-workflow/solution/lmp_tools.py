"""LAMMPS helpers for the Si/Ge(001) study: diamond cells, Tersoff relaxations, finite-difference force constants."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
MASS = {"Si": 28.0855, "Ge": 72.63}
NAME = {"Si": "Si(D)", "Ge": "Ge"}  # element names of SiCGe.tersoff (Tersoff 1989)
# conventional diamond cube, fractional; planes z = 0, 1/4, 1/2, 3/4
CUBE = np.array(
    [[0, 0, 0], [0.5, 0.5, 0], [0.25, 0.25, 0.25], [0.75, 0.75, 0.25],
     [0, 0.5, 0.5], [0.5, 0, 0.5], [0.25, 0.75, 0.75], [0.75, 0.25, 0.75]]
)  # fmt: skip


def write_data(path: Path, cell: np.ndarray, pos: np.ndarray, types: np.ndarray, comment: str = "Si/Ge") -> None:
    """Orthogonal cell only; type 1 = Si, type 2 = Ge."""
    lx, ly, lz = np.diag(cell)
    lines = [comment, "", f"{len(pos)} atoms", "2 atom types", f"0 {lx:.12f} xlo xhi", f"0 {ly:.12f} ylo yhi",
             f"0 {lz:.12f} zlo zhi", "", "Masses", "", f"1 {MASS['Si']}", f"2 {MASS['Ge']}", "", "Atoms # atomic", ""]  # fmt: skip
    lines += [f"{i + 1} {t} {x:.12f} {y:.12f} {z:.12f}" for i, (t, (x, y, z)) in enumerate(zip(types, pos))]
    path.write_text("\n".join(lines) + "\n")


def read_data(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lines = path.read_text().splitlines()
    box = {}
    for ln in lines:
        w = ln.split()
        if len(w) == 4 and w[2] in ("xlo", "ylo", "zlo"):
            box[w[2][0]] = float(w[1]) - float(w[0])
    start = next(i for i, ln in enumerate(lines) if ln.startswith("Atoms")) + 2
    rows = []
    for ln in lines[start:]:
        w = ln.split()
        if len(w) < 5:
            break
        rows.append([int(w[0]), int(w[1]), float(w[2]), float(w[3]), float(w[4])])
    rows.sort()
    arr = np.array(rows)
    return np.diag([box["x"], box["y"], box["z"]]), arr[:, 2:5], arr[:, 1].astype(int)


def pair_lines(potential: Path) -> str:
    return f"pair_style tersoff\npair_coeff * * {potential} {NAME['Si']} {NAME['Ge']}\n"


def run(workdir: Path, script: str) -> str:
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "in.lmp").write_text(script)
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    return (workdir / "log.lammps").read_text()


def result_line(log: str) -> list[float]:
    line = [ln for ln in log.splitlines() if ln.startswith("RESULT")][-1]
    return [float(w) for w in line.split()[1:]]


def relax(workdir: Path, cell: np.ndarray, pos: np.ndarray, types: np.ndarray, potential: Path,
          box: str = "z") -> tuple[np.ndarray, np.ndarray, float]:  # fmt: skip
    """Minimise atoms and the box (box = 'iso', 'aniso', 'z' or 'none'); returns cell, positions, energy (eV)."""
    workdir.mkdir(parents=True, exist_ok=True)
    write_data(workdir / "start.data", cell, pos, types)
    fix = {"iso": "fix r all box/relax iso 0.0 vmax 0.0005\n", "aniso": "fix r all box/relax aniso 0.0 vmax 0.0005\n",
           "z": "fix r all box/relax z 0.0 vmax 0.0005\n", "none": ""}[box]  # fmt: skip
    script = (
        "units metal\nboundary p p p\natom_style atomic\natom_modify map array sort 0 0\nread_data start.data\n"
        + pair_lines(potential)
        + "thermo_style custom step pe lx ly lz press pxx pyy pzz fmax\nthermo_modify format float %.10g\n"
        + fix
        + "min_modify line quadratic\nminimize 1e-14 1e-9 5000 50000\n"
        + ("unfix r\n" if fix else "")
        + "minimize 1e-16 1e-10 5000 50000\n"
        + fix
        + "minimize 1e-16 1e-10 5000 50000\n"
        + ("unfix r\n" if fix else "")
        + "minimize 1e-16 1e-10 5000 50000\n"
        + "write_data relaxed.data\nrun 0\n"
        + 'print "RESULT $(pe:%.12f) $(lx:%.12f) $(ly:%.12f) $(lz:%.12f) $(pxx:%.6f) $(pyy:%.6f) $(pzz:%.6f) $(fmax:%.3e)"\n'
    )
    log = run(workdir, script)
    values = result_line(log)
    c, p, _ = read_data(workdir / "relaxed.data")
    return c, p, values[0]


def energy_forces(workdir: Path, cell: np.ndarray, frames: list[np.ndarray], types: np.ndarray,
                  potential: Path) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Energies (eV) and forces (eV/A) of many configurations of one cell, one LAMMPS rerun."""
    workdir.mkdir(parents=True, exist_ok=True)
    write_data(workdir / "cell.data", cell, frames[0], types)
    lx, ly, lz = np.diag(cell)
    out: list[str] = []
    for step, pos in enumerate(frames):
        out += ["ITEM: TIMESTEP", str(step), "ITEM: NUMBER OF ATOMS", str(len(pos)), "ITEM: BOX BOUNDS pp pp pp",
                f"0 {lx:.12f}", f"0 {ly:.12f}", f"0 {lz:.12f}", "ITEM: ATOMS id x y z"]  # fmt: skip
        out += [f"{i + 1} {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(pos)]
    (workdir / "frames.dump").write_text("\n".join(out) + "\n")
    script = (
        "units metal\nboundary p p p\natom_style atomic\natom_modify map array sort 0 0\nread_data cell.data\n"
        + pair_lines(potential)
        + "thermo_style custom step pe\nthermo_modify format float %.14g\nthermo 1\n"
        + "dump f all custom 1 forces.dump id fx fy fz\ndump_modify f sort id format float %.15g\n"
        + "rerun frames.dump dump x y z box no\n"
    )
    log = run(workdir, script)
    n = len(frames[0])
    lines = (workdir / "forces.dump").read_text().splitlines()
    block = n + 9
    forces = np.empty((len(frames), n, 3))
    for k in range(len(frames)):
        rows = lines[k * block + 9 : (k + 1) * block]
        forces[k] = np.array([[float(w) for w in r.split()[1:4]] for r in rows])
    energies = []
    grab = False
    for ln in log.splitlines():
        w = ln.split()
        if w[:2] == ["Step", "PotEng"]:
            grab = True
            continue
        if grab and len(w) == 2:
            try:
                energies.append(float(w[1]))
            except ValueError:
                grab = False
    return np.array(energies[: len(frames)]), forces


def diamond_slab(nx: int, ny: int, species: list[str], a_par: float, spacings: list[float]) -> tuple:
    """A (001) stack: plane k has species[k] and the spacing to the next plane is spacings[k].

    Plane k has the in-plane pattern of diamond plane k mod 4. Returns cell, positions, types, plane index.
    """
    nplanes = len(species)
    assert nplanes % 4 == 0
    pos, types, plane = [], [], []
    z = 0.0
    for k in range(nplanes):
        layer = CUBE[[2 * (k % 4), 2 * (k % 4) + 1], :2]
        for ix in range(nx):
            for iy in range(ny):
                for fx, fy in layer:
                    pos.append([(fx + ix) * a_par, (fy + iy) * a_par, z])
                    types.append(1 if species[k] == "Si" else 2)
                    plane.append(k)
        z += spacings[k]
    cell = np.diag([nx * a_par, ny * a_par, z])
    return cell, np.array(pos), np.array(types), np.array(plane)
