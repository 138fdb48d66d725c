"""The staged kappa-m151515.hdf5 of si-sw-kappa-analysis, and the reference values read from it.

Pinned settings: phono3py 4.10.0 / phonopy 4.10.0; Stillinger-Weber Si (the Si.sw of si-sw-kappa) at
a0 = 5.431 A; 2x2x2 supercell of the 8-atom cube for fc2 and fc3; 0.03 A systematic displacements (111
supercells, forces from LAMMPS); 15x15x15 Gamma-centred mesh; tetrahedron method; no isotopes; RTA;
T = 100, 150, ..., 1000 K. The run is the command line `phono3py-load ... --br` in OUTDIR/runs/phono3py/.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
MASS = 28.0855
A0 = 5.431
CUBE = [
    [0, 0, 0],
    [0, 0.5, 0.5],
    [0.5, 0, 0.5],
    [0.5, 0.5, 0],
    [0.25, 0.25, 0.25],
    [0.25, 0.75, 0.75],
    [0.75, 0.25, 0.75],
    [0.75, 0.75, 0.25],
]
CUTOFF_THZ = 5.0


def forces_by_rerun(workdir: Path, cell: np.ndarray, frames: list[np.ndarray], potential: Path) -> np.ndarray:
    """Forces of all displaced supercells from one LAMMPS `rerun` over a dump file."""
    workdir.mkdir(parents=True, exist_ok=True)
    lx, ly, lz = np.diag(cell)
    n = len(frames[0])
    atoms = "\n".join(f"{i + 1} 1 {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(frames[0]))
    (workdir / "cell.data").write_text(
        f"supercell\n\n{n} atoms\n1 atom types\n0 {lx:.12f} xlo xhi\n"
        f"0 {ly:.12f} ylo yhi\n0 {lz:.12f} zlo zhi\n\nMasses\n\n1 {MASS}\n\n"
        f"Atoms # atomic\n\n{atoms}\n"
    )
    dump = []
    for k, pos in enumerate(frames):
        dump += [
            "ITEM: TIMESTEP",
            str(k),
            "ITEM: NUMBER OF ATOMS",
            str(n),
            "ITEM: BOX BOUNDS pp pp pp",
            f"0 {lx:.12f}",
            f"0 {ly:.12f}",
            f"0 {lz:.12f}",
            "ITEM: ATOMS id x y z",
        ]
        dump += [f"{i + 1} {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(pos)]
    (workdir / "displaced.dump").write_text("\n".join(dump) + "\n")
    (workdir / "in.lmp").write_text(
        "units metal\nboundary p p p\natom_style atomic\natom_modify map array\nread_data cell.data\n"
        f"pair_style sw\npair_coeff * * {potential} Si\n"
        "dump f all custom 1 forces.dump id fx fy fz\ndump_modify f sort id format float %.15g\n"
        "rerun displaced.dump dump x y z box no\n"
    )
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    lines = (workdir / "forces.dump").read_text().splitlines()
    block = n + 9
    return np.array(
        [
            [[float(w) for w in r.split()[1:4]] for r in lines[k * block + 9 : (k + 1) * block]]
            for k in range(len(frames))
        ]
    )


def analyse(path: Path) -> dict[str, float]:
    """Reference values from the kappa file: kappa_xx at three temperatures, the exponent, the fraction."""
    with h5py.File(path) as f:
        temps = f["temperature"][:]
        kappa = f["kappa"][:]  # (T, 6): xx, yy, zz, yz, xz, xy in W/m-K
        mode_kappa = f["mode_kappa"][:]  # (T, ir q, band, 6), already weighted: sum / N_grid = kappa
        freq = f["frequency"][:]  # (ir q, band), THz
        weight = f["weight"][:]
    values: dict[str, float] = {}
    for t in (300, 500, 800):
        values[f"kappa_{t}K_W_mK"] = float(kappa[np.flatnonzero(np.isclose(temps, t))[0], 0])
    sel = (temps >= 300 - 1e-6) & (temps <= 800 + 1e-6)
    values["exponent_n"] = float(-np.polyfit(np.log(temps[sel]), np.log(kappa[sel, 0]), 1)[0])
    i300 = int(np.flatnonzero(np.isclose(temps, 300))[0])
    xx = mode_kappa[i300, :, :, 0]
    if not np.isclose(xx.sum() / weight.sum(), kappa[i300, 0], rtol=1e-8):
        raise SystemExit("mode_kappa does not sum to kappa: the normalisation assumed here is wrong")
    values["fraction_below_5THz_300K"] = float(xx[freq < CUTOFF_THZ].sum() / xx.sum())
    # what the traps give, for the QC record (not reference values)
    wrong = (xx * weight[:, None])[freq < CUTOFF_THZ].sum() / (xx * weight[:, None]).sum()
    print(f"  trap, mode_kappa weighted again: fraction {wrong:.4f}")
    print(
        f"  trap, index off by one: kappa at {temps[i300 - 1]:.0f} K {kappa[i300 - 1, 0]:.2f}, "
        f"at {temps[i300 + 1]:.0f} K {kappa[i300 + 1, 0]:.2f}"
    )
    print(f"  trap, plain sum of mode_kappa: {xx.sum():.1f} (N_grid = {weight.sum()})")
    lo, hi = np.flatnonzero(np.isclose(temps, 300))[0], np.flatnonzero(np.isclose(temps, 800))[0]
    print(f"  two-point exponent 300/800 K: {-np.log(kappa[hi, 0] / kappa[lo, 0]) / np.log(800 / 300):.4f}")
    return values


def main() -> None:
    """Displace, forces, phono3py command line, staged file, values.json."""
    import phono3py
    from phono3py.file_IO import write_FORCES_FC3

    potential, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    work = out / "runs" / "phono3py"
    work.mkdir(parents=True, exist_ok=True)
    lines = ["Si diamond, conventional cube", "1.0", f"{A0} 0 0", f"0 {A0} 0", f"0 0 {A0}", "Si", "8", "Direct"]
    lines += [" ".join(f"{x:.6f}" for x in p) for p in CUBE]
    (work / "POSCAR-unitcell").write_text("\n".join(lines) + "\n")
    t0 = time.perf_counter()
    with (work / "phono3py-init.log").open("w") as log:
        subprocess.run(
            [
                "phono3py-init",
                "-d",
                "--dim",
                "2",
                "2",
                "2",
                "--pa",
                "F",
                "-c",
                "POSCAR-unitcell",
                "--amplitude",
                "0.03",
            ],
            cwd=work,
            stdout=log,
            stderr=subprocess.STDOUT,
            check=True,
        )
    ph3 = phono3py.load(work / "phono3py_disp.yaml", produce_fc=False, log_level=0)
    scs = ph3.supercells_with_displacements
    forces = forces_by_rerun(out / "runs" / "forces", scs[0].cell, [s.positions for s in scs], potential)
    write_FORCES_FC3(ph3.dataset, forces_fc3=list(forces), filename=str(work / "FORCES_FC3"))
    with (work / "phono3py-load.log").open("w") as log:
        subprocess.run(
            [
                "phono3py-load",
                "phono3py_disp.yaml",
                "--fc-calc",
                "traditional",
                "--mesh",
                "15",
                "15",
                "15",
                "--br",
                "--tmin",
                "100",
                "--tmax",
                "1000",
                "--tstep",
                "50",
            ],
            cwd=work,
            stdout=log,
            stderr=subprocess.STDOUT,
            check=True,
        )
    print(f"phono3py RTA on 15x15x15: {time.perf_counter() - t0:.1f} s")
    (out / "workspace").mkdir(exist_ok=True)
    shutil.copy(work / "kappa-m151515.hdf5", out / "workspace" / "kappa-m151515.hdf5")
    values = analyse(out / "workspace" / "kappa-m151515.hdf5")
    for key, value in values.items():
        print(f"{key:28s} {value:.6f}")
    (out / "values.json").write_text(json.dumps(values, indent=2) + "\n")


if __name__ == "__main__":
    main()
