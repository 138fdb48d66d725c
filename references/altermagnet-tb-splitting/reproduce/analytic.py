"""Reference values of altermagnet-tb-splitting from the closed-form eigenvalues of the model.

Usage: python3 analytic.py [VALUES_JSON]

Each spin channel is a 2x2 matrix [[e_A - s J, T], [T, e_B + s J]], so
    E_(1,2),s(k) = (e_A + e_B)/2 -/+ sqrt((d - s J)^2 + T^2),   d = (e_A - e_B)/2 = -(t1 - t2)(cos k_x a - cos k_y a),
and the splitting of the lower band is dE_1 = sqrt((d + J)^2 + T^2) - sqrt((d - J)^2 + T^2). It grows with |d|
and shrinks with |T|; |d| is largest, 2|t1 - t2|, at X and Y, where T = 4 t_AB cos(k_x a/2) cos(k_y a/2) also
vanishes, so the maximum is 2 min(2|t1 - t2|, J) at X and Y (|k| = 1/2 in units of 2 pi/a). d vanishes on the
diagonals k_x = +-k_y (the segment M-G); on X-M (k_x a = pi) d = (t1 - t2)(1 + cos k_y a) is zero only at M. dE_1
is odd under k_x <-> k_y, so its zone average is zero. The average of |dE_1| has no closed form; it is integrated
here with scipy's adaptive quadrature over the irreducible wedge (|dE_1| is even in k_x, k_y and symmetric under
k_x <-> k_y, so one eighth of the zone suffices). This is an independent route to the numbers of the oracle,
which diagonalises numerically on a grid.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

T1, T2, TAB, J = 0.40, 0.25, 0.15, 0.50  # eV


def de1(kx: float, ky: float) -> float:
    """Splitting of band 1 in meV at k in units of 2pi/a, closed form."""
    x, y = 2 * math.pi * kx, 2 * math.pi * ky
    d = -(T1 - T2) * (math.cos(x) - math.cos(y))
    t = -4 * TAB * math.cos(x / 2) * math.cos(y / 2)
    return (math.hypot(d + J, t) - math.hypot(d - J, t)) * 1000


def mean_abs() -> float:
    """Zone average of |dE_1| in meV: 8 x the integral over the wedge 0 <= k_y <= k_x <= 1/2, per zone area 1."""
    from scipy.integrate import dblquad

    val, _ = dblquad(lambda ky, kx: abs(de1(kx, ky)), 0.0, 0.5, 0.0, lambda kx: kx, epsabs=1e-6, epsrel=1e-9)
    return 8 * val


def main() -> None:
    """Print the values and write them as JSON."""
    dmax = 2 * abs(T1 - T2)
    values = {
        "dE_X_meV": round(de1(0.5, 0.0), 4),
        "dE_quarter_GX_meV": round(de1(0.25, 0.0), 4),
        "max_abs_dE_meV": round(2 * min(dmax, J) * 1000, 4),
        "k_max_distance_2pi_over_a": 0.5,
        "bz_average_dE_meV": 0.0,
        "bz_average_abs_dE_meV": round(mean_abs(), 4),
        "nodal_G-X": False,
        "nodal_X-M": False,
        "nodal_M-G": True,
    }
    # Traps, for the record: k read in units of pi/a, the other spin first, the upper band.
    print(f"dE_1 at (1/4,0) with k in pi/a units by mistake: {de1(0.125, 0.0):.3f} meV")
    print(f"form-factor estimate 2 (t1 - t2) <|cos k_x a - cos k_y a|> = {0.3 * 8 / math.pi**2 * 1000:.1f} meV")
    print(f"upper band at (1/4,0): {-de1(0.25, 0.0):.3f} meV;  Zeeman-like splitting 2J = {2 * J * 1000:.0f} meV")
    print(json.dumps(values, indent=2))
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(json.dumps(values, indent=2) + "\n")


if __name__ == "__main__":
    main()
