"""Values of the common errors quoted in the grader of sige-agf-transmission (fairness cases and tests).

Usage: traps.py SIGE_DEVICE_H5 OUTDIR      writes OUTDIR/traps.json
Each variant changes one thing in the oracle's calculation (solution/transmission.py, solution/agf.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
from agf import scatter  # noqa: E402
from transmission import FREQUENCIES_THZ, load, solve  # noqa: E402


def summary(s) -> dict:
    tau = np.linalg.eigvalsh(s.t @ s.t.conj().T) if s.t.shape[1] else np.zeros(s.t.shape[0])
    return {"n_Si": int(s.t.shape[0]), "n_Ge": int(s.t.shape[1]), "Xi": float(np.sum(np.abs(s.t) ** 2)),
            "std_tau": float(np.std(tau)) if len(tau) else 0.0,
            "R": float(np.sum(np.abs(s.r) ** 2))}  # fmt: skip


def main() -> None:
    dev = load(Path(sys.argv[1]))
    out = Path(sys.argv[2]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    traps: dict[str, dict[str, list]] = {}

    def collect(name, fn):
        rows = [fn(nu) for nu in FREQUENCIES_THZ]
        traps[name] = {k: [r[k] for r in rows] for k in rows[0]}

    def run(nu_thz, eta=None):
        if eta is None:
            return solve(dev, nu_thz)[0]
        return scatter(2 * np.pi * nu_thz * 1e12, dev["lead_l"], dev["lead_r"], dev["onsite"], dev["coupling"],
                       dev["period_l"], dev["period_r"], eta_rel=eta)  # fmt: skip

    # nu in THz used as an angular frequency (no 2 pi)
    collect("no_2pi", lambda nu: summary(run(nu / (2 * np.pi))))
    # flux normalised by the group velocity alone (no layer period): |t|^2 scaled by a_Ge / a_Si
    ratio = dev["period_r"] / dev["period_l"]

    def no_period(nu):
        r = summary(run(nu))
        r["Xi"] *= ratio
        r["std_tau"] *= ratio
        return r

    collect("flux_without_period", no_period)
    # a broadening that is too large, with the Caroli formula (the mode solver cannot even find the channels
    # at eta = 1e-5: their Bloch factors leave the unit circle)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import caroli  # noqa: PLC0415

    for eta in (1e-5, 1e-6):
        traps[f"caroli_eta_{eta:g}"] = {"Xi": caroli.xi_values(Path(sys.argv[1]), eta)}
    # channels counted in both directions, and std over all eigenvalues of the 96 x 96 Caroli matrix
    def both(nu):
        r = summary(run(nu))
        r["n_Si"] *= 2
        r["n_Ge"] *= 2
        s = run(nu)
        tau = np.linalg.eigvalsh(s.t @ s.t.conj().T) if s.t.shape[1] else np.zeros(0)
        padded = np.concatenate([tau, np.zeros(96 - len(tau))])
        r["std_tau"] = float(np.std(padded))
        return r

    collect("counted_twice_std_over_96", both)
    # a valid variant: the oracle's mode matching at one fixed broadening, eta = 1e-8, at every frequency
    collect("fixed_eta_1e-8", lambda nu: summary(run(nu, 1e-8)))
    (out / "traps.json").write_text(json.dumps(traps, indent=1) + "\n")
    print(json.dumps(traps, indent=1))


if __name__ == "__main__":
    main()
