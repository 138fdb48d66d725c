"""Answers of the fairness cases of hgte-landau-levels, from the folder that reproduce.sh wrote.

Usage: python3 alternatives.py OUTDIR > alternatives.json

Passing routes (really run by reproduce.sh): the oracle's coarser grids (oracle.json) and the Onsager count from
the non-axial zero-field contours along [100] (noax.json). Errors (derived from the reference run): counting
kdotpy's band index bindex > 0 below E_F, counting distinct Landau-level indices, a spin factor of 2 on every
level, the Onsager estimate rounded in place of the count, and the counts of a pair-once Onsager sum.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

E_F = 30.0
H_OVER_E = 4.135667696e-15


def rows(path: Path, field: float) -> list[tuple[float, int, int]]:
    """(E, llindex, bindex) of every level at the field in kdotpy ll's table, sorted by energy."""
    with path.open() as fh:
        table = list(csv.reader(fh))
    head = table[0]
    ib, ie, il, ix = (head.index(c) for c in ("bz", "E", "llindex", "bindex"))
    return sorted((float(r[ie]), int(r[il]), int(r[ix])) for r in table[2:] if r and abs(float(r[ib]) - field) < 1e-6)


def main(out: Path) -> dict:
    """The passing answers and the error values, from the reproduction folder."""
    ref = json.loads((out / "answer.json").read_text())
    result = {
        "oracle": json.loads((out / "oracle.json").read_text()),
        "noax": json.loads((out / "noax.json").read_text()),
    }
    errors: dict = {}
    for field, tag in ((3.6, "3p6T"), (4.5, "4p5T")):
        levels = rows(out / "bdependence-ref.csv", field)
        lowest = ref["lowest_levels_4p5T_meV"][0] if field == 4.5 else None
        errors[f"bindex_count_{tag}"] = sum(1 for e, _, b in levels if b > 0 and e < E_F)
        if lowest is not None:
            counted = [lv for lv in levels if lowest - 1e-6 <= lv[0] < E_F]
            errors[f"distinct_llindex_{tag}"] = len({ll for _, ll, _ in counted})
        errors[f"rounded_onsager_{tag}"] = round(ref[f"onsager_levels_{tag}"])
    errors["density_rounded_onsager_4p5T"] = errors["rounded_onsager_4p5T"] * 4.5 / H_OVER_E * 1e-15
    errors["density_spin_factor_4p5T"] = 2 * ref["density_4p5T_1e11_cm2"]
    errors["top_valence_level_4p5T"] = max(
        e for e, _, _ in rows(out / "bdependence-ref.csv", 4.5) if e < ref["lowest_levels_4p5T_meV"][0]
    )
    result["errors"] = errors
    return result


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1])), indent=1))
