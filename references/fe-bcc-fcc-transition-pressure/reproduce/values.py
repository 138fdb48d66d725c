"""Reference values of fe-bcc-fcc-transition-pressure from the staged pw.x outputs (no new calculation).

Usage: python3 values.py WORKSPACE_DIR OUTDIR

The outputs are those of the precomputed equations-of-state step (references/fe-eos-analysis/reproduce), staged
here byte-identically: ferromagnetic bcc and non-magnetic fcc iron, eleven volumes each, in PBE and in LDA.

For each curve a third-order Birch-Murnaghan fit over all eleven runs, as a cubic polynomial in x = V^(-2/3) of the
energy per atom (the same form as the sibling's reference). The PBE transition: the pressure P at which the
enthalpies per atom H = E(V) + P V of the two fitted curves, each at its own volume V(P) (P = -dE/dV), are equal;
the two volumes there and their difference V(fcc) - V(bcc); the total magnetization per atom of the bcc runs
interpolated linearly in volume to the bcc volume at the transition. LDA: H(fcc NM) - H(bcc FM) at P = 0, i.e.
the difference of the two fitted minima. Writes OUTDIR/values.json.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.optimize import brentq

RY_EV = 13.605693123
BOHR_A = 0.529177210903
EV_A3_GPA = 160.21766208

Curve = Callable[[float], float]


def read_curve(ws: Path, xc: str, state: str, key: str = "total") -> np.ndarray:
    """Rows (V per atom in A^3, E per atom in eV, magnetization per atom) of one curve, sorted by volume.

    `key` picks the 'total' or the 'absolute' magnetization line."""
    rows = []
    for path in sorted(ws.glob(f"fe_{xc}_{state}_*.out")):
        text = path.read_text()
        if "convergence has been achieved" not in text:
            raise SystemExit(f"{path.name}: not converged")
        nat = int(re.search(r"number of atoms/cell\s+=\s+(\d+)", text).group(1))
        v = float(re.search(r"unit-cell volume\s+=\s+(\S+)\s+\(a\.u\.\)\^3", text).group(1)) * BOHR_A**3
        e = float(re.findall(r"^!\s+total energy\s+=\s+(\S+)\s+Ry", text, re.M)[-1]) * RY_EV
        m = re.findall(rf"{key} magnetization\s+=\s+(\S+)\s+Bohr mag/cell", text)
        rows.append((v / nat, e / nat, float(m[-1]) / nat if m else 0.0))
    if len(rows) != 11:
        raise SystemExit(f"{xc} {state}: {len(rows)} outputs, expected 11")
    return np.array(sorted(rows))


def birch_murnaghan(v: np.ndarray, e: np.ndarray, order: int = 3) -> tuple[Curve, Curve]:
    """E(V) and P(V) = -dE/dV (eV/A^3) of a Birch-Murnaghan fit: a polynomial of `order` in x = V^(-2/3)."""
    c = np.polyfit(v ** (-2 / 3), e, order)
    dc = np.polyder(c)

    def energy(volume: float) -> float:
        return float(np.polyval(c, volume ** (-2 / 3)))

    def pressure(volume: float) -> float:
        return float(np.polyval(dc, volume ** (-2 / 3)) * 2 / 3 * volume ** (-5 / 3))

    return energy, pressure


def minimum(energy: Curve, pressure: Curve, lo: float, hi: float) -> tuple[float, float]:
    """(V0, E0): the volume where the pressure vanishes and the energy there."""
    v0 = brentq(pressure, lo, hi, xtol=1e-12)
    return v0, energy(v0)


def transition(
    bcc: tuple[Curve, Curve], fcc: tuple[Curve, Curve], vlo: float, vhi: float, plo: float, phi: float
) -> tuple[float, float, float]:
    """(P in eV/A^3, V_bcc, V_fcc) where the enthalpies of the two fitted curves are equal.

    Each volume solves P(V) = P in [vlo, vhi]; the pressure is searched in [plo, phi] (eV/A^3).
    """

    def volume(curve: tuple[Curve, Curve], p: float) -> float:
        return brentq(lambda v: curve[1](v) - p, vlo, vhi, xtol=1e-12)

    def dh(p: float) -> float:
        vb, vf = volume(bcc, p), volume(fcc, p)
        return (fcc[0](vf) + p * vf) - (bcc[0](vb) + p * vb)

    p = brentq(dh, plo, phi, xtol=1e-12)
    return p, volume(bcc, p), volume(fcc, p)


def analyse(ws: Path) -> dict[str, float]:
    pbe_fm, pbe_fcc = read_curve(ws, "pbe", "bcc_fm"), read_curve(ws, "pbe", "fcc_nm")
    bcc, fcc = birch_murnaghan(pbe_fm[:, 0], pbe_fm[:, 1]), birch_murnaghan(pbe_fcc[:, 0], pbe_fcc[:, 1])
    p, vb, vf = transition(bcc, fcc, 7.0, 14.0, 0.0, 1.0)
    lda_fm, lda_fcc = read_curve(ws, "lda", "bcc_fm"), read_curve(ws, "lda", "fcc_nm")
    lbcc, lfcc = birch_murnaghan(lda_fm[:, 0], lda_fm[:, 1]), birch_murnaghan(lda_fcc[:, 0], lda_fcc[:, 1])
    e_lbcc, e_lfcc = minimum(*lbcc, 8.0, 13.0)[1], minimum(*lfcc, 8.0, 13.0)[1]
    lp, _, _ = transition(lbcc, lfcc, 7.0, 14.0, -0.2, 0.2)
    return {
        "pbe_P_transition_GPa": round(p * EV_A3_GPA, 2),
        "pbe_V_bcc_fm_A3": round(vb, 4),
        "pbe_V_fcc_nm_A3": round(vf, 4),
        "pbe_dV_fcc_minus_bcc_A3": round(vf - vb, 4),
        "pbe_moment_bcc_fm_muB": round(float(np.interp(vb, pbe_fm[:, 0], pbe_fm[:, 2])), 4),
        "lda_dH0_fcc_minus_bcc_meV": round((e_lfcc - e_lbcc) * 1000, 2),
        "pbe_dH0_fcc_minus_bcc_meV": round((minimum(*fcc, 8.0, 13.0)[1] - minimum(*bcc, 8.0, 13.0)[1]) * 1000, 2),
        "lda_P_transition_GPa": round(lp * EV_A3_GPA, 2),
        "pbe_P_lowest_fcc_run_GPa": round(fcc[1](float(pbe_fcc[0, 0])) * EV_A3_GPA, 2),
    }


if __name__ == "__main__":
    values = analyse(Path(sys.argv[1]))
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps(values, indent=1))
