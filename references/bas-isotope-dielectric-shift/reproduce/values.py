"""Reference values of bas-isotope-dielectric-shift from the staged force constants and DFPT output.

The oracle's tool (../solution/enrich.py, bas_isotope.py, bas_disorder.py) with eight configurations (seeds 0-7)
of the 4x4x4 supercell per composition, and, as cross-checks recorded in reference.yaml, 5x5x5 and 6x6x6 cells.
Usage: values.py WORKSPACE [OUT.json] [--sizes 5,6]
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
import bas_isotope as bi  # noqa: E402
import enrich  # noqa: E402


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    sizes = []
    if "--sizes" in sys.argv:
        sizes = [int(s) for s in sys.argv[sys.argv.index("--sizes") + 1].split(",")]
        args = [a for a in args if a != sys.argv[sys.argv.index("--sizes") + 1]]
    ws = Path(args[0])
    cr = bi.Crystal(ws, 4)
    answer = enrich.answer(ws, 4, tuple(range(8)), cr=cr)
    values = {"enrichment_shift_cm1": answer["enrichment_shift_cm1"]}
    for sample in enrich.SAMPLES:  # flat keys, the names of reference.yaml
        values[f"omega_TO_mean_{sample}_cm1"] = answer[sample]["omega_TO_mean_cm1"]
        values[f"sigma_TO_{sample}_cm1"] = answer[sample]["sigma_TO_cm1"]
    for size in sizes:
        values[f"size{size}"] = enrich.answer(ws, size, (0, 1, 2, 3), cr=bi.Crystal(ws, size, ph=cr.ph))
    text = json.dumps(values, indent=2) + "\n"
    if len(args) > 1:
        Path(args[1]).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
