"""Reference kappa(300 K) of si-sw-kappa through the phono3py command line (the oracle uses the Python API).

1. `phono3py-init -d` writes the displaced 2x2x2 supercells (0.03 A) of the 8-atom cube at a0 = 5.431 A.
2. One plain LAMMPS `run 0` per displaced supercell (own directory each); forces in FORCES_FC3.
3. `phono3py --mesh 11 11 11 --br --ts 300` and `phono3py --mesh 11 11 11 --lbte --ts 300`; kappa read from
   kappa-m111111.hdf5 of each run; the lifetime of the Gamma optical phonon, tau = 1 / (2 Gamma_omega) =
   1 / (4 pi Gamma) with phono3py's Gamma (imaginary self-energy in THz of ordinary frequency), from the RTA run.
Cross-check: the same with the symfc force-constant solver. Writes OUTDIR/values.json.
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


def sh(cmd: list[str], cwd: Path) -> None:
    """Run a command, its output into a log named after it."""
    log = cwd / f"{Path(cmd[0]).name}-{int(time.time() * 1e6)}.log"
    with log.open("w") as fh:
        subprocess.run(cmd, cwd=cwd, stdout=fh, stderr=subprocess.STDOUT, check=True)


def lammps_forces(workdir: Path, cell: np.ndarray, positions: np.ndarray, potential: Path) -> np.ndarray:
    """Forces of one supercell from one LAMMPS run in its own directory."""
    workdir.mkdir(parents=True, exist_ok=True)
    lx, ly, lz = np.diag(cell)
    atoms = "\n".join(f"{i + 1} 1 {x:.12f} {y:.12f} {z:.12f}" for i, (x, y, z) in enumerate(positions))
    (workdir / "cell.data").write_text(
        f"displaced supercell\n\n{len(positions)} atoms\n1 atom types\n"
        f"0 {lx:.12f} xlo xhi\n0 {ly:.12f} ylo yhi\n0 {lz:.12f} zlo zhi\n\n"
        f"Masses\n\n1 {MASS}\n\nAtoms # atomic\n\n{atoms}\n"
    )
    (workdir / "in.lmp").write_text(
        "units metal\nboundary p p p\natom_style atomic\natom_modify map array\nread_data cell.data\n"
        f"pair_style sw\npair_coeff * * {potential} Si\n"
        "dump f all custom 1 forces.dump id fx fy fz\ndump_modify f sort id format float %.15g\nrun 0\n"
    )
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    rows = (workdir / "forces.dump").read_text().splitlines()[9:]
    return np.array([[float(w) for w in r.split()[1:4]] for r in rows])


def main() -> None:
    """Displacements, forces, RTA and LBTE through the CLI; print the cross-check; write values.json."""
    import phono3py
    from phono3py.file_IO import write_FORCES_FC3

    potential, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    work = out / "runs" / "phono3py"
    work.mkdir(parents=True, exist_ok=True)
    lines = ["Si diamond, conventional cube", "1.0", f"{A0} 0 0", f"0 {A0} 0", f"0 0 {A0}", "Si", "8", "Direct"]
    lines += [" ".join(f"{x:.6f}" for x in p) for p in CUBE]
    (work / "POSCAR-unitcell").write_text("\n".join(lines) + "\n")
    t0 = time.perf_counter()
    sh(
        ["phono3py-init", "-d", "--dim", "2", "2", "2", "--pa", "F", "-c", "POSCAR-unitcell", "--amplitude", "0.03"],
        work,
    )
    ph3 = phono3py.load(work / "phono3py_disp.yaml", produce_fc=False, log_level=0)
    supercells = ph3.supercells_with_displacements
    forces = [
        lammps_forces(out / "runs" / "forces" / f"disp-{i + 1:03d}", s.cell, s.positions, potential)
        for i, s in enumerate(supercells)
    ]
    write_FORCES_FC3(ph3.dataset, forces_fc3=forces, filename=str(work / "FORCES_FC3"))
    print(f"{len(supercells)} displaced supercells, forces in {time.perf_counter() - t0:.1f} s")
    values: dict[str, float] = {}
    for label, flag, key in (("rta", "--br", "kappa_RTA_W_mK"), ("lbte", "--lbte", "kappa_LBTE_W_mK")):
        run = work / label
        run.mkdir(exist_ok=True)
        for name in ("phono3py_disp.yaml", "FORCES_FC3"):
            shutil.copy(work / name, run / name)
        t1 = time.perf_counter()
        sh(
            [
                "phono3py-load",
                "phono3py_disp.yaml",
                "--fc-calc",
                "traditional",
                "--mesh",
                "11",
                "11",
                "11",
                flag,
                "--ts",
                "300",
            ],
            run,
        )
        with h5py.File(run / "kappa-m111111.hdf5") as f:
            kappa = f["kappa"][0]
            if label == "rta":  # grid point 0 is Gamma; bands 3-5 the triply degenerate optical mode
                assert np.allclose(f["qpoint"][0], 0.0)
                gamma_opt = float(f["gamma"][0, 0, 3:6].mean())  # THz (ordinary frequency), half width
                values["tau_Gamma_optical_300K_ps"] = 1.0 / (4.0 * np.pi * gamma_opt)
                print(f"Gamma optical: nu = {f['frequency'][0, 3:6].mean():.4f} THz, Gamma = {gamma_opt:.6f} THz, "
                      f"tau = 1/(4 pi Gamma) = {values['tau_Gamma_optical_300K_ps']:.4f} ps, "
                      f"FWHM 2 Gamma = {2 * gamma_opt * 33.35641:.3f} cm^-1")
        values[key] = float(kappa[:3].mean())
        print(f"{label}: kappa(300 K) = {np.round(kappa, 3)} W/m-K ({time.perf_counter() - t1:.1f} s)")
    # cross-check: symfc force constants, same mesh, API route
    ph3 = phono3py.load(work / "phono3py_disp.yaml", produce_fc=False, log_level=0)
    ph3.forces = np.array(forces)
    ph3.produce_fc3(fc_calculator="symfc")
    ph3.mesh_numbers = [11, 11, 11]
    ph3.init_phph_interaction()
    ph3.run_thermal_conductivity(is_LBTE=True, temperatures=[300.0])
    lbte, rta = ph3.thermal_conductivity.kappa[0, 0, 0], ph3.thermal_conductivity.kappa_RTA[0, 0, 0]
    g_sym = float(np.asarray(ph3.thermal_conductivity.gamma)[0, 0, 0, 3:6].mean())
    print(f"symfc cross-check: tau(Gamma optical) = {1 / (4 * np.pi * g_sym):.4f} ps")
    print(
        f"symfc cross-check: RTA {rta:.3f} ({rta / values['kappa_RTA_W_mK'] - 1:+.2%}), "
        f"LBTE {lbte:.3f} ({lbte / values['kappa_LBTE_W_mK'] - 1:+.2%})"
    )
    (out / "values.json").write_text(json.dumps(values, indent=2) + "\n")


if __name__ == "__main__":
    main()
