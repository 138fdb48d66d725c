"""Oracle for nio-u-analysis: read the staged pw.x outputs as they are, trusting nothing but what pw.x printed.

Per run: the Hubbard U pw.x applied (the "Simplified LDA+U calculation" table, absent when no DFT+U was done; a
HUBBARD card that pw.x 6.7 ignored leaves a warning and no table), the cell volume and the total energy. At
a = 4.17 A also the band gap from the final eigenvalues and occupations of both spin channels (highest occupied to
lowest empty state; the smeared Fermi energy pw.x prints is not a band edge) and the Ni site moments of the final
"Magnetic moment per site" block. Per six-run series the equilibrium lattice constant from a least-squares fit of
the Birch-Murnaghan energy in its four parameters (scipy), a = (2V)^(1/3) for the 4-atom cell. Then a least-squares
line of gap against applied U over the series with U > 0.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.optimize import curve_fit

NUM = re.compile(r"-?\d+\.\d+")
BOHR_A = 0.529177210903


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
    names = re.findall(r"^\s+\d+\s+(\S+)\s+tau\(", text, re.M)
    ni = [abs(float(m)) for (_, m), name in zip(rows, names) if name.startswith("Ni")]
    return float(np.mean(ni))


def volume_energy(text: str) -> tuple[float, float]:
    v = float(re.search(r"unit-cell volume\s+=\s+([\d.]+)\s+\(a\.u\.\)\^3", text).group(1)) * BOHR_A**3
    e = float(re.findall(r"^!\s+total energy\s+=\s+(-?[\d.]+)\s+Ry", text, re.M)[-1])
    return v, e


def bm3(v, e0, v0, b0, bp):
    eta = (v0 / v) ** (2 / 3) - 1
    return e0 + 9 * v0 * b0 / 16 * (eta**3 * bp + eta**2 * (6 - 4 * (v0 / v) ** (2 / 3)))


def a0_of(points: list[tuple[float, float]]) -> float:
    v, e = np.array(points).T
    c = np.polyfit(v, e, 2)
    v0 = -c[1] / (2 * c[0])
    (_, v0, _, _), _ = curve_fit(bm3, v, e, p0=(np.polyval(c, v0), v0, 2 * c[0] * v0, 4.5), maxfev=20000)
    return float((2 * v0) ** (1 / 3))


series: dict[str, dict] = defaultdict(lambda: {"points": []})
for path in sorted(Path(".").glob("nio_U*_a*.out")):
    text = path.read_text()
    if "convergence has been achieved" not in text:
        raise SystemExit(f"{path.name}: not converged")
    name, a = re.fullmatch(r"(nio_U\d+)_a([\d.]+)\.out", path.name).groups()
    s = series[name]
    s["points"].append(volume_energy(text))
    if abs(float(a) - 4.17) < 1e-6:
        vbm, cbm = band_edges(text)
        s.update(U_applied_eV=applied_u(text), gap_eV=round(cbm - vbm, 4), ni_moment_muB=round(ni_moment(text), 4))
answer: dict = {"series": {}}
for name, s in sorted(series.items()):
    entry = {k: s[k] for k in ("U_applied_eV", "gap_eV", "ni_moment_muB")}
    if len(s["points"]) == 6:
        entry["a0_angstrom"] = round(a0_of(s["points"]), 5)
    answer["series"][name] = entry
with_u = [e for e in answer["series"].values() if e["U_applied_eV"] > 0]
answer["dgap_dU"] = round(float(np.polyfit([e["U_applied_eV"] for e in with_u], [e["gap_eV"] for e in with_u], 1)[0]), 5)
Path("answer.json").write_text(json.dumps(answer, indent=1) + "\n")
print(json.dumps(answer, indent=1))
