"""Lattice thermal conductivity of diamond Si with the Stillinger-Weber potential: LAMMPS forces, phono3py.

Prescribed settings (from the task): a0 = 5.431 A; the 2x2x2 supercell of the 8-atom cube (64 atoms) for both
fc2 and fc3; systematic displacements of 0.03 A; an 11x11x11 Gamma-centred q mesh on the fcc primitive cell;
linear tetrahedron integration; no isotope or boundary scattering; T = 300 K. One direct LBTE solution also
yields the RTA conductivity (phono3py computes both from the same collision matrix diagonal).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from phono3py import Phono3py
from phonopy.structure.atoms import PhonopyAtoms

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lmp_forces import forces  # noqa: E402

A0 = 5.431
MASS = 28.0855
CUBE = np.array(
    [
        [0, 0, 0],
        [0, 0.5, 0.5],
        [0.5, 0, 0.5],
        [0.5, 0.5, 0],
        [0.25, 0.25, 0.25],
        [0.25, 0.75, 0.75],
        [0.75, 0.25, 0.75],
        [0.75, 0.75, 0.25],
    ]
)


def main() -> None:
    """Displace, compute forces with LAMMPS, solve the BTE; print answer.json.

    An optional first argument replaces the prescribed a0 (the workflow passes the relaxed one).
    """
    a0 = float(sys.argv[1]) if len(sys.argv) > 1 else A0
    unitcell = PhonopyAtoms(symbols=["Si"] * 8, cell=np.eye(3) * a0, scaled_positions=CUBE, masses=[MASS] * 8)
    ph3 = Phono3py(unitcell, supercell_matrix=[2, 2, 2], primitive_matrix="F", log_level=0)
    ph3.generate_displacements(distance=0.03)
    supercells = ph3.supercells_with_displacements
    potential = Path("Si.sw").resolve()
    ph3.forces = forces(
        Path("runs/forces").resolve(), supercells[0].cell, [s.positions for s in supercells], "sw", potential
    )
    ph3.produce_fc3()  # fc2 comes from the same displacements (no separate phonon supercell)
    ph3.save("phono3py_params.yaml")
    ph3.mesh_numbers = [11, 11, 11]
    ph3.init_phph_interaction()
    ph3.run_thermal_conductivity(is_LBTE=True, temperatures=[300.0], write_kappa=True)
    tc = ph3.thermal_conductivity
    k_lbte = np.asarray(tc.kappa)[0, 0]  # (sigma, temperature, 6) -> xx, yy, zz, yz, xz, xy
    k_rta = np.asarray(tc.kappa_RTA)[0, 0]
    print(
        f"{len(supercells)} displaced supercells; kappa(300 K) LBTE {np.round(k_lbte, 3)}, RTA {np.round(k_rta, 3)}",
        file=sys.stderr,
    )
    # Gamma (grid point 0): phono3py's gamma is the imaginary self-energy in THz (ordinary frequency), a half
    # width; the lifetime is 1 / (2 Gamma_omega) = 1 / (4 pi Gamma) in ps.
    gamma = np.asarray(tc.gamma)[0, 0]  # (sigma, temperature, grid point, band) -> (grid point, band)
    assert np.allclose(ph3.mesh_numbers, 11) and np.allclose(tc.qpoints[0], 0.0)
    tau_opt = 1.0 / (4.0 * np.pi * gamma[0, 3:6].mean())
    answer = {
        "kappa_RTA_W_mK": round(float(k_rta[:3].mean()), 3),
        "kappa_LBTE_W_mK": round(float(k_lbte[:3].mean()), 3),
        "tau_Gamma_optical_300K_ps": round(float(tau_opt), 4),
    }
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
