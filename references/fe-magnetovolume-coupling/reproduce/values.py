"""Reference values of fe-magnetovolume-coupling from the staged pw.x outputs (no new calculation).

Usage: python3 values.py WORKSPACE_DIR [OUT.json]

The outputs are 44 of the 66 runs of the precomputed equations-of-state step (references/fe-eos-analysis/reproduce),
staged byte-identically: ferromagnetic and non-magnetic bcc iron, eleven volumes each, in PBE and in LDA.

The reference route, for each functional:
- per atom: the cell volume (bohr^3) and the '!' total energy (Ry) over the number of atoms (one here), the last
  'total magnetization' of each ferromagnetic run (Bohr magneton per cell) over the same number;
- a third-order Birch-Murnaghan fit of each curve over its eleven runs, as a cubic polynomial in x = V^(-2/3),
  its minimum V0 where the pressure vanishes (the same form as fe-eos-analysis's reference);
- the magnetovolume effect V0(FM) - V0(NM) in A^3 per atom, and 100 (V0(FM) - V0(NM)) / V0(NM) in percent;
- the magnetic energy at the ferromagnet's equilibrium volume, E_NM(V0(FM)) - E_FM(V0(FM)) from the two fits, meV
  per atom;
- LDA only: V dmu/dV = dmu/d(ln V) at V0(FM), the slope at ln V0 of a quadratic in ln V fitted by least squares to
  the moments of the seven runs nearest V0 (the moments are printed to 0.01 muB, so a difference of two runs is
  noisy).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.optimize import brentq

RY_EV = 13.605693123
BOHR_A = 0.529177210903
NEAREST = 7  # runs in the local fit of the moment against ln V

Curve = Callable[[float], float]


def _sibling_reader() -> Callable[..., np.ndarray]:
    """read_curve of fe-bcc-fcc-transition-pressure, which reads the same staged outputs."""
    # Loaded by path under its own name: both folders' modules are called values.py.
    path = Path(__file__).resolve().parents[2] / "fe-bcc-fcc-transition-pressure" / "reproduce" / "values.py"
    spec = importlib.util.spec_from_file_location("fe_transition_pressure_values", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.read_curve  # type: ignore[no-any-return]


# Rows (V per atom in A^3, E per atom in eV, magnetization per atom) of one curve, sorted by volume; key="absolute"
# reads the absolute magnetization (only for the trap).
read_curve = _sibling_reader()


def birch_murnaghan(v: np.ndarray, e: np.ndarray, order: int = 3) -> tuple[Curve, float]:
    """E(V) of a Birch-Murnaghan fit (a polynomial of `order` in V^(-2/3)) and its minimum V0."""
    c = np.polyfit(v ** (-2 / 3), e, order)
    dc = np.polyder(c)

    def energy(volume: float) -> float:
        return float(np.polyval(c, volume ** (-2 / 3)))

    i = int(np.argmin(e))  # the minimum lies within two runs of the lowest one
    lo, hi = v[max(i - 2, 0)], v[min(i + 2, len(v) - 1)]
    v0 = brentq(lambda x: float(np.polyval(dc, x ** (-2 / 3))), lo, hi, xtol=1e-12)
    return energy, v0


def dmu_dlnv(v: np.ndarray, m: np.ndarray, v0: float, n: int = NEAREST, degree: int = 2, log: bool = True) -> float:
    """dmu/d(ln V) at v0 from a least-squares polynomial through the n runs nearest v0 (in ln V, or in V times v0)."""
    idx = np.sort(np.argsort(np.abs(v - v0))[:n])
    x, x0 = (np.log(v), np.log(v0)) if log else (v, v0)
    slope = float(np.polyval(np.polyder(np.polyfit(x[idx], m[idx], degree)), x0))
    return slope if log else slope * v0


def coupling(fm: np.ndarray, nm: np.ndarray, fit: Callable = birch_murnaghan) -> dict[str, float]:
    """The magnetovolume quantities of one functional from its two curves and one fit routine."""
    e_fm, v_fm = fit(fm[:, 0], fm[:, 1])
    e_nm, v_nm = fit(nm[:, 0], nm[:, 1])
    return {
        "V0_fm_A3": v_fm,
        "V0_nm_A3": v_nm,
        "dV_fm_minus_nm_A3": v_fm - v_nm,
        "dV_percent": 100 * (v_fm - v_nm) / v_nm,
        "dE_nm_minus_fm_at_V0_meV": (e_nm(v_fm) - e_fm(v_fm)) * 1000,
        "dE_between_minima_meV": (e_nm(v_nm) - e_fm(v_fm)) * 1000,
        "dmu_dlnV_muB": dmu_dlnv(fm[:, 0], fm[:, 2], v_fm),
        "moment_at_V0_muB": float(np.interp(v_fm, fm[:, 0], fm[:, 2])),
    }


def values(ws: Path) -> dict[str, float]:
    out: dict[str, float] = {}
    for xc in ("pbe", "lda"):
        got = coupling(read_curve(ws, xc, "bcc_fm"), read_curve(ws, xc, "bcc_nm"))
        for key, value in got.items():
            out[f"{xc}_{key}"] = value
    rounding = {"A3": 4, "percent": 3, "meV": 2, "muB": 4}
    return {k: round(v, next(n for s, n in rounding.items() if k.endswith(s))) for k, v in out.items()}


if __name__ == "__main__":
    result = values(Path(sys.argv[1]))
    text = json.dumps(result, indent=1) + "\n"
    if len(sys.argv) > 2:
        Path(sys.argv[2]).write_text(text)
    print(text, end="")
