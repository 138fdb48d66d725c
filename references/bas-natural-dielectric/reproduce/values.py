"""Reference values of bas-natural-dielectric from the staged force constants and DFPT output.

Uses the oracle's supercell tool (../solution/bas_disorder.py) with more configurations for the moments (eight,
4x4x4) and a larger cell for the peak (four configurations of 6x6x6, 1728 atoms, a few minutes; --peak-size 4
for a quick run). Usage: values.py WORKSPACE [OUT.json] [--peak-size N]
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
import bas_disorder as bd  # noqa: E402


def reference(ws: Path, peak_size: int = 6) -> dict:
    ph = bd.phonopy_fc(ws)
    moments = bd.ir_spectrum(ws, 0.199, size=4, seeds=range(8), ph=ph)
    peak = bd.ir_spectrum(ws, 0.199, size=peak_size, seeds=range(4), ph=ph)
    return {
        "omega_TO_mean_cm1": round(moments["mean"], 3),
        "sigma_TO_cm1": round(moments["sd"], 3),
        "peak_Im_eps_cm1": round(peak["peak"], 2),
        "eps_0": round(moments["eps0"], 4),
    }


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    size = int(sys.argv[sys.argv.index("--peak-size") + 1]) if "--peak-size" in sys.argv else 6
    args = [a for a in args if a != str(size)] if "--peak-size" in sys.argv else args
    text = json.dumps(reference(Path(args[0]), size), indent=2) + "\n"
    if len(args) > 1:
        Path(args[1]).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
