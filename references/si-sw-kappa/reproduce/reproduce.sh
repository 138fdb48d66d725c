#!/usr/bin/env bash
# Reference values of si-sw-kappa: phono3py command line + LAMMPS (Debian build of 29 Sep 2021) with the staged
# Si.sw. Pinned: phono3py 4.10.0 / phonopy 4.10.0; a0 = 5.431 A; 2x2x2 supercell of the 8-atom cube for fc2
# and fc3; 0.03 A displacements; 11x11x11 Gamma-centred mesh; tetrahedron method; no isotopes; T = 300 K.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-sw-kappa-reproduce)
#   OUTDIR/runs/phono3py/             POSCAR-unitcell, phono3py_disp.yaml, FORCES_FC3
#   OUTDIR/runs/forces/disp-NNN/      one LAMMPS run per displaced supercell (111)
#   OUTDIR/runs/phono3py/{rta,lbte}/  phono3py-load runs with kappa-m111111.hdf5
#   OUTDIR/values.json                kappa_RTA_W_mK, kappa_LBTE_W_mK
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
potential="$here/../../../tasks/si-thermal-transport/si-sw-kappa/workspace/Si.sw"
out=$(mkdir -p "${1:-si-sw-kappa-reproduce}" && cd "${1:-si-sw-kappa-reproduce}" && pwd)
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
python3 "$here/kappa_reference.py" "$potential" "$out"
