"""Alternative routes and common errors of bas-reststrahlen-band, run on the staged data (fairness.yaml).

Ordered 11BAs: the band edges solved exactly (roots of Re eps = level) instead of on the grid; the DFPT phonon of
ph.x with Lyddane-Sachs-Teller (omega_TO 699.741 cm^-1, eps_0 9.5478, the values of bas-born-charges-dielectric);
the undamped band (omega_LO - omega_TO, and the surface frequency); the width gamma read as a half width (gamma/2)
or doubled. Disordered samples: other seeds, a dense diagonalisation of a 6x6x6 cell, the mean-mass crystal, a
4x4x4 cell. Usage: alternatives.py WORKSPACE [--quick]
"""

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
import bas_disorder as bd  # noqa: E402
import bas_isotope as bi  # noqa: E402
import reststrahlen as rs  # noqa: E402


def exact_band(w, s, eps_inf, gamma):
    """Roots of Re eps(omega) = level for one oscillator: eps_inf + S w^2 (w^2 - x)/((w^2 - x)^2 + g^2 x) = level
    with x = omega^2, a quadratic in x."""
    out = {}
    for name, level in (("reststrahlen_width_cm1", 0.0), ("spp_width_cm1", -1.0)):
        c = eps_inf - level  # c ((w2-x)^2 + g2 x) + S w2 (w2 - x) = 0
        w2, g2, a = w**2, gamma**2, s * w**2
        coef = [c, -2 * c * w2 + c * g2 - a, c * w2**2 + a * w2]
        x = np.sort(np.roots(coef).real)
        out[name] = round(float(np.sqrt(x[1]) - np.sqrt(x[0])), 3)
    grid = np.arange(690.0, 710.0, 0.0005)
    out["min_Re_eps"] = round(float(bi.lorentz_eps(np.array([w]), np.array([s]), eps_inf, grid, gamma).real.min()), 3)
    return out


def main():
    ws = Path(sys.argv[1])
    ph = bd.phonopy_fc(ws)
    cr1 = bi.Crystal(ws, 1, ph=ph)
    w, s = cr1.pure(bd.M11)
    routes = {
        "ordered-exact-roots": exact_band(w, s, cr1.eps_inf, 2.0),
        "ordered-dfpt-lst": exact_band(699.741, 9.5478 - cr1.eps_inf, cr1.eps_inf, 2.0),
        "gamma-half": rs.ordered_band(ws, bd.M11, gamma=1.0, cr=cr1),
        "gamma-double": rs.ordered_band(ws, bd.M11, gamma=4.0, cr=cr1),
        "undamped": {
            "reststrahlen_width_cm1": round(w * (np.sqrt((cr1.eps_inf + s) / cr1.eps_inf) - 1), 3),
            "spp_width_cm1": round(w * (np.sqrt((cr1.eps_inf + s + 1) / (cr1.eps_inf + 1)) - 1), 3),
        },
    }
    mean_mass = {}
    for key, x10 in rs.SAMPLES.items():
        mean_mass[key] = rs.ordered_band(ws, x10 * bd.M10 + (1 - x10) * bd.M11, cr=cr1)["min_Re_eps"]
    routes["virtual-crystal"] = mean_mass
    for name, size, seeds in (
        ("lanczos-6x6x6-seeds-0-3", 6, (0, 1, 2, 3)),
        ("lanczos-8x8x8-seeds-10-11", 8, (10, 11)),
        ("lanczos-4x4x4-seeds-0-7", 4, tuple(range(8))),
    ):
        routes[name] = {
            k: round(float(rs.disordered_eps(ws, x, size, seeds, ph=ph).real.min()), 3) for k, x in rs.SAMPLES.items()
        }
    if "--quick" not in sys.argv:
        cr6 = bi.Crystal(ws, 6, ph=ph)
        routes["dense-6x6x6-seeds-0-1"] = {
            k: round(float(bi.response(cr6, x, (0, 1), rs.OMEGA)["eps"].real.min()), 3) for k, x in rs.SAMPLES.items()
        }
    print(json.dumps(routes, indent=2))


if __name__ == "__main__":
    main()
