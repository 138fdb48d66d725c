"""Answers of the fairness cases of cu-qha-versus-md, from the variants written by qvm_reference.py.

Usage: python3 alternatives.py OUTDIR (the folder where qvm_reference.py wrote variants.json). Prints one JSON
answer per case: valid routes (other supercells, EOS forms, grids, MD windows) and common errors (quantum
occupation, every MD row averaged, reversed sign, the volumetric coefficient, the MD coefficient).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def answer(qha: dict, md: list[float]) -> dict:
    """The three answer fields from one QHA variant and one set of MD averages."""
    return {
        "a_QHA_classical_angstrom": [round(a, 5) for a in qha["a"]],
        "delta_a_angstrom": [round(m - a, 5) for m, a in zip(md, qha["a"], strict=True)],
        "alpha_L_QHA_classical_300K_per_K": float(f"{qha['alpha_L_300K']:.4e}"),
    }


def main() -> None:
    """Print the answer of every fairness case."""
    v = json.loads((Path(sys.argv[1]) / "variants.json").read_text())
    md = v["md"]
    ref = v["4x4x4/vinet/classical"]
    cases = {
        "smallest-supercell": answer(v["2x2x2/vinet/classical"], md["production"]),
        "murnaghan-eos": answer(v["4x4x4/murnaghan/classical"], md["production"]),
        "narrower-grid": answer(v["4x4x4/vinet/classical/narrow-grid"], md["production"]),
        "md-second-half": answer(ref, md["second_half"]),
        "md-first-half-3x3x3": answer(v["3x3x3/vinet/classical"], md["first_half"]),
        "quantum-occupation": answer(v["4x4x4/vinet/quantum"], md["production"]),
        "every-md-row-averaged": answer(ref, md["all_rows"]),
        "reversed-sign": {
            "delta_a_angstrom": [round(a - m, 5) for m, a in zip(md["production"], ref["a"], strict=True)]
        },
        "volumetric-coefficient": {"alpha_L_QHA_classical_300K_per_K": float(f"{3 * ref['alpha_L_300K']:.4e}")},
        "md-coefficient": {"alpha_L_QHA_classical_300K_per_K": float(f"{v['md_alpha_L_300K']['production']:.4e}")},
        "primitive-lattice-vector": {"a_QHA_classical_angstrom": [round(a / 2**0.5, 5) for a in ref["a"]]},
    }
    for name, ans in cases.items():
        print(f"{name}: {json.dumps(ans)}")


if __name__ == "__main__":
    main()
