"""Valid routes and common errors of fept-anisotropy-energy-analysis, computed from the staged pw.x outputs.

Usage: python3 alternatives.py WORKSPACE > alternatives.json
Each entry is a full answer (the five keys). Names: valid routes plain; 'trap:' errors that must fail the checks
the fairness record names; 'info:' numbers kept for the QC record only.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from values import BOHR_A, RY_EV, field_T, mae_meV, mj_per_m3, runs

A, C = 3.853, 3.713  # the fct lattice constants of the prompt (angstrom)


def answer(mae: float, mae8: float, volume: float, moment: float) -> dict:
    """The five keys from the two meshes' energies (meV per f.u.), the volume (A^3) and the moment (muB)."""
    return {
        "mae_meV_per_fu": mae,
        "mae_k8_meV_per_fu": mae8,
        "mae_MJ_per_m3": mj_per_m3(mae, volume),
        "anisotropy_field_T": field_T(mae, moment),
        "easy_axis": "001" if mae > 0 else "100",
    }


def norm(v: list[float]) -> float:
    """Length of a vector."""
    return math.sqrt(sum(x * x for x in v))


def alternatives(workspace: Path) -> dict[str, dict]:
    """Every route of the fairness record, keyed by name ('trap:' and 'info:' prefixes)."""
    r = runs(workspace)
    mae, mae8 = mae_meV(r, "k12"), mae_meV(r, "k08")
    vol = r["k12_t00"]["volume_A3"]
    m001, m100 = norm(r["k12_t00"]["magnetization"]), norm(r["k12_t90"]["magnetization"])
    ref = answer(mae, mae8, vol, m001)
    out: dict[str, dict] = {"reference": ref}
    out["volume-from-lattice-constants"] = answer(mae, mae8, A * A * C / 2, m001)
    out["moment-of-100-run"] = answer(mae, mae8, vol, m100)
    out["moment-mean-of-both-runs"] = answer(mae, mae8, vol, (m001 + m100) / 2)
    out["rounded-as-in-a-table"] = {
        **{k: round(ref[k], 2) for k in ("mae_meV_per_fu", "mae_k8_meV_per_fu")},
        **{k: round(ref[k], 1) for k in ("mae_MJ_per_m3", "anisotropy_field_T")},
        "easy_axis": ref["easy_axis"],
    }
    out["trap:internal-energy"] = answer(
        mae_meV(r, "k12", "internal_energy_Ry"), mae_meV(r, "k08", "internal_energy_Ry"), vol, m001
    )
    mean = {m: (mae_meV(r, m) + mae_meV(r, m, "internal_energy_Ry")) / 2 for m in ("k08", "k12")}
    out["info:mean-of-free-and-internal-energy"] = answer(mean["k12"], mean["k08"], vol, m001)
    # errors
    out["trap:per-atom"] = answer(mae / 2, mae8 / 2, vol, m001)
    out["trap:per-atom"]["mae_MJ_per_m3"] = mj_per_m3(mae / 2, vol)
    out["trap:energy-in-mry"] = {**ref, "mae_meV_per_fu": mae / RY_EV, "mae_k8_meV_per_fu": mae8 / RY_EV,
                                 "mae_MJ_per_m3": mj_per_m3(mae / RY_EV, vol),
                                 "anisotropy_field_T": field_T(mae / RY_EV, m001)}  # fmt: skip
    out["trap:sign-flipped"] = {**answer(-mae, -mae8, vol, m001), "anisotropy_field_T": ref["anisotropy_field_T"]}
    out["trap:coarse-mesh-as-converged"] = answer(mae8, mae8, vol, norm(r["k08_t00"]["magnetization"]))
    out["trap:meshes-swapped"] = {**ref, "mae_meV_per_fu": mae8, "mae_k8_meV_per_fu": mae}
    out["trap:conventional-cell-volume"] = {**ref, "mae_MJ_per_m3": mj_per_m3(mae, A * A * C)}
    out["trap:volume-in-bohr3"] = {**ref, "mae_MJ_per_m3": mj_per_m3(mae, vol / BOHR_A**3)}
    out["trap:field-without-factor-2"] = {**ref, "anisotropy_field_T": field_T(mae, m001) / 2}
    out["trap:absolute-magnetization"] = {
        **ref,
        "anisotropy_field_T": field_T(mae, r["k12_t00"]["absolute_magnetization"]),
    }
    out["trap:first-iteration-energies"] = answer(
        mae_meV(r, "k12", "first_energy_Ry"), mae_meV(r, "k08", "first_energy_Ry"), vol, m001
    )
    out["info:last-energy-without-bang"] = answer(
        mae_meV(r, "k12", "last_plain_energy_Ry"), mae_meV(r, "k08", "last_plain_energy_Ry"), vol, m001
    )
    return out


if __name__ == "__main__":
    print(json.dumps(alternatives(Path(sys.argv[1])), indent=1))
