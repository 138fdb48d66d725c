#!/usr/bin/env bash
# Evidence and reference input set of optics-inputs.
#
# Usage: reproduce.sh [OUTDIR]      (default: ./optics-reproduce)
#   OUTDIR/runs/bands/          pw.x SCF + 40-band NSCF of Si (QE 6.7): the lowest energy of each band above the
#                               VBM, hence the smallest NBANDS that holds every transition below 15 eV
#   OUTDIR/runs/eps_nb*/        epsilon.x spectra with 8 (VASP's default for this cell), 16 and 24 bands
#   OUTDIR/inputs/              INCAR, KPOINTS, POSCAR, POTCAR.spec (pymatgen; identical to the committed files)
#   OUTDIR/values.json          nbands_min, band minima, where 8 bands first spoil epsilon_2, k spacing of the mesh
# A few minutes of CPU (the epsilon.x runs without symmetry dominate).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(mkdir -p "${1:-optics-reproduce}" && cd "${1:-optics-reproduce}" && pwd)
command -v pw.x >/dev/null && command -v epsilon.x >/dev/null || { echo "reproduce.sh: pw.x/epsilon.x missing" >&2; exit 1; }
pseudo="$out/Si.pbe-rrkj.UPF"
for d in ${CMB_QE_PSEUDO_DIR:-} /usr/share/espresso/pseudo; do
    [[ -f "$d/Si.pbe-rrkj.UPF" ]] && { cp "$d/Si.pbe-rrkj.UPF" "$pseudo"; break; }
done
[[ -f "$pseudo" ]] || { echo "reproduce.sh: Si.pbe-rrkj.UPF not found (install quantum-espresso-data)" >&2; exit 1; }
python3 "$here/band_count.py" "$pseudo" "$out"
mv "$out/values.json" "$out/bands.json"
python3 "$here/make_inputs.py" "$out"
python3 - "$out" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
values = {**json.loads((out / "bands.json").read_text()), **json.loads((out / "values.json").read_text())}
(out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
PY
for f in INCAR KPOINTS POSCAR POTCAR.spec; do
    cmp -s "$out/inputs/$f" "$here/../$f" || echo "reproduce.sh: $f differs from the committed reference" >&2
done
