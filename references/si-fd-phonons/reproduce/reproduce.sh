#!/usr/bin/env bash
# Reference values of si-fd-phonons: phonopy 4.10 (Quantum ESPRESSO units) with QE 6.7 pw.x forces.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-fd-phonons-reproduce)
#   OUTDIR/runs/cube/disp-001/      the pinned setting: the one displaced 8-atom cube at a0 = 5.4755 A,
#                                   ecutwfc 30 Ry, Gamma-centred 4x4x4 k mesh (about 15 s of CPU)
#   OUTDIR/runs/cube-k6/, prim222/  cross-checks: denser k mesh; 16-atom supercell (a few minutes of CPU)
#   OUTDIR/values.json              gamma_optical_THz, X_TA_THz, X_LA_THz, X_TO_THz, Cv_300K_J_per_molK
# CMB_REPRODUCE_QUICK=1 skips the cross-checks.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-si-fd-phonons-reproduce}" && cd "${1:-si-fd-phonons-reproduce}" && pwd)
command -v pw.x >/dev/null || { echo "reproduce.sh: pw.x not on PATH" >&2; exit 1; }
python3 -c 'import phonopy' || { echo "reproduce.sh: phonopy not installed (pip install phonopy==4.10.0)" >&2; exit 1; }
python3 "$here/fd_reference.py" \
    "$here/../../../tasks/si-first-principles/si-fd-phonons/workspace/pseudo/Si.pbe-rrkj.UPF" "$out"
