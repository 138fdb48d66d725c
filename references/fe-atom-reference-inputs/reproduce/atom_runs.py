"""The isolated Fe atom runs behind fe-atom-reference-inputs (QE 6.7 pw.x, one process each, one at a time).

Usage: python3 atom_runs.py PSEUDO_FILE OUTDIR [NAME ...]

Runs, each in OUTDIR/runs/<name>/ with the staged pseudopotential: `reference` (the reference input pw.in beside
reference.yaml: 12 x 12.5 x 13 A, Γ, 45/360 Ry, nspin 2, tot_magnetization 4, Gaussian 0.005 Ry) and the traps
`box6` (the same in a 6 A cube), `tm2` (tot_magnetization 2), `bulk_smearing` (no constraint, cold smearing
0.02 Ry as in the bulk runs) and `cubic12` (a 12 A cube). Default: box6 and reference. A run at these cutoffs in
the 12 A box takes 20-40 CPU minutes (about 45 s of CPU per SCF iteration here); box6 takes half a minute.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from values import run_result  # noqa: E402

REF = Path(__file__).parent.parent / "pw.in"


def deck(name: str) -> str:
    """The pw.x input of one named run: the reference input with the run's edits."""
    text = REF.read_text()
    box = "celldm(1) = 22.676714, celldm(2) = 1.04166667, celldm(3) = 1.08333333"
    edits = {
        "reference": [],
        "box6": [(box, "celldm(1) = 11.338357, celldm(2) = 1.00000000, celldm(3) = 1.00000000")],
        "cubic12": [(box, "celldm(1) = 22.676714, celldm(2) = 1.00000000, celldm(3) = 1.00000000")],
        "tm2": [("tot_magnetization = 4.0", "tot_magnetization = 2.0")],
        "bulk_smearing": [
            ("  tot_magnetization = 4.0\n", ""),
            ("smearing = 'gaussian', degauss = 0.005", "smearing = 'mv', degauss = 0.02"),
        ],
    }[name]
    for old, new in edits:
        assert old in text, (name, old)
        text = text.replace(old, new)
    return text


def main() -> None:
    """Run the named atoms one after the other, keeping runs that finished earlier."""
    pseudo, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    names = sys.argv[3:] or ["box6", "reference"]
    for name in names:
        d = out / "runs" / name
        (d / "pseudo").mkdir(parents=True, exist_ok=True)
        link = d / "pseudo" / pseudo.name
        if not link.exists():
            link.symlink_to(pseudo)
        text = deck(name)
        if (d / "pw.in").is_file() and (d / "pw.in").read_text() == text and (d / "pw.out").is_file():
            if run_result((d / "pw.out").read_text()) is not None:
                print(f"{name}: finished earlier, kept")
                continue
        (d / "pw.in").write_text(text)
        env = dict(os.environ, OMP_NUM_THREADS="1")
        with (d / "pw.out").open("w") as fh:
            subprocess.run(["pw.x", "-in", "pw.in"], cwd=d, stdout=fh, stderr=subprocess.STDOUT, env=env, check=True)
        print(name, run_result((d / "pw.out").read_text()))


if __name__ == "__main__":
    main()
