"""Valid analysis routes and traps of si-dfpt-thermodynamics, from the staged force constants.

Usage: alternatives.py SI_FC      prints JSON: {case: full answer}
Every case is one full answer computed from si.fc with solution/thermo.py (matdyn.x), so the fairness record can
grade it as it stands. Valid routes have plain names, traps start with `trap:`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
from thermo import answer  # noqa: E402


def main() -> None:
    """Print every route's full answer as JSON."""
    fc = Path(sys.argv[1]).resolve()
    cases = {
        "mesh-16": answer(fc, "mesh", 16),
        "shifted-mesh-24": answer(fc, "mesh", 24, shift=0.5),
        "simple-sum-rule": answer(fc, "mesh", 16, asr="simple"),
        "tetrahedron-dos-16": answer(fc, "dos", 16),
        "mesh-8": answer(fc, "mesh", 8),
        "trap:ph-grid-4": answer(fc, "mesh", 4),
    }
    ref = cases["mesh-16"]
    # per two-atom primitive cell instead of per atom
    cases["trap:per-cell"] = {
        **ref,
        "ZPE_meV_per_atom": round(2 * ref["ZPE_meV_per_atom"], 3),
        "F_vib_300K_meV_per_atom": round(2 * ref["F_vib_300K_meV_per_atom"], 3),
        "S_vib_300K_J_per_molK": round(2 * ref["S_vib_300K_J_per_molK"], 4),
    }
    # the zero-point term forgotten in F (only the thermal part k_B T sum ln(1 - e^-x)); no crossing then
    f_thermal = ref["F_vib_300K_meV_per_atom"] - ref["ZPE_meV_per_atom"]
    cases["trap:no-zero-point-in-F"] = {**ref, "F_vib_300K_meV_per_atom": round(f_thermal, 3)}
    # h nu summed without the factor 1/2
    cases["trap:zpe-without-half"] = {**ref, "ZPE_meV_per_atom": round(2 * ref["ZPE_meV_per_atom"], 3)}
    print(json.dumps(cases, indent=2))


if __name__ == "__main__":
    main()
