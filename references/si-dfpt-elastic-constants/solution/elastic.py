"""Sound velocities and elastic constants of diamond Si from q2r.x force constants (matdyn.x near Gamma).

Usage: elastic.py SI_FC [--asr crystal] [--q 0.01 ...] [--c12 shear|la110] [--a-angstrom A] [--raw]

matdyn.x interpolates the dynamical matrix at small wave vectors along [001] and [110] (Cartesian, units of
2 pi/a, matdyn's default), with the acoustic sum rule `--asr`. The three acoustic branches are told apart by
their eigenvectors (longitudinal: displacement along q; along [110] the transverse mode polarised along [001]
and the one polarised along [1-10]). Each velocity is the slope omega/k = c nu~ a / q (nu~ in cm^-1, q in units
of 2 pi/a); with several --q values it is the intercept of a fit nu~/q = v + b q^2 (the cubic term of the
dispersion). The cubic elastic constants follow from rho v^2 with the mass density of the calculation's own
crystal (8 atoms of the mass in si.fc per a^3, a = celldm(1) of si.fc, unless --a-angstrom replaces it):
C11 = rho v_LA[100]^2, C44 = rho v_TA[100]^2, and C12 either from the [1-10]-polarised shear wave along [110]
(C11 - C12 = 2 rho v^2, the default) or from the longitudinal wave along [110] (C11 + C12 + 2 C44 = 2 rho v^2).
Prints the answer JSON (and with --raw the frequencies behind it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

BOHR_A = 0.529177210903
AMU_RY = 911.44424310865645  # atomic mass unit in Rydberg units of mass (QE's AMU_RY)
AMU_KG = 1.66053906660e-27
C_CM_S = 2.99792458e10
DIRS = {"100": np.array([0.0, 0.0, 1.0]), "110": np.array([1.0, 1.0, 0.0]) / np.sqrt(2.0)}


def header(fc: Path) -> tuple[float, float]:
    """Lattice constant (A) and atomic mass (amu) from the header of a q2r.x file (one species)."""
    lines = fc.read_text().splitlines()
    celldm1 = float(lines[0].split()[3])
    mass_ry = float(lines[1].split()[-1])
    return celldm1 * BOHR_A, mass_ry / AMU_RY


def matdyn_modes(fc: Path, asr: str, qpts: list[np.ndarray]) -> list[tuple[np.ndarray, list[np.ndarray]]]:
    """Frequencies (cm^-1) and eigenvectors (nat x 3 complex) of the three lowest modes at each wave vector."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copyfile(fc, work / "si.fc")
        qs = "".join(f"{q[0]:.10f} {q[1]:.10f} {q[2]:.10f}\n" for q in qpts)
        (work / "matdyn.in").write_text(
            f"&input\n  asr = '{asr}', flfrc = 'si.fc', flfrq = 'f.dat', flvec = 'v.modes'\n/\n{len(qpts)}\n{qs}"
        )
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        subprocess.run(["matdyn.x", "-in", "matdyn.in"], cwd=work, env=env, check=True, capture_output=True)
        text = (work / "v.modes").read_text()
    out = []
    for block in re.split(r"\n\s*q =", text)[1:]:
        freqs, vecs = [], []
        lines = block.splitlines()
        for i, line in enumerate(lines):
            m = re.search(r"freq \(\s*\d+\)\s*=\s*\S+\s*\[THz\]\s*=\s*(\S+)\s*\[cm-1\]", line)
            if m:
                freqs.append(float(m.group(1)))
                rows = []
                for row in lines[i + 1 : i + 3]:
                    v = [float(x) for x in row.strip().strip("()").split()]
                    rows.append([complex(v[0], v[1]), complex(v[2], v[3]), complex(v[4], v[5])])
                vecs.append(np.array(rows))
        order = np.argsort(freqs)[:3]
        out.append((np.array(freqs)[order], [vecs[i] for i in order]))
    return out


