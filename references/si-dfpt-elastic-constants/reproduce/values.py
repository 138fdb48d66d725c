"""Reference values of si-dfpt-elastic-constants from the staged force constants, written to values.json.

Usage: values.py SI_FC VALUES_JSON

The reference route: matdyn.x with asr = 'crystal' at |q| = 0.005, 0.01, 0.02 and 0.05 (2 pi/a) along [001] and
[110]; each velocity is the q -> 0 intercept of nu~/q = v + b q^2 (solution/elastic.py), the elastic constants
rho v^2 with the density of the staged cell (a = celldm(1) of si.fc, 8 atoms of 28.0855 amu per a^3).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
from elastic import answer  # noqa: E402

QS = (0.005, 0.01, 0.02, 0.05)


def main() -> None:
    """Write the reference values."""
    fc, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    values, raw = answer(fc, "crystal", QS)
    print(json.dumps(raw))
    print(json.dumps(values))
    out.write_text(json.dumps(values, indent=2) + "\n")


if __name__ == "__main__":
    main()
