#!/usr/bin/env bash
# Reference values of mass-interface-transmission: the analytic transmission of the two-mass harmonic chain,
# checked against an independent atomistic Green's function implementation (closed-form lead Green's
# functions), and the Landauer conductance by adaptive quadrature. Pure Python (numpy, scipy), a second.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./mass-interface-transmission-reproduce)
#   OUTDIR/values.json    the reference values, keyed like reference.yaml
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out="${1:-mass-interface-transmission-reproduce}"
mkdir -p "$out"
python3 "$here/transmission_reference.py" "$out"
