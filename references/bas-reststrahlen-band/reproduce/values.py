"""Reference values of bas-reststrahlen-band from the staged force constants and DFPT output.

The oracle's tool (../solution/reststrahlen.py) with a larger cell and more configurations for the disordered
samples: eight configurations of an 8x8x8 supercell (4096 atoms) per sample, Lanczos resolvent (400 steps).
Usage: values.py WORKSPACE [OUT.json] [--size 8] [--seeds 8]
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
import bas_disorder as bd  # noqa: E402
import bas_isotope as bi  # noqa: E402
import reststrahlen as rs  # noqa: E402


def opt(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main() -> None:
    flags = {"--size", "--seeds"}
    args = [a for i, a in enumerate(sys.argv[1:], 1) if not a.startswith("--") and sys.argv[i - 1] not in flags]
    ws = Path(args[0])
    size, nseeds = opt("--size", 8), opt("--seeds", 8)
    ph = bd.phonopy_fc(ws)
    ordered = rs.ordered_band(ws, bd.M11, cr=bi.Crystal(ws, 1, ph=ph))
    values = {f"B11_{k}": v for k, v in ordered.items()}  # flat keys, the names of reference.yaml
    for key, x10 in rs.SAMPLES.items():
        eps = rs.disordered_eps(ws, x10, size, tuple(range(nseeds)), ph=ph)
        values[f"{key}_min_Re_eps"] = round(float(eps.real.min()), 3)
    text = json.dumps(values, indent=2) + "\n"
    if len(args) > 1:
        Path(args[1]).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
