"""eps_inf, Z* (charge neutrality imposed) from bas.dyn; TO/LO from the dynmat.x runs; eps_0 by LST."""

import json
import re
from pathlib import Path


def dyn_tensors(text: str) -> tuple[float, list[float]]:
    """eps_inf (xx) and the xx Born charge of each atom from a ph.x dynamical-matrix file."""
    block = text.split("Dielectric Tensor:")[1]
    eps = float(block.split()[0])
    zblock = text.split("Effective Charges E-U: Z_{alpha}{s,beta}")[1]
    charges = [float(m.group(1)) for m in re.finditer(r"atom #\s*\d+\s*\n\s*(\S+)", zblock)][:2]
    return eps, charges


def modes(path: str) -> list[float]:
    rows = re.findall(r"^\s+\d+\s+(-?\d+\.\d+)\s+-?\d+\.\d+\s+\d+\.\d+\s*$", Path(path).read_text(), re.M)
    return sorted(float(r) for r in rows)


def main() -> None:
    eps, (z_b, z_as) = dyn_tensors(Path("bas.dyn").read_text())
    mean = (z_b + z_as) / 2
    answer = {"eps_inf": round(eps, 4), "Z_B": round(z_b - mean, 4), "Z_As": round(z_as - mean, 4)}
    for iso in ("11", "10"):
        w = modes(f"dynmat-{iso}.out")
        to, lo = (w[3] + w[4]) / 2, w[5]
        answer[f"{iso}B"] = {
            "omega_TO_cm1": round(to, 3),
            "omega_LO_cm1": round(lo, 3),
            "eps_0": round(eps * lo**2 / to**2, 4),
        }
    Path("answer.json").write_text(json.dumps(answer, indent=2) + "\n")
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
