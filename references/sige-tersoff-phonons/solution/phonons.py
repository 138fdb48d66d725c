"""Harmonic phonons of Si, Ge and coherently strained Ge with the Tersoff (1989) Si-Ge potential.

1. Zero-pressure lattices with LAMMPS (SiCGe.tersoff, elements Si(D) and Ge): cubic Si and Ge (box/relax iso),
   and Ge strained to the Si lattice in the (001) plane with c relaxed (box/relax z).
2. phonopy finite displacements (0.01 A) in a 3x3x3 supercell of the 8-atom conventional cell (216 atoms; the
   Tersoff force constants reach second neighbours only), forces from one LAMMPS `rerun` over all displaced cells.
3. Frequencies at Gamma and at X = (2 pi / a)(1, 0, 0) of the fcc primitive cell, in THz.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
from phonopy import Phonopy
from phonopy.structure.atoms import PhonopyAtoms

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
MASS = {"Si": 28.0855, "Ge": 72.63}
TYPE = {"Si": 1, "Ge": 2}
CUBE = np.array([[0, 0, 0], [0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0],
                 [0.25, 0.25, 0.25], [0.25, 0.75, 0.75], [0.75, 0.25, 0.75], [0.75, 0.75, 0.25]])  # fmt: skip
HEAD = "units metal\nboundary p p p\natom_style atomic\natom_modify map array sort 0 0\n"
PAIR = "pair_style tersoff\npair_coeff * * {pot} Si(D) Ge\n"


def _data(path: Path, cell: np.ndarray, pos: np.ndarray, element: str) -> None:
    lx, ly, lz = np.diag(cell)
    lines = ["diamond", "", f"{len(pos)} atoms", "2 atom types", f"0 {lx:.12f} xlo xhi", f"0 {ly:.12f} ylo yhi",
             f"0 {lz:.12f} zlo zhi", "", "Masses", "", f"1 {MASS['Si']}", f"2 {MASS['Ge']}", "", "Atoms # atomic", ""]  # fmt: skip
    lines += [f"{i + 1} {TYPE[element]} {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(pos)]
    path.write_text("\n".join(lines) + "\n")


def relax(workdir: Path, element: str, a_guess: float, c_guess: float, box: str, pot: Path) -> tuple[float, float]:
    """Relaxed (a, c) of the 2x2x2 conventional cell; box 'iso' (cubic) or 'z' (in-plane a kept)."""
    workdir.mkdir(parents=True, exist_ok=True)
    cell = np.diag([a_guess, a_guess, c_guess]) * 2
    pos = np.array([(CUBE[k] + [i, j, m]) @ np.diag([a_guess, a_guess, c_guess])
                    for i in range(2) for j in range(2) for m in range(2) for k in range(8)])  # fmt: skip
    _data(workdir / "cell.data", cell, pos, element)
    fix = f"fix r all box/relax {box} 0.0 vmax 0.0005\n"
    (workdir / "in.lmp").write_text(
        HEAD + "read_data cell.data\n" + PAIR.format(pot=pot) + fix + "minimize 1e-16 1e-10 5000 50000\n"
        + "unfix r\nminimize 1e-16 1e-10 5000 50000\n" + fix + "minimize 1e-16 1e-10 5000 50000\nrun 0\n"
        + 'print "RESULT $(lx/2:%.12f) $(lz/2:%.12f) $(press:%.6f)"\n'
    )
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    line = [ln for ln in (workdir / "log.lammps").read_text().splitlines() if ln.startswith("RESULT")][-1]
    a, c, _ = (float(w) for w in line.split()[1:])
    return a, c


def forces(workdir: Path, cell: np.ndarray, frames: list[np.ndarray], element: str, pot: Path) -> np.ndarray:
    """Forces (eV/A) of displaced copies of one supercell: a single LAMMPS rerun over a dump of all of them."""
    workdir.mkdir(parents=True, exist_ok=True)
    _data(workdir / "cell.data", cell, frames[0], element)
    lx, ly, lz = np.diag(cell)
    out: list[str] = []
    for step, p in enumerate(frames):
        out += ["ITEM: TIMESTEP", str(step), "ITEM: NUMBER OF ATOMS", str(len(p)), "ITEM: BOX BOUNDS pp pp pp",
                f"0 {lx:.12f}", f"0 {ly:.12f}", f"0 {lz:.12f}", "ITEM: ATOMS id x y z"]  # fmt: skip
        out += [f"{i + 1} {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(p)]
    (workdir / "frames.dump").write_text("\n".join(out) + "\n")
    (workdir / "in.lmp").write_text(
        HEAD + "read_data cell.data\n" + PAIR.format(pot=pot)
        + "dump f all custom 1 forces.dump id fx fy fz\ndump_modify f sort id format float %.15g\n"
        + "rerun frames.dump dump x y z box no\n"
    )
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    n = len(frames[0])
    lines = (workdir / "forces.dump").read_text().splitlines()
    f = np.empty((len(frames), n, 3))
    for k in range(len(frames)):
        rows = lines[k * (n + 9) + 9 : (k + 1) * (n + 9)]
        f[k] = np.array([[float(w) for w in r.split()[1:4]] for r in rows])
    return f


def phonons(workdir: Path, element: str, a: float, c: float, pot: Path) -> Phonopy:
    unit = PhonopyAtoms(symbols=[element] * 8, cell=np.diag([a, a, c]), scaled_positions=CUBE,
                        masses=[MASS[element]] * 8)  # fmt: skip
    ph = Phonopy(unit, supercell_matrix=np.eye(3, dtype=int) * 3, primitive_matrix="F")
    ph.generate_displacements(distance=0.01)
    cells = ph.supercells_with_displacements
    ph.forces = forces(workdir, cells[0].cell, [s.positions for s in cells], element, pot)
    ph.produce_force_constants()
    return ph


def main() -> None:
    pot = Path("SiCGe.tersoff").resolve()
    runs = Path("runs").resolve()
    a_si, _ = relax(runs / "Si", "Si", 5.43, 5.43, "iso", pot)
    a_ge, _ = relax(runs / "Ge", "Ge", 5.66, 5.66, "iso", pot)
    _, c_ge = relax(runs / "Ge-strained", "Ge", a_si, 5.81, "z", pot)
    answer: dict[str, float] = {}
    for tag, element, a, c in (("Si", "Si", a_si, a_si), ("Ge", "Ge", a_ge, a_ge)):
        ph = phonons(runs / f"fc-{tag}", element, a, c, pot)
        # reduced coordinates of the primitive reciprocal lattice: q_red = A_prim . q_cart (no 2 pi)
        ph.run_qpoints([np.zeros(3), ph.primitive.cell @ np.array([1 / a, 0, 0])])
        g, x = np.sort(ph.qpoints.frequencies, axis=1)
        answer |= {f"{tag}_Gamma_optical_THz": g[3:].mean(), f"{tag}_X_TA_THz": x[0:2].mean(),
                   f"{tag}_X_LA_THz": x[2:4].mean(), f"{tag}_X_TO_THz": x[4:6].mean()}  # fmt: skip
    ph = phonons(runs / "fc-Ge-strained", "Ge", a_si, c_ge, pot)
    ph.run_qpoints([np.zeros(3)], with_dynamical_matrices=True)
    vals, vecs = np.linalg.eigh(ph.qpoints.dynamical_matrices[0])
    optical = np.argsort(vals)[3:]
    nu = np.sqrt(np.abs(vals[optical])) * np.sign(vals[optical]) * ph.unit_conversion_factor  # THz
    # the singlet is the mode polarised along [001]: its eigenvector has only z components
    zweight = [np.sum(np.abs(vecs[2::3, k]) ** 2) for k in optical]
    singlet = int(np.argmax(zweight))
    answer["Ge_strained_Gamma_singlet_THz"] = float(nu[singlet])
    answer["Ge_strained_Gamma_doublet_THz"] = float(np.mean(np.delete(nu, singlet)))
    print(f"a_Si {a_si:.6f}, a_Ge {a_ge:.6f}, strained Ge c {c_ge:.6f} A; Gamma optical of strained Ge {nu}",
          file=sys.stderr)
    json.dump({k: round(float(v), 4) for k, v in answer.items()}, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
