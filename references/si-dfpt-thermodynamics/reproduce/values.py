"""Reference values of si-dfpt-thermodynamics from the staged force constants, written to values.json.

Usage: values.py SI_FC VALUES_JSON

The reference route (solution/thermo.py): matdyn.x with asr = 'crystal' on a Gamma-centred 24x24x24 mesh of the
Brillouin zone (13824 wave vectors, every mode weighted equally); the cross-check is matdyn.x's tetrahedron DOS
on 20x20x20, printed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
from thermo import answer  # noqa: E402


def main() -> None:
    """Write the reference values."""
    fc, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    values = answer(fc, "mesh", 24)
    print("DOS 20^3 cross-check:", json.dumps(answer(fc, "dos", 20)))
    print(json.dumps(values))
    out.write_text(json.dumps(values, indent=2) + "\n")


if __name__ == "__main__":
    main()
