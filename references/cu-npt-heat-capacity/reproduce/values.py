"""Reference isobaric heat capacity of the Foiles EAM crystal at 300 and 500 K from the five staged NPT logs.

Usage: values.py npt_100K.log ... npt_500K.log > values.json      (a record of the analysis goes to stderr)

Each log holds three thermo blocks: 20 ps NVT at the 0 K lattice constant, 20 ps NPT equilibration and 60 ps
NPT production (121 rows). At the imposed pressure of 0 bar the enthalpy H = E + P V is the total energy E
(TotEng = PotEng + KinEng, eV). The reference averages TotEng over the production block of each run, fits a
quadratic to <H>(T) per atom over the five set temperatures and differentiates it at 300 and 500 K:
C_p in J/(mol K) (1 eV/K per atom = N_A e J/(mol K)) and the excess C_p / (3 k_B) - 1 over the classical harmonic
crystal. The record printed to stderr gives the standard error of each mean (six 10 ps blocks) and its
propagation into the fitted derivatives, and the enthalpy-fluctuation estimate <dH^2> / (k_B T^2) of each run.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

K_B = 8.617333262e-5  # eV/K
EV_PER_K_TO_J_PER_MOL_K = 96485.33212  # N_A e
R3 = 3 * K_B * EV_PER_K_TO_J_PER_MOL_K  # 3 k_B per atom = 3R = 24.943 J/(mol K)
BAR_A3_TO_EV = 1e5 * 1e-30 / 1.602176634e-19  # 1 bar A^3 in eV


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


def read_log(path: Path) -> tuple[float, int, list[dict[str, np.ndarray]]]:
    """(set temperature, atom count, thermo blocks) of one log."""
    text = path.read_text()
    natoms = int(re.search(r"^Created (\d+) atoms", text, re.M).group(1))
    t_set = float(re.findall(r"^fix\s+md all npt temp \S+ (\S+)", text, re.M)[-1])  # the echo after substitution
    return t_set, natoms, blocks(text)


def read_logs(paths: list[str]) -> tuple[np.ndarray, int, list[list[dict[str, np.ndarray]]]]:
    """Set temperatures (increasing), the atom count and the thermo blocks of every log."""
    runs = sorted((read_log(Path(p)) for p in paths), key=lambda r: r[0])
    natoms = {r[1] for r in runs}
    assert len(natoms) == 1, natoms
    return np.array([r[0] for r in runs]), natoms.pop(), [r[2] for r in runs]


def cp_fit(t: np.ndarray, h: np.ndarray, natoms: int, deg: int, at: float) -> float:
    """C_p in J/(mol K) at `at` from a polynomial fit of degree `deg` to the cell enthalpies h(t) in eV."""
    c = np.polyfit(t, h / natoms, deg)
    return float(np.polyval(np.polyder(c), at)) * EV_PER_K_TO_J_PER_MOL_K


def excess(cp: float) -> float:
    """C_p / (3 k_B) - 1."""
    return cp / R3 - 1.0


def answer(cp300: float, cp500: float) -> dict[str, float]:
    """The answer fields, rounded as the reference records them."""
    return {
        "Cp_300K_J_per_mol_K": round(cp300, 3),
        "Cp_500K_J_per_mol_K": round(cp500, 3),
        "Cp_excess_300K": round(excess(cp300), 4),
        "Cp_excess_500K": round(excess(cp500), 4),
    }


def main() -> None:
    """Print the record to stderr and the reference values as JSON to stdout."""
    t, natoms, runs = read_logs(sys.argv[1:])
    prod = [r[-1] for r in runs]
    h = np.array([p["TotEng"].mean() for p in prod])
    sem = np.array([np.std([m.mean() for m in np.array_split(p["TotEng"], 6)], ddof=1) / np.sqrt(6) for p in prod])
    for ti, p, hi, si in zip(t, prod, h, sem, strict=True):
        e = p["TotEng"]
        fluct = e.var(ddof=1) / (K_B * ti**2) / natoms * EV_PER_K_TO_J_PER_MOL_K
        print(
            f"T = {ti:4.0f} K: {len(e)} rows, <T> = {p['Temp'].mean():6.1f} K, <P> = {p['Press'].mean():6.0f} bar,"
            f" <H> = {hi:.3f} +- {si:.3f} eV per cell; fluctuation C_p = {fluct:.2f} J/(mol K)",
            file=sys.stderr,
        )
    for deg in (2, 3):
        for at in (300.0, 500.0):
            w = np.array([cp_fit(t, row, natoms, deg, at) for row in np.eye(len(t))])  # C_p per eV of <H_i>
            sigma = float(np.sqrt(np.sum((w * sem) ** 2)))
            cp = cp_fit(t, h, natoms, deg, at)
            print(f"degree {deg}, {at:.0f} K: C_p = {cp:.3f} +- {sigma:.3f} J/(mol K), excess {excess(cp):+.4f}",
                  file=sys.stderr)  # fmt: skip
    ans = answer(cp_fit(t, h, natoms, 2, 300.0), cp_fit(t, h, natoms, 2, 500.0))
    json.dump({"temperatures_K": [float(x) for x in t], **ans}, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
