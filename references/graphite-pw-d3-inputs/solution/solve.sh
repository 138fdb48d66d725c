#!/usr/bin/env bash
# Oracle for graphite-pw-d3-inputs: write pw.in for AB graphite at a = 2.464 A, c = 6.711 A with PBE + DFT-D3,
# as an expert would, in a form that differs on purpose from the reference input set (lattice through A and C in
# angstrom, positions with the layers at z = 0 and 1/2, upper-case namelists, 'grimme-d3' spelling, a 16x16x4
# mesh, ecutwfc 60 Ry with ecutrho 10x, Gaussian smearing), so that passing shows the grader compares effective
# settings and the crystal, not text.
# Convergence behind the choices (references/graphite-pw-d3-inputs/reproduce): from 55 Ry up the energy is within
# 1 meV/atom of 100 Ry; every Gamma-centred mesh from 14x14x3 up is within 1 meV/atom of 30x30x10 (12x12 and 15x15
# in plane are not, 15x15 only just). The pseudopotential is ultrasoft, so ecutrho is set well above the default
# 4x. Graphite is a semimetal: smearing, no spin.
set -euo pipefail
cat > pw.in <<'PWIN'
&CONTROL
  calculation = 'scf'
  prefix = 'gr'
  outdir = './out'
  pseudo_dir = './pseudo'
/
&SYSTEM
  ibrav = 4
  A = 2.464
  C = 6.711
  nat = 4
  ntyp = 1
  ecutwfc = 60
  ecutrho = 600
  occupations = 'smearing'
  smearing = 'gaussian'
  degauss = 0.01
  vdw_corr = 'grimme-d3'
/
&ELECTRONS
  conv_thr = 1.0d-8
/
ATOMIC_SPECIES
  C  12.011  C.pbe-rrkjus.UPF
ATOMIC_POSITIONS {crystal}
  C  0.0            0.0            0.0
  C  0.333333333333 0.666666666667 0.0
  C  0.0            0.0            0.5
  C  0.666666666667 0.333333333333 0.5
K_POINTS {automatic}
  16 16 4 0 0 0
PWIN
# Check that pw.x accepts the deck and applies D3, when pw.x and the staged pseudopotential are at hand: a copy at
# light settings (25/200 Ry, 4x4x1), a few seconds; the graded file is left as written.
if command -v pw.x >/dev/null && [[ -f pseudo/C.pbe-rrkjus.UPF ]]; then
    tmp=$(mktemp -d)
    cp -r pseudo "$tmp/"
    sed -e 's/ecutwfc = 60/ecutwfc = 25/' -e 's/ecutrho = 600/ecutrho = 200/' -e 's/16 16 4 0 0 0/4 4 1 0 0 0/' \
        pw.in > "$tmp/pw.in"
    (cd "$tmp" && OMP_NUM_THREADS=1 pw.x -in pw.in > pw.out 2>&1 && grep -q 'JOB DONE' pw.out) \
        || { echo "solve.sh: pw.x rejected pw.in" >&2; exit 1; }
    grep -q 'DFT-D3 Dispersion' "$tmp/pw.out" || { echo "solve.sh: no D3 energy in the output" >&2; exit 1; }
    grep -E '^!|DFT-D3 Dispersion' "$tmp/pw.out"
    rm -rf "$tmp"
fi
