"""Saddle points of the Ni-island glide with LAMMPS: relaxed ends, a climbing-image NEB, and the certification of a
saddle by its Hessian and the minima it connects.

  ni_saddle.py neb POT INITIAL FINAL OUTDIR [--images N] [--min quickmin|fire] [--no-climb]
      relax both ends (cg), run a (climbing-image) NEB of N images and write OUTDIR/neb.json (end energies,
      barriers, image energies) and OUTDIR/saddle.data (the highest image).
  ni_saddle.py certify POT SADDLE INITIAL FINAL OUTDIR
      the mass-weighted finite-difference Hessian of the mobile atoms at SADDLE, its negative eigenvalues and the
      frequency of the unstable mode, and the minima reached by relaxing from SADDLE moved 0.1 A either way along
      that mode, against the relaxed ends; OUTDIR/certify.json.
  ni_saddle.py rate POT SADDLE INITIAL OUTDIR [--temperature T]
      the harmonic transition-state (Vineyard) rate of leaving INITIAL (relaxed here) over SADDLE: the product of
      the minimum's normal-mode frequencies over the product of the saddle's real ones, and the rate at T;
      OUTDIR/rate.json.

POT is a Ni potential file, `*.eam` (pair_style eam) or `*.adp` (pair_style adp). Atoms below z = 13.0 A (the two
bottom layers of the slab) are held fixed everywhere. Needs `lmp` with the REPLICA package and `mpirun`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

Z_FIXED = 13.0  # A: atoms below are the fixed bottom of the slab
MASS = 58.69  # amu, Ni
STEP = 0.005  # A, finite-difference displacement of the Hessian
KICK = 0.1  # A, displacement along the unstable mode before relaxing to the connected minima
FTOL = 1e-8  # eV/A, force tolerance of every relaxation
THZ_PER_SQRT_EV_AMU_A2 = 15.633302  # sqrt(eV / (amu A^2)) / (2 pi), in THz
KB_EV_PER_K = 8.617333262e-5

# The pair style of each kind of potential file, by its suffix, and the pair_coeff arguments of each style.
STYLE_OF_SUFFIX = {".eam": "eam", ".adp": "adp"}
COEFF_OF_STYLE = {"eam": "{pot}", "adp": "{pot} Ni", "eam/alloy": "{pot} Ni"}
PAIR_STYLE = os.environ.get("NI_SADDLE_PAIR_STYLE")  # a style other than the file's, to measure that mistake


def header(pot: Path, data: str) -> str:
    style = PAIR_STYLE or STYLE_OF_SUFFIX[pot.suffix]
    coeff = COEFF_OF_STYLE[style]
    return f"""units metal
atom_style atomic
boundary p p p
atom_modify map array sort 0 0.0
read_data {data}
mass 1 {MASS}
pair_style {style}
pair_coeff * * {coeff.format(pot=pot.resolve())}
variable low atom z<{Z_FIXED}
group fixed variable low
group mobile subtract all fixed
fix hold fixed setforce 0.0 0.0 0.0
thermo_style custom step pe fmax
"""


def lmp(script: str, work: Path, name: str, ranks: int = 1, partitions: int = 0) -> str:
    work.mkdir(parents=True, exist_ok=True)
    (work / f"{name}.in").write_text(script)
    cmd = ["lmp", "-in", f"{name}.in", "-log", f"{name}.log"]
    if partitions:
        mpi = ["mpirun", "-np", str(ranks), "--oversubscribe"]
        if os.geteuid() == 0:
            mpi.append("--allow-run-as-root")
        cmd = [*mpi, *cmd, "-partition", f"{partitions}x1"]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OMPI_MCA_rmaps_base_oversubscribe": "1"}
    proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"lmp failed in {work}/{name}.in:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout


def energy_of(stdout: str, tag: str) -> float:
    return float(next(line.split()[1] for line in stdout.splitlines() if line.startswith(tag + " ")))


def relax(pot: Path, data: Path, out: Path, work: Path, name: str) -> float:
    """Relax the mobile atoms of `data` (cg) and write `out`; the relaxed energy in eV."""
    stdout = lmp(
        header(pot, str(data.resolve()))
        + f'min_style cg\nminimize 0 {FTOL} 20000 200000\nprint "ENERGY $(pe:%.10f)"\nwrite_data {out.resolve()}\n',
        work,
        name,
    )
    return energy_of(stdout, "ENERGY")


def positions(data: Path) -> np.ndarray:
    """id-sorted positions of a LAMMPS data file written by write_data (atom_style atomic)."""
    lines = data.read_text().splitlines()
    n = int(next(line.split()[0] for line in lines if line.strip().endswith("atoms")))
    start = next(i for i, line in enumerate(lines) if line.startswith("Atoms")) + 2
    rows = sorted((int(p[0]), [float(x) for x in p[2:5]]) for p in (line.split() for line in lines[start : start + n]))
    return np.array([r for _, r in rows])


def neb(args: argparse.Namespace) -> None:
    pot, out = Path(args.pot), Path(args.outdir)
    work = out / "work"
    e_ini = relax(pot, Path(args.initial), work / "initial.relaxed.data", work, "relax-initial")
    e_fin = relax(pot, Path(args.final), work / "final.relaxed.data", work, "relax-final")
    fin = positions(work / "final.relaxed.data")
    (work / "final.coords").write_text(
        f"{len(fin)}\n" + "".join(f"{i} {x:.10f} {y:.10f} {z:.10f}\n" for i, (x, y, z) in enumerate(fin, start=1))
    )
    n = args.images
    climb = 0 if args.no_climb else 20000
    script = (
        header(pot, "initial.relaxed.data")
        + f"""variable u world {" ".join(str(i) for i in range(n))}
