"""Values of the common errors quoted in the grader of sige-reflection-specularity (fairness cases and tests).

Usage: traps.py SIGE_DEVICE_H5 OUTDIR     writes OUTDIR/traps.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
from specularity import FREQUENCIES_THZ, labels, translation  # noqa: E402
from transmission import load, solve  # noqa: E402


def main() -> None:
    dev = load(Path(sys.argv[1]))
    out = Path(sys.argv[2]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    a = dev["cell"][0, 0] / 2
    ops = [translation(dev["positions_l"], dev["cell"], np.array(t)) for t in ([a / 2, a / 2], [a / 2, -a / 2])]
    traps = {k: [] for k in ("p_same_channel", "p_0_same_channel", "p_all_no_flux_normalisation",
                             "R_0_all_channels", "p_0_all_channels", "p_all_unweighted_mean")}  # fmt: skip
    for nu in FREQUENCIES_THZ:
        s, _ = solve(dev, nu, extra_l=ops)
        k_in, k_out = labels(s.inc.vec, ops), labels(s.refl.vec, ops)
        r2 = np.abs(s.r) ** 2
        same = np.array([[ki == ko for ko in k_out] for ki in k_in])
        normal = [i for i, k in enumerate(k_in) if k == (0, 0)]
        # specular read as "back into the same channel": the reflected channel whose state mirrors the incident
        # one (same in-plane wave vector and the same branch, i.e. the largest overlap |<u_out|u_in>|)
        mirror = np.zeros_like(r2, dtype=bool)
        for i in range(len(k_in)):
            cand = [j for j in range(len(k_out)) if same[i, j]]
            ov = [abs(s.refl.vec[:, j].conj() @ s.inc.vec[:, i]) for j in cand]
            mirror[i, cand[int(np.argmax(ov))]] = True
        traps["p_same_channel"].append(float((r2 * mirror).sum() / r2.sum()))
        traps["p_0_same_channel"].append(float((r2[normal] * mirror[normal]).sum() / r2[normal].sum()))
        # amplitudes of the reflected channels without the velocity ratio (|c|^2 instead of fluxes)
        c2 = r2 * np.abs(s.inc.vel)[:, None] / np.abs(s.refl.vel)[None, :]
        traps["p_all_no_flux_normalisation"].append(float((c2 * same).sum() / c2.sum()))
        traps["R_0_all_channels"].append(float(r2.sum() / len(k_in)))
        traps["p_0_all_channels"].append(float((r2 * same).sum() / r2.sum()))
        per = (r2 * same).sum(axis=1) / r2.sum(axis=1)
        traps["p_all_unweighted_mean"].append(float(per.mean()))
    (out / "traps.json").write_text(json.dumps(traps, indent=1) + "\n")
    print(json.dumps(traps, indent=1))


if __name__ == "__main__":
    main()
