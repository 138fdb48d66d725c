"""Other routes to the answers of hbn-undulated-stacking, and the traps, for its fairness record.

Valid routes: linear interpolation, a periodic cubic spline or a periodic PCHIP of the table extended by the
path's symmetries (period 3, dV(2.5) = -dV(0.5), dV(3) = dV(0)); a two-term sine series; the table antisymmetrised
first; the exact tangent angle theta = arctan h' instead of h'; a coarse grid of 200 samples; the fraction and the
mean weighted by arc length instead of x. Traps: the slope without d, 2d, d/2, the angle in degrees, the shift in
units of a instead of a/sqrt 3, the reversed sign of the shift, the flat BA step everywhere, the table extrapolated
linearly beyond lam = 2, numpy's interp clamped at lam = 2, the fraction of the lam range instead of the length.

Usage: python3 alternatives.py CSV     (the staged sliding_step.csv); prints one answer per case, as JSON
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.interpolate import CubicSpline, PchipInterpolator

sys.path.insert(0, str(Path(__file__).resolve().parent))
from values import (  # noqa: E402
    A_LAT,
    AMPLITUDE,
    BOND,
    LAM_FLAT,
    WAVELENGTH,
    D,
    read_table,
    sine_coefficients,
    sine_series,
)

Interp = Callable[[np.ndarray], np.ndarray]


def routes(lam_t: np.ndarray, dv_t: np.ndarray) -> dict[str, Interp]:
    """The interpolants of the table, valid and not."""
    nodes = np.r_[lam_t, 2.5, 3.0]
    values = np.r_[dv_t, -dv_t[lam_t == 0.5], dv_t[lam_t == 0.0]]
    spline = CubicSpline(nodes, values, bc_type="periodic")
    wide_l = np.r_[nodes[:-1] - 3, nodes[:-1], nodes + 3]
    wide_v = np.r_[values[:-1], values[:-1], values]
    pchip = PchipInterpolator(wide_l, wide_v)
    b3, b2 = sine_coefficients(lam_t, dv_t), sine_coefficients(lam_t, dv_t, 2)
    # antisymmetrised table: dV(lam) and -dV(3 - lam) averaged, AA and SP set to zero
    mirror = {round(3 - s, 6) % 3: v for s, v in zip(lam_t, dv_t, strict=True)}
    anti = np.array([0.5 * (v - mirror.get(round(s, 6), -v)) for s, v in zip(lam_t, dv_t, strict=True)])
    anti[(lam_t == 0.0) | (lam_t == 1.5)] = 0.0
    b_anti = sine_coefficients(lam_t, anti)

    def extrapolated(lam: np.ndarray) -> np.ndarray:
        out = np.interp(lam, lam_t, dv_t)
        slope = (dv_t[-1] - dv_t[-2]) / (lam_t[-1] - lam_t[-2])
        hi = lam > lam_t[-1]
        out[hi] = dv_t[-1] + slope * (lam[hi] - lam_t[-1])
        return out

    return {
        "sine3": lambda lam: sine_series(b3, lam),
        "sine2": lambda lam: sine_series(b2, lam),
        "sine3_antisymmetrised": lambda lam: sine_series(b_anti, lam),
        "linear": lambda lam: np.interp(np.mod(lam, 3), nodes, values),
        "spline": lambda lam: spline(np.mod(lam, 3)),
        "pchip": lambda lam: pchip(np.mod(lam, 3)),
        "clamped": lambda lam: np.interp(lam, lam_t, dv_t),
        "extrapolated": extrapolated,
    }


def answer(
    f: Interp,
    *,
    n: int = 200_000,
    d: float = D,
    angle: str = "slope",
    unit: float = BOND,
    sign: float = 1.0,
    weight: str = "x",
    flat_everywhere: float | None = None,
    fraction_of_range: bool = False,
) -> dict[str, float]:
    """One answer (dotted fields) of the model with the given route and errors."""
    x = np.arange(n) / n * WAVELENGTH
    slope = 2 * np.pi * AMPLITUDE / WAVELENGTH * np.cos(2 * np.pi * x / WAVELENGTH)
    theta = {"slope": slope, "arctan": np.arctan(slope), "degrees": np.degrees(np.arctan(slope))}[angle]
    u = sign * d * theta
    lam = LAM_FLAT + u / unit
    flat = f(np.array([LAM_FLAT]))[0]
    dv = f(lam) if flat_everywhere is None else np.full_like(lam, flat_everywhere)
    w = np.sqrt(1 + slope**2) if weight == "arc" else np.ones_like(x)
    reversed_ = np.sign(dv) != np.sign(flat)
    fraction = float((w * reversed_).sum() / w.sum())
    if fraction_of_range:  # the share of the lam range on the reversed side of SP
        fraction = float(max(0.0, 1.5 - lam.min()) / (lam.max() - lam.min()))
    return {
        "max_shift_angstrom": float(np.abs(u).max()),
        "lambda.min": float(lam.min()),
        "lambda.max": float(lam.max()),
        "lambda.at_x0": float(lam[0]),
        "delta_V_meV.max": float(dv.max()),
        "delta_V_meV.min": float(dv.min()),
        "delta_V_meV.mean": float((w * dv).sum() / w.sum()),
        "reversed_fraction": fraction,
    }


def main() -> None:
    """Print every case."""
    lam_t, dv_t = read_table(Path(sys.argv[1]))
    r = routes(lam_t, dv_t)
    cases = {
        # valid routes
        "sine3": answer(r["sine3"]),
        "linear": answer(r["linear"]),
        "spline": answer(r["spline"]),
        "pchip": answer(r["pchip"]),
        "sine2": answer(r["sine2"]),
        "sine3_antisymmetrised": answer(r["sine3_antisymmetrised"]),  # the same series: lstsq already averages
        "arctan_sine3": answer(r["sine3"], angle="arctan"),
        "arctan_linear": answer(r["linear"], angle="arctan"),
        "arctan_spline": answer(r["spline"], angle="arctan"),
        "samples200_linear": answer(r["linear"], n=200),
        "samples200_sine3": answer(r["sine3"], n=200),
        "arc_length_sine3": answer(r["sine3"], weight="arc"),
        "arc_length_arctan_linear": answer(r["linear"], angle="arctan", weight="arc"),
        # traps
        "without_d": answer(r["sine3"], d=1.0),
        "two_d": answer(r["sine3"], d=2 * D),
        "half_d": answer(r["sine3"], d=D / 2),
        "degrees": answer(r["sine3"], angle="degrees"),
        "units_of_a": answer(r["sine3"], unit=A_LAT),
        "reversed_sign": answer(r["sine3"], sign=-1.0),
        "flat_ba_everywhere": answer(r["sine3"], flat_everywhere=float(dv_t[lam_t == LAM_FLAT][0])),
        "extrapolated": answer(r["extrapolated"]),
        "clamped": answer(r["clamped"]),
        "fraction_of_lambda_range": answer(r["sine3"], fraction_of_range=True),
        "samples24_linear": answer(r["linear"], n=24),
    }
    print(json.dumps({k: {f: round(v, 4) for f, v in a.items()} for k, a in cases.items()}, indent=1))


if __name__ == "__main__":
    main()
