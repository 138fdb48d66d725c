"""Reference values of sige-tersoff-phonons without phonopy, and the alternatives and traps of the grader.

Usage: reference.py OUTDIR     writes OUTDIR/values.json and OUTDIR/alternatives.json
Force constants by central differences (0.005 A) of LAMMPS forces in a 4x4x4 supercell of the conventional cube
(512 atoms), one displaced atom per sublattice (the other columns follow from translations); the dynamical matrix
of the 2-atom basis at q by a direct lattice sum with the Cartesian q. Lattices from box/relax as in the task.
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
MASS = {"Si": 28.0855, "Ge": 72.63}
CUBE = np.array([[0, 0, 0], [0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0],
                 [0.25, 0.25, 0.25], [0.25, 0.75, 0.75], [0.75, 0.25, 0.75], [0.75, 0.75, 0.25]])  # fmt: skip
EV_A2_AMU = 1.602176634e-19 / 1e-20 / 1.66053906660e-27
N = 4


def lmp(work: Path, data: str, pair: str, body: str) -> str:
    work.mkdir(parents=True, exist_ok=True)
    (work / "cell.data").write_text(data)
    (work / "in.lmp").write_text(
        "units metal\nboundary p p p\natom_style atomic\natom_modify map array sort 0 0\nread_data cell.data\n"
        + pair + "\n" + body
    )
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=work, check=True)
    return (work / "log.lammps").read_text()


def data(cell: np.ndarray, pos: np.ndarray, mass: float) -> str:
    lines = ["cell", "", f"{len(pos)} atoms", "1 atom types", f"0 {cell[0, 0]:.12f} xlo xhi",
             f"0 {cell[1, 1]:.12f} ylo yhi", f"0 {cell[2, 2]:.12f} zlo zhi", "", "Masses", "", f"1 {mass}", "",
             "Atoms # atomic", ""]  # fmt: skip
    lines += [f"{i + 1} 1 {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(pos)]
    return "\n".join(lines) + "\n"


def supercell(a: float, c: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    pos = np.array([(CUBE[k] + [i, j, m]) * [a, a, c] for i in range(n) for j in range(n) for m in range(n)
                    for k in range(8)])  # fmt: skip
    return np.diag([n * a, n * a, n * c]), pos


def relax(work: Path, pair: str, mass: float, a: float, c: float, box: str) -> tuple[float, float]:
    cell, pos = supercell(a, c, 2)
    fix = f"fix r all box/relax {box} 0.0 vmax 0.0005\n"
    log = lmp(work, data(cell, pos, mass), pair, fix + "minimize 1e-16 1e-10 5000 50000\nunfix r\n"
              "minimize 1e-16 1e-10 5000 50000\n" + fix + "minimize 1e-16 1e-10 5000 50000\nrun 0\n"
              'print "RESULT $(lx/2:%.12f) $(lz/2:%.12f)"\n')  # fmt: skip
    line = [ln for ln in log.splitlines() if ln.startswith("RESULT")][-1]
    return float(line.split()[1]), float(line.split()[2])


def frequencies(work: Path, pair: str, mass: float, a: float, c: float, qs: list[np.ndarray]) -> list[np.ndarray]:
    cell, pos = supercell(a, c, N)
    delta = 0.005
    frames = []
    for j in (0, 4):  # atom 0 (sublattice A at the origin) and atom 4 (sublattice B)
        for b in range(3):
            for s in (1, -1):
                p = pos.copy()
                p[j, b] += s * delta
                frames.append(p)
    lx, ly, lz = np.diag(cell)
    dump = []
    for step, p in enumerate(frames):
        dump += ["ITEM: TIMESTEP", str(step), "ITEM: NUMBER OF ATOMS", str(len(p)), "ITEM: BOX BOUNDS pp pp pp",
                 f"0 {lx:.12f}", f"0 {ly:.12f}", f"0 {lz:.12f}", "ITEM: ATOMS id x y z"]  # fmt: skip
        dump += [f"{i + 1} {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(p)]
    work.mkdir(parents=True, exist_ok=True)
    (work / "frames.dump").write_text("\n".join(dump) + "\n")
    lmp(work, data(cell, pos, mass), pair, "dump f all custom 1 forces.dump id fx fy fz\n"
        "dump_modify f sort id format float %.15g\nrerun frames.dump dump x y z box no\n")  # fmt: skip
    lines = (work / "forces.dump").read_text().splitlines()
    n = len(pos)
    f = np.array([[[float(w) for w in r.split()[1:4]] for r in lines[k * (n + 9) + 9 : (k + 1) * (n + 9)]]
                  for k in range(len(frames))]).reshape(2, 3, 2, n, 3)  # fmt: skip
    phi = -(f[:, :, 0] - f[:, :, 1]) / (2 * delta)  # (sublattice j, b, atom i, a): Phi[i a, j b]
    sub = np.array([0 if k < 4 else 1 for k in range(8)] * (N**3))
    origin = [pos[0], pos[4]]
    out = []
    box = np.diag(cell)
    for q in qs:
        dyn = np.zeros((6, 6), complex)
        for s in (0, 1):  # column sublattice: displaced atom s at origin[s]
            for i in range(n):
                r = pos[i] - origin[s]
                r -= box * np.round(r / box)  # nearest image (force constants reach second neighbours)
                t = sub[i]
                # D_{t a, s b}(q) = sum_R Phi(t, R; s, 0) e^{i q . (R + tau_t - tau_s)} / m
                dyn[3 * t : 3 * t + 3, 3 * s : 3 * s + 3] += phi[s, :, i, :].T * np.exp(1j * q @ r) / mass
        dyn = 0.5 * (dyn + dyn.conj().T) * EV_A2_AMU
        w2 = np.linalg.eigvalsh(dyn)
        out.append(np.sign(w2) * np.sqrt(np.abs(w2)) / (2 * np.pi) / 1e12)
    return out


def block(nus: list[np.ndarray], tag: str) -> dict[str, float]:
    g, x = (np.sort(v) for v in nus)
    return {f"{tag}_Gamma_optical_THz": float(g[3:].mean()), f"{tag}_X_TA_THz": float(x[0:2].mean()),
            f"{tag}_X_LA_THz": float(x[2:4].mean()), f"{tag}_X_TO_THz": float(x[4:6].mean())}  # fmt: skip


def main() -> None:
    out = Path(sys.argv[1]).resolve()
    runs = out / "runs"
    out.mkdir(parents=True, exist_ok=True)
    sicge = POT_DIR / "SiCGe.tersoff"
    pairs = {"Si": f"pair_style tersoff\npair_coeff * * {sicge} Si(D)",
             "Ge": f"pair_style tersoff\npair_coeff * * {sicge} Ge"}  # fmt: skip
    a_si, _ = relax(runs / "Si", pairs["Si"], MASS["Si"], 5.43, 5.43, "iso")
    a_ge, _ = relax(runs / "Ge", pairs["Ge"], MASS["Ge"], 5.66, 5.66, "iso")
    _, c_ge = relax(runs / "Ge-str", pairs["Ge"], MASS["Ge"], a_si, 5.81, "z")
    values: dict[str, float] = {}
    for tag, a in (("Si", a_si), ("Ge", a_ge)):
        values |= block(frequencies(runs / f"fc-{tag}", pairs[tag], MASS[tag], a, a,
                                    [np.zeros(3), np.array([2 * np.pi / a, 0, 0])]), tag)  # fmt: skip
    g = frequencies(runs / "fc-Ge-str", pairs["Ge"], MASS["Ge"], a_si, c_ge, [np.zeros(3)])[0]
    # optical triplet split by the tetragonal strain: singlet (polarised along [001]) and doublet
    opt = np.sort(g[3:])
    single = opt[0] if abs(opt[1] - opt[2]) < abs(opt[0] - opt[1]) else opt[2]
    values["Ge_strained_Gamma_singlet_THz"] = float(single)
    values["Ge_strained_Gamma_doublet_THz"] = float((opt.sum() - single) / 2)
    (out / "values.json").write_text(json.dumps(values, indent=2) + "\n")

    alt: dict[str, float] = {}
    # traps: the older silicon sets of the Debian files, the other Ge file, strained Ge left at the cubic lattice
    for tag, pair, a0 in (("SiB", f"pair_style tersoff\npair_coeff * * {sicge} Si(B)", 5.43),
                          ("Si.tersoff", f"pair_style tersoff\npair_coeff * * {POT_DIR / 'Si.tersoff'} Si", 5.43),
                          ("Ge.tersoff", f"pair_style tersoff\npair_coeff * * {POT_DIR / 'Ge.tersoff'} Ge", 5.55)):  # fmt: skip
        el = "Ge" if tag.startswith("Ge") else "Si"
        a, _ = relax(runs / f"alt-{tag}", pair, MASS[el], a0, a0, "iso")
        nus = frequencies(runs / f"altfc-{tag}", pair, MASS[el], a, a, [np.zeros(3), np.array([2 * np.pi / a, 0, 0])])
        alt |= {f"{tag}:{k}": v for k, v in block(nus, el).items()}
    # Ge bulk frequencies at the Si lattice constant (the strain ignored entirely) and the strained Ge with c = a_Ge
    g = frequencies(runs / "alt-Ge-cubic-at-aGe", pairs["Ge"], MASS["Ge"], a_si, a_ge, [np.zeros(3)])[0]
    alt["strained_at_c_equal_aGe_Gamma"] = [float(v) for v in np.sort(g[3:])]
    # the phonopy route with a 2x2x2 supercell and a 0.03 A displacement (the oracle: 3x3x3, 0.01 A)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
    import phonons as oracle  # noqa: PLC0415

    def phonopy_route(tag, el, a, c):
        from phonopy import Phonopy  # noqa: PLC0415
        from phonopy.structure.atoms import PhonopyAtoms  # noqa: PLC0415

        unit = PhonopyAtoms(symbols=[el] * 8, cell=np.diag([a, a, c]), scaled_positions=CUBE, masses=[MASS[el]] * 8)
        ph = Phonopy(unit, supercell_matrix=np.eye(3, dtype=int) * 2, primitive_matrix="F")
        ph.generate_displacements(distance=0.03)
        cells = ph.supercells_with_displacements
        ph.forces = oracle.forces(runs / f"phonopy-{tag}", cells[0].cell, [s.positions for s in cells], el, sicge)
        ph.produce_force_constants()
        return ph

    for tag, a in (("Si", a_si), ("Ge", a_ge)):
        ph = phonopy_route(tag, tag, a, a)
        ph.run_qpoints([np.zeros(3), ph.primitive.cell @ np.array([1 / a, 0, 0])])
        alt |= {f"phonopy222_0.03:{k}": v for k, v in block(list(ph.qpoints.frequencies), tag).items()}
    ph = phonopy_route("Ge-str", "Ge", a_si, c_ge)
    ph.run_qpoints([np.zeros(3)])
    opt = np.sort(ph.qpoints.frequencies[0])[3:]
    alt["phonopy222_0.03:Ge_strained_Gamma"] = [float(v) for v in opt]
    (out / "alternatives.json").write_text(json.dumps(alt, indent=2) + "\n")
    print(json.dumps(values, indent=2))
    print(json.dumps(alt, indent=2))


if __name__ == "__main__":
    main()
