#!/usr/bin/env bash
# Convergence data behind the k-point threshold of graders/si-vasp-dielectric-inputs.yaml.
#
# VASP is not available here, so the sampling a converged epsilon_infinity of silicon needs is measured with the
# same physics in Quantum ESPRESSO 6.7: DFPT (ph.x, epsil = .true., trans = .false.: the electric-field response
# with clamped ions, as VASP's LEPSILON) for diamond Si at a = 5.4755 A (PBE, Si.pbe-rrkj.UPF, ecutwfc 24 Ry),
# on Gamma-centred n x n x n meshes of the 2-atom cell, n = 4 ... 20 (odd n included: they contain Gamma too). The Born charges of Si vanish by symmetry
# and are printed as a sanity check.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./si-vasp-dielectric-reproduce)
#   OUTDIR/runs/kN/          pw.x + ph.x for one mesh (scf.in/out, ph.in/out)
#   OUTDIR/values.json       kmesh_min (smallest n whose epsilon_inf is within 2% of the n = 20 value, for every
#                            larger n too), kppra_min (n^3 x 2 atoms), eps_inf_limit (n = 20), and the reference
#                            input set's public facts (lattice_constant_angstrom, elements)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pseudo="$here/../../../tasks/si-first-principles/si-fd-phonons/workspace/pseudo/Si.pbe-rrkj.UPF"
out=$(mkdir -p "${1:-si-vasp-dielectric-reproduce}" && cd "${1:-si-vasp-dielectric-reproduce}" && pwd)
export OMP_NUM_THREADS=1
rm -f "$out/eps.dat"
for n in 4 6 8 9 10 11 12 13 14 16 20; do
    run="$out/runs/k$n"
    rm -rf "$run" && mkdir -p "$run/pseudo" && cp "$pseudo" "$run/pseudo/"
    cat > "$run/scf.in" <<IN
&control
  calculation = 'scf', prefix = 'si', outdir = './out', pseudo_dir = './pseudo'
/
&system
  ibrav = 2, celldm(1) = 10.3472, nat = 2, ntyp = 1, ecutwfc = 24.0
/
&electrons
  conv_thr = 1.0d-12
/
ATOMIC_SPECIES
Si 28.0855 Si.pbe-rrkj.UPF
ATOMIC_POSITIONS crystal
Si 0.00 0.00 0.00
Si 0.25 0.25 0.25
K_POINTS automatic
$n $n $n 0 0 0
IN
    cat > "$run/ph.in" <<IN
Dielectric constant of Si, ions clamped
&inputph
  prefix = 'si', outdir = './out', tr2_ph = 1.0d-16, epsil = .true., trans = .false., fildyn = 'si.dyn'
/
0.0 0.0 0.0
IN
    (cd "$run" && pw.x -in scf.in > scf.out && ph.x -in ph.in > ph.out)
    eps=$(awk '/Dielectric constant in cartesian axis/ {getline; getline; print $2; exit}' "$run/ph.out")
    echo "$n $eps" >> "$out/eps.dat"
    echo "Gamma-centred ${n}x${n}x${n}: eps_inf = $eps"
done
python3 - "$out" <<'PY'
import json, sys
from pathlib import Path

out = Path(sys.argv[1])
rows = [(int(n), float(e)) for n, e in (line.split() for line in (out / "eps.dat").read_text().splitlines())]
limit = rows[-1][1]
ok = [n for i, (n, _) in enumerate(rows) if all(abs(e / limit - 1) <= 0.02 for _, e in rows[i:])]
for n, e in rows:
    print(f"  {n:2d}^3: eps_inf = {e:8.4f}  ({100 * (e / limit - 1):+6.2f}% from 20^3)")
values = {
    "lattice_constant_angstrom": 5.4755,
    "elements": ["Si"],
    "kmesh_min": ok[0],
    "kppra_min": ok[0] ** 3 * 2,
    "eps_inf_limit": round(limit, 3),
}
(out / "values.json").write_text(json.dumps(values, indent=2) + "\n")
print(json.dumps(values))
PY
