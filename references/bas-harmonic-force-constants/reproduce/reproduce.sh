#!/usr/bin/env bash
# The precomputed DFT step of bas-harmonic-force-constants: LDA forces (QE 6.7 pw.x) on the two phonopy-displaced
# 64-atom supercells of zinc-blende BAs, with the settings selected in bas-supercell-force-inputs. The harmonic
# phonons themselves are the agent's analysis (values.py makes the reference).
#
# Usage: reproduce.sh [OUTDIR]      (default: ./bas-harmonic-force-constants-reproduce)
#   OUTDIR/runs/disp-00N/      pw.in, pw.out, time.log of displacement N (2x2x2 supercell of the 8-atom cube)
#   OUTDIR/workspace/          the files staged for the agent: unitcell.in, phonopy_disp.yaml, disp-00N/pw.out,
#                              dfpt/ph.out (the ph.x output of references/bas-born-charges-dielectric/reproduce)
#   OUTDIR/values.json         the reference analysis (values.py)
# Pinned settings: a = 4.7225 A (the LDA minimum, references/bas-supercell-force-inputs/reproduce/eos.py),
# B.pz-vbc.UPF and As.pz-bhs.UPF, ecutwfc 60 Ry (ecutrho 240), fixed occupations, conv_thr 1e-10 Ry, tprnfor,
# 2x2x2 shifted supercell mesh; phonopy 4.10 default displacement 0.02 bohr. One MPI process per pw.x run; the
# two displacements run side by side.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$(mkdir -p "${1:-bas-harmonic-force-constants-reproduce}" && cd "${1:-bas-harmonic-force-constants-reproduce}" && pwd)
for exe in pw.x phonopy-init; do
    command -v "$exe" >/dev/null || { echo "reproduce.sh: $exe not on PATH" >&2; exit 1; }
done
export OMP_NUM_THREADS=1
mkdir -p "$out/runs/pseudo" "$out/workspace/dfpt"
cp /usr/share/espresso/pseudo/B.pz-vbc.UPF /usr/share/espresso/pseudo/As.pz-bhs.UPF "$out/runs/pseudo/"
cp "$root/tasks/bas-isotope-dielectric/bas-supercell-force-inputs/workspace/unitcell.in" "$out/runs/"
(cd "$out/runs" && phonopy-init --qe -d --dim="2 2 2" -c unitcell.in > phonopy-init.log)
for n in 001 002; do
    run="$out/runs/disp-$n"; rm -rf "$run"; mkdir -p "$run"
    # the namelists of the reference input of bas-supercell-force-inputs around phonopy's supercell-$n.in
    python3 - "$root/references/bas-supercell-force-inputs/pw.in" "$out/runs/supercell-$n.in" "$n" > "$run/pw.in" <<'PY'
import sys
ref, sc, n = sys.argv[1:]
head = open(ref).read().split("CELL_PARAMETERS")[0]
head = head.replace("prefix = 'bas'", f"prefix = 'bas{n}'").replace("pseudo_dir = './pseudo'", "pseudo_dir = '../pseudo'")
print(head + open(sc).read().split("\n", 1)[1], end="")
PY
    (cd "$run" && /usr/bin/time -v pw.x -in pw.in > pw.out 2> time.log) &
done
wait
for n in 001 002; do
    run="$out/runs/disp-$n"
    grep -q 'JOB DONE' "$run/pw.out" || { echo "reproduce.sh: pw.x failed on displacement $n" >&2; exit 1; }
    rm -rf "$run/tmp"
    mkdir -p "$out/workspace/disp-$n"
    cp "$run/pw.out" "$out/workspace/disp-$n/pw.out"
done
cp "$out/runs/unitcell.in" "$out/runs/phonopy_disp.yaml" "$out/workspace/"
cp "$root/tasks/bas-isotope-dielectric/bas-born-charges-dielectric/workspace/ph.out" "$out/workspace/dfpt/ph.out"
python3 "$here/values.py" "$out/workspace" "$out/values.json"
