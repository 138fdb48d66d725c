"""The staged kappa-m191919.hdf5 of si-sw-kappa-analysis, and the reference values read from it.

Pinned settings: phono3py 4.10.0 / phonopy 4.10.0; Stillinger-Weber Si (the Si.sw of si-sw-kappa) at
a0 = 5.431 A; 2x2x2 supercell of the 8-atom cube for fc2 and fc3; 0.03 A systematic displacements (111
supercells, forces from LAMMPS); 19x19x19 Gamma-centred mesh; tetrahedron method; no isotopes; RTA;
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
BOUNDARY_A = 1000.0  # 100 nm: boundary scattering 1/tau_b = |v| / L
MFP_CUT_A = 1.0e4  # 1 um
MESH = 19
KAPPA_FILE = f"kappa-m{MESH}{MESH}{MESH}.hdf5"


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
    """Reference values from the kappa file: kappa_xx(300 K), the exponent, the boundary-limited kappa and the
    share of kappa carried by mean free paths above 1 um."""
    with h5py.File(path) as f:
        temps = f["temperature"][:]
        kappa = f["kappa"][:]  # (T, 6): xx, yy, zz, yz, xz, xy in W/m-K
        mode_kappa = f["mode_kappa"][:]  # (T, ir q, band, 6), already weighted: sum / N_grid = kappa
        gamma = f["gamma"][:]  # (T, ir q, band), THz (ordinary frequency), half width
        velocity = f["group_velocity"][:]  # (ir q, band, 3), THz A (= 100 m/s)
        weight = f["weight"][:]
    values: dict[str, float] = {}
    i300 = int(np.flatnonzero(np.isclose(temps, 300))[0])
    values["kappa_300K_W_mK"] = float(kappa[i300, 0])
    sel = (temps >= 300 - 1e-6) & (temps <= 800 + 1e-6)
    values["exponent_n"] = float(-np.polyfit(np.log(temps[sel]), np.log(kappa[sel, 0]), 1)[0])
    xx = mode_kappa[i300, :, :, 0]
    n_grid = weight.sum()
    if not np.isclose(xx.sum() / n_grid, kappa[i300, 0], rtol=1e-8):
        raise SystemExit("mode_kappa does not sum to kappa: the normalisation assumed here is wrong")
    g = gamma[i300]
    speed = np.linalg.norm(velocity, axis=2)
    tau = np.where(g > 0, 1.0 / (4.0 * np.pi * np.where(g > 0, g, 1.0)), 0.0)  # ps; acoustic modes at Gamma: none
    mfp = speed * tau  # angstrom
    assert np.all(xx[g <= 0] == 0)
    values["kappa_300K_boundary_100nm_W_mK"] = float((xx / (1.0 + mfp / BOUNDARY_A)).sum() / n_grid)
    values["fraction_mfp_above_1um_300K"] = float(xx[mfp > MFP_CUT_A].sum() / xx.sum())
    # what the traps give, for the QC record (not reference values)
    safe = np.where(g > 0, g, 1.0)
    wrong_tau = np.where(g > 0, 1.0 / (2.0 * safe), 0.0)  # 2 pi forgotten
    print(f"  trap, tau = 1/(2 Gamma): boundary kappa {(xx / (1 + speed * wrong_tau / BOUNDARY_A)).sum() / n_grid:.2f}, "
          f"fraction {xx[speed * wrong_tau > MFP_CUT_A].sum() / xx.sum():.4f}")
    wrong_tau = np.where(g > 0, 1.0 / (2.0 * np.pi * safe), 0.0)  # Gamma taken as the decay rate
    print(f"  trap, tau = 1/(2 pi Gamma): boundary kappa "
          f"{(xx / (1 + speed * wrong_tau / BOUNDARY_A)).sum() / n_grid:.2f}, "
          f"fraction {xx[speed * wrong_tau > MFP_CUT_A].sum() / xx.sum():.4f}")
    print(f"  trap, |v_x| instead of |v|: boundary kappa "
          f"{(xx / (1 + np.abs(velocity[:, :, 0]) * tau / BOUNDARY_A)).sum() / n_grid:.2f}")
    print(f"  trap, boundary as 1/tau = 1/tau_ph + v/(2L): "
          f"{(xx / (1 + mfp / (2 * BOUNDARY_A))).sum() / n_grid:.2f}")
    lo, hi = np.flatnonzero(np.isclose(temps, 300))[0], np.flatnonzero(np.isclose(temps, 800))[0]
    print(f"  two-point exponent 300/800 K: {-np.log(kappa[hi, 0] / kappa[lo, 0]) / np.log(800 / 300):.4f}")
    print(f"  trap, index off by one: kappa at {temps[i300 - 1]:.0f} K {kappa[i300 - 1, 0]:.2f}, "
          f"at {temps[i300 + 1]:.0f} K {kappa[i300 + 1, 0]:.2f}")
    order = np.argsort(mfp.ravel())
    cum = np.cumsum(xx.ravel()[order]) / xx.sum()
    print(f"  median mean free path (kappa-weighted) {mfp.ravel()[order][np.searchsorted(cum, 0.5)] / 1e4:.3f} um; "
          f"fraction above 100 nm {xx[mfp > 1e3].sum() / xx.sum():.4f}, above 10 um {xx[mfp > 1e5].sum() / xx.sum():.4f}")
    for length in (1e3, 1e4, 1e5):
        print(f"  boundary kappa, L = {length / 1e4:g} um: {(xx / (1.0 + mfp / length)).sum() / n_grid:.2f} W/m-K")
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
                str(MESH),
                str(MESH),
                str(MESH),
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
    print(f"phono3py RTA on {MESH}x{MESH}x{MESH}: {time.perf_counter() - t0:.1f} s")
    (out / "workspace").mkdir(exist_ok=True)
    shutil.copy(work / KAPPA_FILE, out / "workspace" / KAPPA_FILE)
    values = analyse(out / "workspace" / KAPPA_FILE)
    for key, value in values.items():
        print(f"{key:28s} {value:.6f}")
    (out / "values.json").write_text(json.dumps(values, indent=2) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--analyse":  # re-read a staged file without re-running phono3py
        print(json.dumps(analyse(Path(sys.argv[2])), indent=2))
    else:
        main()