fix band mobile neb 1.0 parallel neigh
timestep 0.005
min_style {args.min}
thermo 200
neb 0.0 0.001 20000 {climb} 200 final final.coords
write_data replica_${{u}}.data
unfix band
run 0
print "ENERGY $(pe:%.10f)"
"""
    )
    lmp(script, work, "neb", ranks=n, partitions=n)
    last = [line.split() for line in (work / "neb.log").read_text().splitlines() if line.strip()]
    row = next(r for r in reversed(last) if len(r) == 9 + 2 * n and r[0].isdigit())
    # the band's log rounds the image energies: each replica prints its own
    energies = [energy_of((work / f"neb.log.{i}").read_text(), "ENERGY") for i in range(n)]
    top = int(np.argmax(energies))
    shutil.copyfile(work / f"replica_{top}.data", out / "saddle.data")
    result = {
        "E_initial_eV": e_ini,
        "E_final_eV": e_fin,
        "E_saddle_eV": energies[top],
        "forward_barrier_eV": energies[top] - e_ini,
        "reverse_barrier_eV": energies[top] - e_fin,
        "reaction_energy_eV": e_fin - e_ini,
        "image_energies_eV": energies,
        "saddle_image": top,
        "neb_steps": int(row[0]),
        "max_replica_force_eV_per_A": float(row[1]),
    }
    (out / "neb.json").write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))


def hessian(pot: Path, saddle: Path, work: Path, step: float = STEP) -> tuple[np.ndarray, np.ndarray, float]:
    """Central-difference Hessian of the mobile atoms at `saddle` (eV/A^2), their ids (0-based) and the energy."""
    pos = positions(saddle)
    mobile = np.flatnonzero(pos[:, 2] >= Z_FIXED)
    lines = [header(pot, str(saddle.resolve())), "run 0", 'print "ENERGY $(pe:%.10f)"']
    for i in mobile:
        lines.append(f"group d id {i + 1}")
        for axis in range(3):
            for sign in (1, -1):
                move = [0.0, 0.0, 0.0]
                move[axis] = sign * step
                lines += [
                    f"displace_atoms d move {move[0]} {move[1]} {move[2]} units box",
                    "run 0",
                    "write_dump mobile custom forces.dump id fx fy fz modify sort id append yes",
                    f"displace_atoms d move {-move[0]} {-move[1]} {-move[2]} units box",
                ]
        lines.append("group d delete")
    dump = work / "forces.dump"
    dump.unlink(missing_ok=True)
    stdout = lmp("\n".join(lines) + "\n", work, "hessian")
    text = dump.read_text().split("ITEM: TIMESTEP")[1:]
    frames = [np.array([[float(x) for x in line.split()[1:4]] for line in f.strip().splitlines()[8:]]) for f in text]
    m = len(mobile)
    assert len(frames) == 6 * m and all(f.shape == (m, 3) for f in frames), "unexpected force dump"
    hess = np.empty((3 * m, 3 * m))
    for col in range(3 * m):
        plus, minus = frames[2 * col], frames[2 * col + 1]
        hess[:, col] = -(plus - minus).ravel() / (2 * step)
    return 0.5 * (hess + hess.T), mobile, energy_of(stdout, "ENERGY")


def certify(args: argparse.Namespace) -> None:
    pot, saddle, out = Path(args.pot), Path(args.saddle), Path(args.outdir)
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    hess, mobile, e_saddle = hessian(pot, saddle, work, args.step)
    eig, vec = np.linalg.eigh(hess / MASS)
    negative = eig[eig < 0]
    mode = vec[:, 0] / np.sqrt(MASS)  # Cartesian displacement pattern of the unstable mode
    mode /= np.linalg.norm(mode)
    e_ini = relax(pot, Path(args.initial), work / "initial.relaxed.data", work, "relax-initial")
    e_fin = relax(pot, Path(args.final), work / "final.relaxed.data", work, "relax-final")
    pos = positions(saddle)
    ends = []
    for sign in (1, -1):
        moved = pos.copy()
        moved[mobile] += sign * args.kick * mode.reshape(-1, 3)
        kicked = work / f"kicked_{sign:+d}.data"
        write_like(saddle, moved, kicked)
        ends.append(relax(pot, kicked, work / f"end_{sign:+d}.data", work, f"relax-end{sign:+d}"))
    ends.sort()
    result = {
        "E_saddle_eV": e_saddle,
        "n_negative_eigenvalues": int(len(negative)),
        "negative_eigenvalues_eV_per_A2_amu": negative.tolist(),
        "unstable_mode_frequency_THz": float(np.sqrt(-eig[0]) * THZ_PER_SQRT_EV_AMU_A2) if eig[0] < 0 else 0.0,
        "lowest_positive_frequency_THz": float(np.sqrt(eig[eig > 0][0]) * THZ_PER_SQRT_EV_AMU_A2),
        "connected_minima_eV": [e - e_ini for e in ends],
        "relaxed_ends_eV": [0.0, e_fin - e_ini],
        "E_initial_eV": e_ini,
    }
    (out / "certify.json").write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))


def rate(args: argparse.Namespace) -> None:
    """Vineyard's harmonic rate: nu* = prod(nu_min) / prod'(nu_saddle), the unstable mode left out."""
    pot, saddle, out = Path(args.pot), Path(args.saddle), Path(args.outdir)
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    e_ini = relax(pot, Path(args.initial), work / "initial.relaxed.data", work, "relax-initial")
    spectra = {}
    for name, data in (("minimum", work / "initial.relaxed.data"), ("saddle", saddle)):
        hess, _, energy = hessian(pot, data, work / name, args.step)
        spectra[name] = (np.linalg.eigvalsh(hess / MASS), energy)
    eig_min, _ = spectra["minimum"]
    eig_sad, e_saddle = spectra["saddle"]
    if (eig_min <= 0).any() or (eig_sad < 0).sum() != 1:
        sys.exit(
            f"not a minimum and a first-order saddle: {(eig_min <= 0).sum()} and {(eig_sad < 0).sum()} non-positive"
        )
    # a sum of logarithms: the products of 405 frequencies overflow
    log_nu = 0.5 * np.log(eig_min).sum() - 0.5 * np.log(eig_sad[1:]).sum()
    prefactor = float(np.exp(log_nu) * THZ_PER_SQRT_EV_AMU_A2)
    barrier = e_saddle - e_ini
    result = {
        "prefactor_THz": prefactor,
        "barrier_eV": barrier,
        "E_initial_eV": e_ini,
        "E_saddle_eV": e_saddle,
        "temperature_K": args.temperature,
        "rate_per_s": prefactor * 1e12 * float(np.exp(-barrier / (KB_EV_PER_K * args.temperature))),
        "n_modes_minimum": int(len(eig_min)),
        "n_modes_saddle_real": int(len(eig_sad) - 1),
        "unstable_mode_frequency_THz": float(np.sqrt(-eig_sad[0]) * THZ_PER_SQRT_EV_AMU_A2),
    }
    (out / "rate.json").write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))


def write_like(template: Path, pos: np.ndarray, out: Path) -> None:
    """`template` (a write_data file) with its atom positions replaced by `pos` (id-sorted), image flags dropped."""
    lines = template.read_text().splitlines()
    n = len(pos)
    start = next(i for i, line in enumerate(lines) if line.startswith("Atoms")) + 2
    body = []
    for line in lines[start : start + n]:
        p = line.split()
        x, y, z = pos[int(p[0]) - 1]
        body.append(f"{p[0]} {p[1]} {x:.10f} {y:.10f} {z:.10f}")
    out.write_text("\n".join(lines[:start] + body) + "\n")  # velocities dropped: a relaxation needs none


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    n = sub.add_parser("neb")
    for name in ("pot", "initial", "final", "outdir"):
        n.add_argument(name)
    n.add_argument("--images", type=int, default=7)
    n.add_argument("--min", default="quickmin", choices=["quickmin", "fire"])
    n.add_argument("--no-climb", action="store_true")
    n.set_defaults(run=neb)
    c = sub.add_parser("certify")
    for name in ("pot", "saddle", "initial", "final", "outdir"):
        c.add_argument(name)
    c.add_argument("--step", type=float, default=STEP, help="finite-difference displacement, A")
    c.add_argument("--kick", type=float, default=KICK, help="displacement along the unstable mode, A")
    c.set_defaults(run=certify)
    r = sub.add_parser("rate")
    for name in ("pot", "saddle", "initial", "outdir"):
        r.add_argument(name)
    r.add_argument("--temperature", type=float, default=300.0, help="K")
    r.add_argument("--step", type=float, default=STEP, help="finite-difference displacement, A")
    r.set_defaults(run=rate)
    args = p.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
