"""Reference lattice constants a(T) and linear thermal expansion coefficient at 300 K from the NPT logs.

Each log holds three thermo blocks: NVT thermalisation at the 0 K lattice constant, NPT equilibration, NPT
production. Only the production block (the last one) samples the equilibrium NPT ensemble. a(T) is the mean of
(4 V / N)^(1/3) over it (N atoms, 4 atoms per conventional cube). alpha_L(300 K) = (1/a)(da/dT) at 300 K from a
quadratic fit of a(T) over the five temperatures. Printed for the record: block-averaged standard errors,
a linear fit over 200-400 K, and the value one gets by averaging every thermo row of the log (the trap).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np


def blocks(text: str) -> list[dict[str, np.ndarray]]:
    """Thermo blocks of a LAMMPS log: column name -> values."""
    out, header, rows = [], None, []
    for line in text.splitlines():
        words = line.split()
        if words[:1] == ["Step"]:
            header, rows = words, []
        elif header and line.startswith("Loop time"):
            out.append({h: np.array([r[i] for r in rows]) for i, h in enumerate(header)})
            header = None
        elif header:
            try:
                rows.append([float(w) for w in words])
            except ValueError:
                continue
    return out


def analyse(path: Path) -> tuple[float, float, float, float]:
    """(T_set, a_production, standard error, a over every row) of one log."""
    text = path.read_text()
    natoms = int(re.search(r"Created (\d+) atoms", text).group(1))
    t_set = float(re.findall(r"fix\s+md all npt temp \S+ (\S+)", text)[-1])  # the echo after substitution
    b = blocks(text)
    a_of = lambda v: (4.0 * v / natoms) ** (1.0 / 3.0)  # noqa: E731
    prod = a_of(b[-1]["Volume"])
    # standard error from 6 blocks of 10 ps
    means = [m.mean() for m in np.array_split(prod, 6)]
    sem = float(np.std(means, ddof=1) / np.sqrt(len(means)))
    everything = np.concatenate([a_of(blk["Volume"]) for blk in b])
    return t_set, float(prod.mean()), sem, float(everything.mean())


def alpha(t: np.ndarray, a: np.ndarray, deg: int, at: float = 300.0) -> float:
    """(1/a) da/dT at `at` from a polynomial fit."""
    c = np.polyfit(t, a, deg)
    return float(np.polyval(np.polyder(c), at) / np.polyval(c, at))


def main() -> None:
    """Print the record to stderr and the reference values as JSON to stdout."""
    rows = sorted(analyse(Path(p)) for p in sys.argv[1:])
    t = np.array([r[0] for r in rows])
    a = np.array([r[1] for r in rows])
    naive = np.array([r[3] for r in rows])
    for ti, ai, se, ni in rows:
        print(f"T = {ti:5.0f} K  a = {ai:.5f} +- {se:.5f} A   (every row: {ni:.5f})", file=sys.stderr)
    mid = (t >= 200) & (t <= 400)
    print(
        f"alpha_L(300 K): quadratic {alpha(t, a, 2):.4e}, linear 200-400 K {alpha(t[mid], a[mid], 1):.4e}, "
        f"cubic {alpha(t, a, 3):.4e}; every-row averages, quadratic: {alpha(t, naive, 2):.4e} /K",
        file=sys.stderr,
    )
    json.dump(
        {
            "temperatures_K": [float(x) for x in t],
            "a_angstrom": [round(float(x), 5) for x in a],
            "alpha_L_300K_per_K": float(f"{alpha(t, a, 2):.4e}"),
        },
        sys.stdout,
        indent=2,
    )
    print()


if __name__ == "__main__":
    main()