def branches(direction: str, freqs: np.ndarray, vecs: list[np.ndarray]) -> dict[str, float]:
    """Assign the three acoustic modes by polarisation: 'L' along q, 'Tz' along [001], 'Txy' the third one."""
    qhat = DIRS[direction]
    u = [v.sum(axis=0) / np.linalg.norm(v.sum(axis=0)) for v in vecs]  # acoustic: both atoms move in phase
    pol = [np.abs(w) ** 2 for w in u]
    lon = int(np.argmax([abs(w @ qhat) ** 2 for w in u]))
    rest = [i for i in range(3) if i != lon]
    if direction == "100":
        return {"L": float(freqs[lon]), "T": float(np.mean(freqs[rest]))}
    tz = max(rest, key=lambda i: pol[i][2])
    txy = next(i for i in rest if i != tz)
    return {"L": float(freqs[lon]), "Tz": float(freqs[tz]), "Txy": float(freqs[txy])}


def velocities(fc: Path, asr: str, qs: list[float]) -> tuple[dict[str, float], dict]:
    """Sound velocities (m/s) of the five distinct acoustic waves along [100] and [110]."""
    a_cm = header(fc)[0] * 1e-8
    raw: dict[str, dict[str, list[float]]] = {}
    for d, qhat in DIRS.items():
        modes = matdyn_modes(fc, asr, [q * qhat for q in qs])
        per_q = [branches(d, f, v) for f, v in modes]
        raw[d] = {k: [p[k] for p in per_q] for k in per_q[0]}
    v = {}
    for d, br in raw.items():
        for k, nus in br.items():
            slopes = C_CM_S * np.array(nus) * a_cm / np.array(qs) / 100.0  # m/s
            if len(qs) == 1:
                v[f"{d}{k}"] = float(slopes[0])
            else:  # nu/q = v + b q^2
                A = np.vstack([np.ones(len(qs)), np.array(qs) ** 2]).T
                v[f"{d}{k}"] = float(np.linalg.lstsq(A, slopes, rcond=None)[0][0])
    return v, raw


def answer(fc: Path, asr: str = "crystal", qs: tuple[float, ...] = (0.01,), c12: str = "shear",
           a_angstrom: float | None = None) -> tuple[dict[str, float], dict]:  # fmt: skip
    """The answer JSON of the task for one analysis route."""
    a_fc, mass = header(fc)
    a = a_fc if a_angstrom is None else a_angstrom
    rho = 8 * mass * AMU_KG / (a * 1e-10) ** 3  # kg/m^3
    v, raw = velocities(fc, asr, list(qs))
    c11 = rho * v["100L"] ** 2 / 1e9
    c44 = rho * v["100T"] ** 2 / 1e9
    if c12 == "shear":
        c12v = c11 - 2 * rho * v["110Txy"] ** 2 / 1e9
    else:
        c12v = 2 * rho * v["110L"] ** 2 / 1e9 - c11 - 2 * c44
    ans = {
        "v_LA_100_m_s": round(v["100L"], 1),
        "v_TA_100_m_s": round(v["100T"], 1),
        "v_LA_110_m_s": round(v["110L"], 1),
        "v_TA_110_pol001_m_s": round(v["110Tz"], 1),
        "v_TA_110_pol1m10_m_s": round(v["110Txy"], 1),
        "density_kg_m3": round(rho, 2),
        "C11_GPa": round(c11, 2),
        "C12_GPa": round(c12v, 2),
        "C44_GPa": round(c44, 2),
        "B_GPa": round((c11 + 2 * c12v) / 3, 2),
    }
    return ans, raw


def main() -> None:
    """Command line: print the answer JSON."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("fc", type=Path)
    p.add_argument("--asr", default="crystal")
    p.add_argument("--q", type=float, nargs="+", default=[0.01])
    p.add_argument("--c12", choices=["shear", "la110"], default="shear")
    p.add_argument("--a-angstrom", type=float, default=None)
    p.add_argument("--raw", action="store_true")
    args = p.parse_args()
    ans, raw = answer(args.fc.resolve(), args.asr, tuple(args.q), args.c12, args.a_angstrom)
    print(json.dumps({"answer": ans, "raw_cm1": raw} if args.raw else ans, indent=2))


if __name__ == "__main__":
    main()
