"""Oracle for nio-u-analysis: read the six pw.x outputs as they are, trusting nothing but what pw.x printed.

For each output: the Hubbard U pw.x applied (the "Simplified LDA+U calculation" table, absent when no DFT+U was
done; a HUBBARD card that pw.x 6.7 ignored leaves a warning and no table), the band gap from the final eigenvalues
and occupations of both spin channels on the k mesh (highest occupied to lowest empty state; the smeared Fermi
energy pw.x prints is not a band edge), and the Ni site moments of the final "Magnetic moment per site" block.
Then a least-squares line of gap against applied U over the runs with U > 0.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

NUM = re.compile(r"-?\d+\.\d+")


def applied_u(text: str) -> float:
    m = re.search(r"Simplified LDA\+U calculation.*?\n(.*?)\n\s*\n", text, re.S)
    if m is None:
        return 0.0
    rows = [ln.split() for ln in m.group(1).splitlines()[1:] if ln.strip()]
    return max(float(r[2]) for r in rows)


def band_edges(text: str) -> tuple[float, float]:
    final = text[text.rindex("End of self-consistent calculation"):]
    final = final[: final.index("the Fermi energy")] if "the Fermi energy" in final else final
    occupied, empty = [], []
    for block in final.split("bands (ev):")[1:]:
        eig_text, _, rest = block.partition("occupation numbers")
        occ_text = re.split(r"\n\s*\n\s*(?:k =|-+ SPIN)", rest, maxsplit=1)[0]
        eig = [float(x) for x in NUM.findall(eig_text)]
        occ = [float(x) for x in NUM.findall(occ_text)][: len(eig)]
        if len(occ) != len(eig):
            raise SystemExit("eigenvalues and occupations do not pair up")
        for e, f in zip(eig, occ):
            (occupied if f > 0.5 else empty).append(e)
    return max(occupied), min(empty)


def ni_moment(text: str) -> float:
    block = text[text.rindex("Magnetic moment per site"):]
    rows = re.findall(r"atom:\s+(\d+)\s+charge:\s+\S+\s+magn:\s+(\S+)", block)
    # Atoms 1 and 2 are the Ni (ATOMIC_POSITIONS order printed in the output); check rather than assume.
    names = re.findall(r"^\s+\d+\s+(\S+)\s+tau\(", text, re.M)
    ni = [abs(float(m)) for (i, m), name in zip(rows, names) if name.startswith("Ni")]
    return float(np.mean(ni))


def main(files: list[str]) -> None:
    runs = {}
    for f in sorted(files):
        text = Path(f).read_text()
        vbm, cbm = band_edges(text)
        runs[Path(f).stem] = {"U_applied_eV": applied_u(text), "gap_eV": round(cbm - vbm, 4),
                              "ni_moment_muB": round(ni_moment(text), 4)}
    with_u = [r for r in runs.values() if r["U_applied_eV"] > 0]
    slope = np.polyfit([r["U_applied_eV"] for r in with_u], [r["gap_eV"] for r in with_u], 1)[0]
    print(json.dumps({"runs": runs, "dgap_dU": round(float(slope), 5)}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
