"""Reference for cu-qha-versus-md: classical and quantum QHA a(T) of Cu (Cu_u3.eam) against the NPT MD logs.

Usage: python3 qvm_reference.py POTENTIAL LOGDIR OUTDIR. Computes static energies and phonon free energies
(phonopy 4.10, LAMMPS forces, 24^3 Gamma-centred mesh) on 11 lattice constants from -2% to +3% with 2x2x2,
3x3x3 and 4x4x4 conventional supercells, runs PhonopyQHA with Vinet, Birch-Murnaghan and Murnaghan EOS forms in
classical and quantum occupation, and averages the MD production blocks of the staged logs over several windows.
Writes OUTDIR/values.json (reference: 4x4x4, Vinet, classical, production-block averages) and
OUTDIR/variants.json (every variant, for the fairness record and the tolerances).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
from phonopy import Phonopy, PhonopyQHA
from phonopy.structure.atoms import PhonopyAtoms

LMP = shutil.which("lmp") or "lmp"
TEMPS = [100.0, 200.0, 300.0, 400.0, 500.0]
TGRID = np.arange(0.0, 1001.0, 10.0)
FCC = [[0, 0, 0], [0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0]]


def lammps(workdir: Path, script: str) -> str:
    """Run one LAMMPS input in its own directory; return its log."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "in.lmp").write_text(script)
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    return (workdir / "log.lammps").read_text()


def result(log: str) -> float:
    """The number on the last RESULT line of a log."""
    return float([ln for ln in log.splitlines() if ln.startswith("RESULT")][-1].split()[1])


def static_a0(pot: Path, runs: Path) -> float:
    """Zero-pressure static lattice constant (box/relax of a 3x3x3 cell)."""
    return result(
        lammps(
            runs / "relax",
            f"units metal\natom_style atomic\nlattice fcc 3.615\nregion b block 0 3 0 3 0 3\ncreate_box 1 b\n"
            f"create_atoms 1 box\npair_style eam\npair_coeff 1 1 {pot}\n"
            "fix r all box/relax iso 0.0 vmax 0.001\nminimize 0 1e-12 10000 100000\n"
            'print "RESULT $(lx/3:%.10f)"\n',
        )
    )


def energy(a: float, pot: Path, wd: Path) -> float:
    """Static energy per atom (eV) of the perfect crystal at lattice constant a."""
    return result(
        lammps(
            wd,
            f"units metal\natom_style atomic\nlattice fcc {a:.10f}\nregion b block 0 3 0 3 0 3\ncreate_box 1 b\n"
            f"create_atoms 1 box\npair_style eam\npair_coeff 1 1 {pot}\nrun 0\n"
            'print "RESULT $(pe/atoms:%.12f)"\n',
        )
    )


