#!/usr/bin/env bash
# Reference values of ni-island-saddle-workflow: the references of its three steps, by the routes of their own
# reproduce scripts (11-replica FIRE bands, 0.0025 A Hessian displacements), with their alternatives (about a minute).
# Usage: reproduce.sh [OUTDIR]   writes OUTDIR/values.json, OUTDIR/alternatives.json and OUTDIR/workspace/
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out="${1:-ni-island-saddle-workflow-reproduce}"
mkdir -p "$out"
python3 "$here/../../ni-island-eam-saddle/reproduce/study_reference.py" ni-island-saddle-workflow "$out"
