"""Valid analysis routes and traps of si-dfpt-elastic-constants, from the staged force constants.

Usage: alternatives.py SI_FC      prints JSON: {case: full answer}
Every case is one full answer computed from si.fc with solution/elastic.py (matdyn.x), so the fairness record
can grade it as it stands. Valid routes have plain names, traps start with `trap:`.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
from elastic import answer  # noqa: E402

A_EXP = 5.431  # A, the measured lattice constant of Si at room temperature


def main() -> None:
    """Print every route's full answer as JSON."""
    fc = Path(sys.argv[1]).resolve()
    cases = {
        "single-q-0.01": answer(fc, "crystal", (0.01,))[0],
        "single-q-0.05": answer(fc, "crystal", (0.05,))[0],
        "simple-sum-rule": answer(fc, "simple", (0.01,))[0],
        "c12-from-la110": answer(fc, "crystal", (0.01,), c12="la110")[0],
        "fit-0.02-0.1": answer(fc, "crystal", (0.02, 0.05, 0.1))[0],
        "trap:no-sum-rule": answer(fc, "no", (0.01,))[0],
        "trap:q-0.2": answer(fc, "crystal", (0.2,))[0],
        "trap:experimental-lattice": answer(fc, "crystal", (0.01,), a_angstrom=A_EXP)[0],
    }
    ref = cases["single-q-0.01"]
    rho = ref["density_kg_m3"]
    # the two transverse waves along [110] swapped: the slower one taken for C44, the faster for (C11 - C12)/2
    c44 = rho * ref["v_TA_110_pol1m10_m_s"] ** 2 / 1e9
    c12 = ref["C11_GPa"] - 2 * rho * ref["v_TA_110_pol001_m_s"] ** 2 / 1e9
    cases["trap:swapped-110-shear-waves"] = {
        **ref,
        "v_TA_110_pol001_m_s": ref["v_TA_110_pol1m10_m_s"],
        "v_TA_110_pol1m10_m_s": ref["v_TA_110_pol001_m_s"],
        "C44_GPa": round(c44, 2),
        "C12_GPa": round(c12, 2),
        "B_GPa": round((ref["C11_GPa"] + 2 * c12) / 3, 2),
    }
    # the slope taken as 2 pi nu / (q 2 pi / a) with nu in cycles but k without its 2 pi: velocities x 2 pi
    vel = [k for k in ref if k.startswith("v_")]
    cases["trap:velocity-times-2pi"] = {**ref, **{k: round(ref[k] * 2 * math.pi, 1) for k in vel}}
    print(json.dumps(cases, indent=2))


if __name__ == "__main__":
    main()
