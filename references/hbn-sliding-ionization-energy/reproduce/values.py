"""Reference values of hbn-sliding-ionization-energy, its alternatives and traps, from a sliding path's files.

The reference route differs from the oracle's: each vacuum level is the mean of the macroscopic average (3 bohr
window) over the middle fifth of its vacuum gap, where the oracle takes the planar average 4 A clear of the atoms and
of the ramp. Both use the solution's reader (solution/ionization.py) for the files.

Usage: values.py PATHDIR OUTDIR   writes OUTDIR/values.json and OUTDIR/alternatives.json (seconds)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "solution" / "ionization.py"
RY_EV = 13.605693123


def run(path: Path, *extra: str) -> dict:
    """The tool's result for every stacking with options `extra`."""
    out = subprocess.run([sys.executable, str(TOOL), str(path), *extra], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def answer(r: dict) -> dict:
    """The four answer fields from a result of the tool."""
    return {
        "AB_top": r["1.00"]["top"],
        "AB_bottom": r["1.00"]["bottom"],
        "SP": (r["1.50"]["top"] + r["1.50"]["bottom"]) / 2,
        "AA": (r["0.00"]["top"] + r["0.00"]["bottom"]) / 2,
    }


def main(path: Path, out: Path) -> None:
    """Write values.json and alternatives.json."""
    out.mkdir(parents=True, exist_ok=True)
    ref = run(path, "--column", "macro", "--fifth")
    oracle = run(path)
    ab, sp, aa, ba = ref["1.00"], ref["1.50"], ref["0.00"], ref["2.00"]
    values = {f"IE_{k}_eV": v for k, v in answer(ref).items()} | {
        "mirror_BA_top_eV": ba["top"],
        "mirror_BA_bottom_eV": ba["bottom"],
        "SP_faces_eV": [sp["top"], sp["bottom"]],
        "AA_faces_eV": [aa["top"], aa["bottom"]],
        "homo_eV": {k: v["homo"] for k, v in ref.items()},
    }
    alt = {
        "oracle_planar_4A": answer(oracle),
        "planar_3A": answer(run(path, "--clear", "3")),
        "ba_mirror": {"AB_top": ba["bottom"], "AB_bottom": ba["top"]},
        "macro_2A": answer(run(path, "--column", "macro", "--clear", "2")),
        "first_homo": answer(run(path, "--column", "macro", "--fifth", "--first-homo")),
        "homo_as_ie": {"AB_top": -ab["homo"], "AB_bottom": -ab["homo"], "SP": -sp["homo"], "AA": -aa["homo"]},
        "vacuum_in_ry": {
            "AB_top": ab["v_above"] / RY_EV - ab["homo"],
            "AB_bottom": ab["v_below"] / RY_EV - ab["homo"],
            "SP": sp["v_above"] / RY_EV - sp["homo"],
            "AA": aa["v_above"] / RY_EV - aa["homo"],
        },
        "one_vacuum_level": {"AB_top": (ab["top"] + ab["bottom"]) / 2, "AB_bottom": (ab["top"] + ab["bottom"]) / 2},
        "faces_swapped": {"AB_top": ab["bottom"], "AB_bottom": ab["top"]},
    }
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    (out / "alternatives.json").write_text(json.dumps(alt, indent=1) + "\n")
    print(json.dumps({"values": values, "alternatives": alt}, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
