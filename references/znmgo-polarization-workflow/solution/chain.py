"""Chain the two step solutions: Landau fit of each path, then the phase boundary of the interpolated coefficients.

Usage: chain.py STEPS_DIR [--powers 2,4,6] [--fu-volume]

Runs landau-transition-fit's landau_fit.py on path_ZnO.csv and path_Zn3MgO4.csv (in step1-landau/), writes the
coefficients with the Mg fractions 0 and 0.25 as step2-boundary/landau_coefficients.json, runs
znmgo-phase-boundary's phase_boundary.py there, and copies its answer, with each cell's Ps, to answer.json.
--powers passes the fit's powers on (the fairness record's alternatives); --fu-volume divides the energies by
the volume per formula unit instead of the cell volume (a common error, for the fairness record).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    """Run both steps and write answer.json."""
    steps = Path(argv[0])
    extra = []
    if "--powers" in argv:
        extra = ["--powers", argv[argv.index("--powers") + 1]]
    here = Path.cwd()
    s1, s2 = here / "step1-landau", here / "step2-boundary"
    s1.mkdir(exist_ok=True)
    s2.mkdir(exist_ok=True)
    args = [f"{n}={here / f'path_{n}.csv'}" for n in ("ZnO", "Zn3MgO4")]
    subprocess.run(
        [sys.executable, str(steps / "landau-transition-fit" / "landau_fit.py"), *extra, *args],
        cwd=s1,
        check=True,
        capture_output=True,
    )
    fit = json.loads((s1 / "answer.json").read_text())
    fu = {"ZnO": 2, "Zn3MgO4": 4} if "--fu-volume" in argv else {"ZnO": 1, "Zn3MgO4": 1}
    coeffs = {
        n: {"x_Mg": x, **{k: fit[n][k] * fu[n] for k in ("alpha", "beta", "gamma")}}
        for n, x in (("ZnO", 0.0), ("Zn3MgO4", 0.25))
    }
    (s2 / "landau_coefficients.json").write_text(json.dumps(coeffs, indent=1) + "\n")
    subprocess.run(
        [sys.executable, str(steps / "znmgo-phase-boundary" / "phase_boundary.py"), "landau_coefficients.json"],
        cwd=s2,
        check=True,
        capture_output=True,
    )
    answer = json.loads((s2 / "answer.json").read_text())
    answer["Ps_ZnO_C_per_m2"] = fit["ZnO"]["Ps_C_per_m2"]
    answer["Ps_Zn3MgO4_C_per_m2"] = fit["Zn3MgO4"]["Ps_C_per_m2"]
    (here / "answer.json").write_text(json.dumps(answer, indent=1) + "\n")
    print(json.dumps(answer))


if __name__ == "__main__":
    main(sys.argv[1:])
