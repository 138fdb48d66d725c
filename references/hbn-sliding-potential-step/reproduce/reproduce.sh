#!/usr/bin/env bash
# The precomputed step of hbn-sliding-ferroelectricity: bilayer h-BN along its armchair sliding path (QE 6.7,
# PBE + DFT-D3, the dipole correction in the vacuum), with the reference values of hbn-sliding-potential-step
# and hbn-sliding-barrier.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./hbn-sliding-potential-step-reproduce)
#   OUTDIR/path/s<lam>.relax.in|out   pw.x relaxation of the interlayer distance at shift lam (bilayer.py):
#                                     AB (lam = 1) first from 3.30 A, then SP, BA, 1.25, AA, 1.75 and 0.50 from
#                                     the relaxed AB distance (AA from 0.2 A above it); in-plane positions held
#   OUTDIR/path/s<lam>.avg.dat        average.x planar average of pp.x plot_num = 11 (V_bare + V_H) of the relaxed
#                                     bilayer, 1440 points along z, 3 bohr macroscopic window
#   OUTDIR/workspace/path/            the files staged for both analysis tasks (the barrier task stages no .avg.dat)
#   OUTDIR/values.json                the reference values of both analysis tasks (values.py)
# Settings pinned in bilayer.py: a = 2.504 A, c = 25 A, B/N.pbe-n-rrkjus_psl.1.0.0.UPF, 45/360 Ry, 12x12x1,
# conv_thr 1e-10 Ry, forc_conv_thr 1e-4 Ry/bohr, etot_conv_thr 1e-6 Ry, ramp at 0.95-1.00. Two MPI processes
# with two k-point pools (NP to change); each run records its seconds in s<lam>.time.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pseudo=/usr/share/espresso/pseudo
np=${NP:-2}
out=$(mkdir -p "${1:-hbn-sliding-potential-step-reproduce}" && cd "${1:-hbn-sliding-potential-step-reproduce}" && pwd)
for exe in pw.x pp.x average.x mpirun; do
    command -v "$exe" >/dev/null || { echo "reproduce.sh: $exe not on PATH" >&2; exit 1; }
done
export OMP_NUM_THREADS=1
mkdir -p "$out/path/pseudo"
cp "$pseudo/B.pbe-n-rrkjus_psl.1.0.0.UPF" "$pseudo/N.pbe-n-rrkjus_psl.1.0.0.UPF" "$out/path/pseudo/"
cd "$out/path"

relax() {  # relax LAM D
    local tag="s$1"
    python3 "$here/bilayer.py" "$1" "$2" relax "$tag" ./pseudo > "$tag.relax.in"
    /usr/bin/time -f "%e s wall %U s user" -o "$tag.time" \
        mpirun --allow-run-as-root -np "$np" pw.x -nk "$np" -in "$tag.relax.in" > "$tag.relax.out"
    grep -q "bfgs converged" "$tag.relax.out" || { echo "reproduce.sh: $tag did not converge" >&2; exit 1; }
    printf "&inputpp\n  prefix = '%s', outdir = './tmp', filplot = '%s.pot', plot_num = 11\n/\n" "$tag" "$tag" > "$tag.pp.in"
    pp.x -in "$tag.pp.in" > "$tag.pp.out"
    printf "1\n%s.pot\n1.0\n1440\n3\n3.0\n" "$tag" | average.x > "$tag.avg.out"
    mv avg.dat "$tag.avg.dat"
    rm -rf "tmp/$tag.save" "tmp/$tag.wfc"* "$tag.pot"
    echo "$tag: $(grep 'Final energy' "$tag.relax.out")"
}

relax 1.00 3.30
d_ab=$(python3 - <<'PY'
t = open("s1.00.relax.out").read().split("Begin final coordinates")[1].split("End final coordinates")[0]
z = [float(l.split()[3]) for l in t.splitlines() if l.split() and l.split()[0] in ("B", "N")]
print(round((z[2] + z[3] - z[0] - z[1]) / 2 * 25.0, 4))
PY
)
echo "relaxed AB distance: $d_ab A"
for lam in 1.50 2.00 1.25; do relax "$lam" "$d_ab"; done
relax 0.00 "$(python3 -c "print(round($d_ab + 0.2, 4))")"
for lam in 1.75 0.50; do relax "$lam" "$d_ab"; done
rm -rf tmp pseudo
mkdir -p "$out/workspace/path"
cp s*.relax.in s*.relax.out s*.avg.dat "$out/workspace/path/"
python3 "$here/values.py" "$out"