def forces(cell: PhonopyAtoms, wd: Path, pot: Path) -> np.ndarray:
    """LAMMPS forces (eV/A) on an orthorhombic supercell."""
    lx, ly, lz = np.diag(cell.cell)
    atoms = "\n".join(f"{i} 1 {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(cell.positions, 1))
    wd.mkdir(parents=True, exist_ok=True)
    (wd / "cell.data").write_text(
        f"sc\n\n{len(cell)} atoms\n1 atom types\n\n0 {lx:.12f} xlo xhi\n0 {ly:.12f} ylo yhi\n"
        f"0 {lz:.12f} zlo zhi\n\nMasses\n\n1 63.546\n\nAtoms # atomic\n\n{atoms}\n"
    )
    lammps(
        wd,
        f"units metal\natom_style atomic\nread_data cell.data\npair_style eam\npair_coeff 1 1 {pot}\n"
        "dump f all custom 1 forces.dump id fx fy fz\ndump_modify f sort id format float %.15e\nrun 0\n",
    )
    rows = (wd / "forces.dump").read_text().splitlines()[9:]
    return np.array([[float(v) for v in r.split()[1:4]] for r in rows])


def phonons(a: float, n: int, pot: Path, wd: Path) -> Phonopy:
    """Force constants and 24^3 mesh of the n x n x n conventional supercell at lattice constant a."""
    unit = PhonopyAtoms(symbols=["Cu"] * 4, cell=np.eye(3) * a, scaled_positions=FCC)
    ph = Phonopy(unit, supercell_matrix=np.eye(3, dtype=int) * n, primitive_matrix="F")
    ph.generate_displacements(distance=0.01)
    ph.forces = [forces(s, wd / f"d{j}", pot) for j, s in enumerate(ph.supercells_with_displacements)]
    ph.produce_force_constants()
    ph.symmetrize_force_constants()
    ph.run_mesh([24] * 3, is_gamma_center=True)
    return ph


def qha(vols, energies, phs, classical: bool, eos: str) -> dict:
    """a(T) at the five temperatures and alpha_L(300 K) from PhonopyQHA, classical or quantum occupation."""
    f, s, c = [], [], []
    for ph in phs:
        ph.run_thermal_properties(temperatures=TGRID, classical=classical)
        tp = ph.thermal_properties
        f.append(tp.free_energy)
        s.append(tp.entropy)
        c.append(tp.heat_capacity)
    q = PhonopyQHA(
        volumes=vols,
        electronic_energies=energies,
        temperatures=TGRID,
        free_energy=np.array(f).T,
        cv=np.array(c).T,
        entropy=np.array(s).T,
        t_max=800.0,
        eos=eos,
        verbose=False,
    )
    idx = [int(np.argmin(abs(TGRID - t))) for t in TEMPS]
    a = (4 * np.array(q.volume_temperature)) ** (1 / 3)
    return {"a": [float(a[k]) for k in idx], "alpha_L_300K": float(q.thermal_expansion[idx[2]] / 3)}


def md_block(path: Path) -> tuple[int, list[list[str]], np.ndarray]:
    """Atom count and every thermo block (header, rows) of one log."""
    text = path.read_text()
    natoms = int(re.search(r"^Created (\d+) atoms", text, re.M).group(1))
    lines = text.splitlines()
    blocks = []
    for i, ln in enumerate(lines):
        if ln.split()[:1] == ["Step"]:
            head = ln.split()
            rows = []
            for r in lines[i + 1 :]:
                if r.startswith("Loop time"):
                    break
                rows.append([float(w) for w in r.split()])
            blocks.append((head, np.array(rows)))
    return natoms, blocks


def md_values(logdir: Path) -> dict:
    """A = (4V/N)^(1/3) averaged over several windows of each log."""
    out: dict[str, list[float]] = {"production": [], "second_half": [], "first_half": [], "all_rows": []}
    for t in TEMPS:
        n, blocks = md_block(logdir / f"npt_{int(t)}K.log")
        head, rows = blocks[-1]
        a = (4 * rows[:, head.index("Volume")] / n) ** (1 / 3)
        out["production"].append(float(a.mean()))
        out["second_half"].append(float(a[len(a) // 2 :].mean()))
        out["first_half"].append(float(a[: len(a) // 2].mean()))
        every = np.concatenate([(4 * b[:, h.index("Volume")] / n) ** (1 / 3) for h, b in blocks])
        out["all_rows"].append(float(every.mean()))
    return out


def alpha_quadratic(a: list[float]) -> float:
    """(1/a) da/dT at 300 K from a quadratic through the five points."""
    p = np.polyfit(TEMPS, a, 2)
    return float(np.polyval(np.polyder(p), 300.0) / np.polyval(p, 300.0))


def main() -> None:
    """All variants, the reference values and the variants file."""
    warnings.simplefilter("ignore")
    pot, logdir, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve(), Path(sys.argv[3]).resolve()
    runs = out / "runs"
    a0 = static_a0(pot, runs)
    md = md_values(logdir)
    variants = {"a0_static": a0, "md": md, "md_alpha_L_300K": {k: alpha_quadratic(v) for k, v in md.items()}}
    grids = {"wide": np.linspace(-0.02, 0.03, 11), "narrow": np.linspace(-0.01, 0.02, 7)}
    for n in (2, 3, 4):
        lat = a0 * (1 + grids["wide"])
        es = [energy(a, pot, runs / f"s{n}v{i}") for i, a in enumerate(lat)]
        phs = [phonons(a, n, pot, runs / f"p{n}v{i}") for i, a in enumerate(lat)]
        for classical in (True, False):
            for eos in ("vinet", "birch_murnaghan", "murnaghan"):
                key = f"{n}x{n}x{n}/{eos}/{'classical' if classical else 'quantum'}"
                variants[key] = qha(lat**3 / 4, es, phs, classical, eos)
        if n == 4:
            keep = [i for i, s in enumerate(grids["wide"]) if -0.0101 <= s <= 0.0201]
            variants["4x4x4/vinet/classical/narrow-grid"] = qha(
                lat[keep] ** 3 / 4, [es[i] for i in keep], [phs[i] for i in keep], True, "vinet"
            )
    (out / "variants.json").write_text(json.dumps(variants, indent=1))
    ref = variants["4x4x4/vinet/classical"]
    mdp = md["production"]
    values = {
        "a_QHA_classical_angstrom": [round(x, 5) for x in ref["a"]],
        "delta_a_angstrom": [round(m - q, 5) for m, q in zip(mdp, ref["a"], strict=True)],
        "alpha_L_QHA_classical_300K_per_K": float(f"{ref['alpha_L_300K']:.4e}"),
    }
    (out / "values.json").write_text(json.dumps(values, indent=1))
    print(json.dumps(values))


if __name__ == "__main__":
    main()
