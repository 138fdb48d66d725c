"""Numbers of the fairness cases of nio-u-stiffness-magnetovolume (fairness.yaml), each from running the route.

Usage: alternatives.py WORKSPACE_DIR -> JSON on stdout, one answer (or partial answer) per case id.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import values as ref  # noqa: E402

US = list(ref.SERIES.values())


def answer(b0s: dict | None = None, slopes: dict | None = None, db0: float | None = None) -> dict:
    """A (partial) answer in the task's layout."""
    out: dict = {"series": {}}
    for name in ref.SERIES:
        entry = {}
        if b0s is not None:
            entry["B0_GPa"] = round(b0s[name], 3)
        if slopes is not None:
            entry["dm_dlnV_muB"] = round(slopes[name], 5)
        if entry:
            out["series"][name] = entry
    if db0 is not None:
        out["dB0_dU"] = round(db0, 5)
    return out


def slope_u(b0s: dict, names=tuple(ref.SERIES)) -> float:
    """Least-squares slope of B0 against U over the named series."""
    return float(np.polyfit([ref.SERIES[n] for n in names], [b0s[n] for n in names], 1)[0])


def main() -> None:
    """Print every case."""
    data = ref.series_data(Path(sys.argv[1]))
    cases: dict[str, dict] = {}
    # valid routes
    b0 = {n: ref.fit(r[:, 0], r[:, 1], ref.vinet)[1] for n, r in data.items()}
    cases["vinet-eos"] = answer(b0s=b0, db0=slope_u(b0))
    b0 = {n: ref.fit(r[:, 0] / 2, r[:, 1] / 2)[1] for n, r in data.items()}
    cases["per-formula-unit"] = answer(b0s=b0, db0=slope_u(b0))
    sl = {n: float(np.polyfit(r[:, 0], r[:, 2], 1)[0] * np.mean(r[:, 0])) for n, r in data.items()}
    cases["moment-against-volume"] = answer(slopes=sl)
    # errors
    b0 = {n: ref.fit(r[:, 0], r[:, 1], fixed_bp=4.0)[1] for n, r in data.items()}
    cases["second-order-bm"] = answer(b0s=b0, db0=slope_u(b0))
    b0 = {n: ref.fit(r[:, 0] / 2, r[:, 1])[1] for n, r in data.items()}
    cases["cell-energy-per-fu-volume"] = answer(b0s=b0, db0=slope_u(b0))
    b0 = {n: ref.fit(r[:, 0], r[:, 1] / ref.RY_EV)[1] for n, r in data.items()}
    cases["rydberg-read-as-ev"] = answer(b0s=b0, db0=slope_u(b0))
    b0 = {n: ref.fit(r[:, 0] / ref.BOHR_A**3, r[:, 1])[1] for n, r in data.items()}
    cases["bohr3-read-as-a3"] = answer(b0s=b0, db0=slope_u(b0))
    b0 = {n: ref.fit(r[:, 0], r[:, 1])[1] for n, r in data.items()}
    cases["slope-without-pbe"] = {"dB0_dU": round(slope_u(b0, ("nio_U2", "nio_U4", "nio_U6", "nio_U8")), 5)}
    sl = {n: float(np.polyfit(np.log(r[:, 0]) / 3, r[:, 2], 1)[0]) for n, r in data.items()}
    cases["slope-against-ln-a"] = answer(slopes=sl)
    sl = {n: float(np.polyfit(np.log(r[:, 0]), r[:, 3] / 2, 1)[0]) for n, r in data.items()}
    cases["absolute-magnetization"] = answer(slopes=sl)
    print(json.dumps(cases, indent=1))


if __name__ == "__main__":
    main()
