"""Collinear AFM RuO2 (rutile) with GPAW 26.7, PBE+U, no spin-orbit coupling.

    python ruo2_gpaw.py scf OUTDIR              self-consistent ground state -> OUTDIR/scf.gpw, OUTDIR/scf.json
    python ruo2_gpaw.py bands OUTDIR PART N     band energies of both spins on part PART (0..N-1) of the plane grid
    python ruo2_gpaw.py collect OUTDIR N        join the parts -> OUTDIR/bands_raw.h5

The ground state is the 6-atom cell with opposite moments on the two Ru sublattices (Ru1 at the origin starts
at +1.5 muB, Ru2 at the body centre at -1.5 muB). The bands are non-self-consistent (the SCF density fixed) on the
uniform 16 x 16 grid of the k_z = 0 plane covering the first Brillouin zone once, without symmetry reduction.
GPAW's spin index 0 is the channel in which Ru1 is the majority ("up").
"""
import json
import os
import sys
import time

import numpy as np

os.environ.setdefault("GPAW_SETUP_PATH", "/usr/share/gpaw-setups")

A, C, U_O = 4.492, 3.106, 0.3058          # experimental rutile RuO2 cell (angstrom) and O parameter
U_RU = 2.0                                 # eV, Dudarev U on Ru 4d
N = 16                                     # k-plane grid N x N
NBANDS, NCONV = 28, 24


def kgrid():
    idx = np.arange(N) - N // 2 + 1        # -7 .. 8: the grid covers the zone once
    return np.array([(i / N, j / N, 0.0) for i in idx for j in idx])


def scf(out):
    from ase import Atoms
    from gpaw import GPAW, PW, FermiDirac

    frac = [(0, 0, 0), (0.5, 0.5, 0.5),
            (U_O, U_O, 0), (-U_O, -U_O, 0), (0.5 + U_O, 0.5 - U_O, 0.5), (0.5 - U_O, 0.5 + U_O, 0.5)]
    atoms = Atoms("Ru2O4", scaled_positions=frac, cell=[A, A, C], pbc=True)
    atoms.set_initial_magnetic_moments([1.5, -1.5, 0, 0, 0, 0])
    t0 = time.process_time()
    calc = GPAW(mode=PW(450), xc="PBE", setups={"Ru": "8:d,%.1f" % U_RU},
                kpts={"size": (6, 6, 8), "gamma": True}, occupations=FermiDirac(0.05),
                convergence={"energy": 1e-6, "density": 1e-5}, txt=os.path.join(out, "scf.txt"))
    atoms.calc = calc
    energy = atoms.get_potential_energy()
    calc.write(os.path.join(out, "scf.gpw"))
    json.dump({"energy_eV": energy, "magmoms": atoms.get_magnetic_moments().tolist(),
               "efermi_eV": calc.get_fermi_level(), "cpu_s": time.process_time() - t0},
              open(os.path.join(out, "scf.json"), "w"), indent=1)


def bands(out, part, nparts):
    from gpaw import GPAW

    k = np.array_split(kgrid(), nparts)[part]
    t0 = time.process_time()
    calc = GPAW(os.path.join(out, "scf.gpw")).fixed_density(
        kpts=k, symmetry="off", nbands=NBANDS, convergence={"bands": NCONV},
        txt=os.path.join(out, f"bands{part}.txt"))
    eps = np.array([[calc.get_eigenvalues(kpt=i, spin=s) for i in range(len(k))] for s in (0, 1)])
    np.savez(os.path.join(out, f"bands{part}.npz"), k=k, eps=eps, cpu_s=time.process_time() - t0)


def collect(out, nparts):
    import h5py

    parts = [np.load(os.path.join(out, f"bands{p}.npz")) for p in range(nparts)]
    k = np.concatenate([p["k"] for p in parts])
    eps = np.concatenate([p["eps"] for p in parts], axis=1)
    info = json.load(open(os.path.join(out, "scf.json")))
    with h5py.File(os.path.join(out, "bands_raw.h5"), "w") as f:
        f["kfrac"] = k
        f["eps"] = eps                     # [spin (0 = up: Ru1 majority), k, band], eV
        f.attrs["efermi"] = info["efermi_eV"]
    info["cpu_s_bands"] = float(sum(p["cpu_s"] for p in parts))
    json.dump(info, open(os.path.join(out, "run.json"), "w"), indent=1)


if __name__ == "__main__":
    mode, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if mode == "scf":
        scf(out)
    elif mode == "bands":
        bands(out, int(sys.argv[3]), int(sys.argv[4]))
    else:
        collect(out, int(sys.argv[3]))
