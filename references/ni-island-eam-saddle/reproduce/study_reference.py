"""Reference values of the ni-island-saddles study, for one of its tasks, with the alternatives and traps its
grader names. Every number comes from LAMMPS (29 Sep 2021) through the study's saddle tool (the oracle's
ni_saddle.py), on the structures build_island.py makes, with the potential files staged for the agents.

The reference route differs from the oracles': an 11-image climbing-image NEB minimised with FIRE (the oracles
use 7 images and quickmin), and a Hessian with 0.0025 A displacements (the oracle: 0.005 A).

Usage: study_reference.py TASK OUTDIR   writes OUTDIR/values.json, OUTDIR/alternatives.json, OUTDIR/workspace/
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
TOOL = HERE.parent / "solution" / "ni_saddle.py"
sys.path.insert(0, str(TOOL.parent))
import ni_saddle  # noqa: E402

STUDY = ROOT / "tasks" / "ni-island-saddles"
EAM = STUDY / "ni-island-eam-saddle" / "workspace" / "Ni_u3.eam"
ADP = STUDY / "ni-island-adp-saddle" / "workspace" / "Ni.adp"
NEB_KEYS = ("forward_barrier_eV", "reverse_barrier_eV", "reaction_energy_eV")


def tool(out: Path, *args: str, env: dict[str, str] | None = None) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, str(TOOL), *args], check=True, capture_output=True, env={**os.environ, **(env or {})}
    )
    name = {"neb": "neb.json", "certify": "certify.json", "rate": "rate.json"}[args[0]]
    return json.loads((out / name).read_text())


def neb(out: Path, pot: Path, *extra: str, env: dict[str, str] | None = None) -> dict:
    s = out.parent / "structures"
    return tool(out, "neb", str(pot), str(s / "initial.data"), str(s / "final.data"), str(out), *extra, env=env)


def certify(out: Path, name: str, pot: Path, saddle: Path, *extra: str) -> dict:
    d, s = out / name, out / "structures"
    return tool(d, "certify", str(pot), str(saddle), str(s / "initial.data"), str(s / "final.data"), str(d), *extra)


def reference_saddle(out: Path) -> Path:
    """The saddle of the reference ADP band (11 replicas, FIRE), run here unless this reproduction has it."""
    saddle = out / "adp-fire-11" / "saddle.data"
    if not saddle.is_file():
        neb(out / "adp-fire-11", ADP, "--images", "11", "--min", "fire")
    return saddle


def unrelaxed_energy(pot: Path, data: Path, work: Path) -> float:
    """Energy of `data` as built (a zero-step run), for the unrelaxed-ends trap."""
    stdout = ni_saddle.lmp(
        ni_saddle.header(pot, str(data.resolve())) + 'run 0\nprint "ENERGY $(pe:%.10f)"\n', work, "single"
    )
    return ni_saddle.energy_of(stdout, "ENERGY")


def barriers(run: dict) -> dict:
    return {k: run[k] for k in NEB_KEYS}


def eam_task(out: Path) -> tuple[dict, dict]:
    ref = neb(out / "eam-fire-11", EAM, "--images", "11", "--min", "fire")
    alt = {
        "quickmin_7_images": barriers(neb(out / "eam-quickmin-7", EAM)),
        "no_climb_11_images": barriers(
            neb(out / "eam-noclimb-11", EAM, "--images", "11", "--min", "fire", "--no-climb")
        ),
        "no_climb_7_images": barriers(neb(out / "eam-noclimb-7", EAM, "--no-climb")),
    }
    s = out / "structures"
    e0_ini, e0_fin = (
        unrelaxed_energy(EAM, s / "initial.data", out / "single"),
        unrelaxed_energy(EAM, s / "final.data", out / "single"),
    )
    alt["unrelaxed_ends"] = {
        "forward_barrier_eV": ref["E_saddle_eV"] - e0_ini,
        "reverse_barrier_eV": ref["E_saddle_eV"] - e0_fin,
        "reaction_energy_eV": e0_fin - e0_ini,
    }
    return barriers(ref), alt


def adp_task(out: Path) -> tuple[dict, dict]:
    ref = neb(out / "adp-fire-11", ADP, "--images", "11", "--min", "fire")
    eam = neb(out / "eam-quickmin-7", EAM)
    e_eam_saddle = unrelaxed_energy(ADP, out / "eam-quickmin-7" / "saddle.data", out / "single")
    alt = {
        "quickmin_7_images": barriers(neb(out / "adp-quickmin-7", ADP)),
        "no_climb_11_images": barriers(
            neb(out / "adp-noclimb-11", ADP, "--images", "11", "--min", "fire", "--no-climb")
        ),
        "no_climb_7_images": barriers(neb(out / "adp-noclimb-7", ADP, "--no-climb")),
        "eam_alloy_reading_adp": barriers(
            neb(out / "adp-as-eam-alloy", ADP, env={"NI_SADDLE_PAIR_STYLE": "eam/alloy"})
        ),
        "eam_values": barriers(eam),
        "eam_saddle_with_adp": {
            "forward_barrier_eV": e_eam_saddle - ref["E_initial_eV"],
            "reverse_barrier_eV": e_eam_saddle - ref["E_final_eV"],
        },
    }
    return barriers(ref), alt


def all_atoms_hessian(saddle: Path, work: Path) -> dict:
    """The mistake of a Hessian over all 263 atoms, the fixed bottom layers freed: the count of negative modes."""
    ni_saddle.Z_FIXED = -1.0  # no atom is held
    try:
        hess, _, _ = ni_saddle.hessian(ADP, saddle, work)
    finally:
        ni_saddle.Z_FIXED = 13.0
    eig = np.linalg.eigvalsh(hess / ni_saddle.MASS)
    return {"n_negative_eigenvalues": int((eig < 0).sum()), "lowest_eigenvalues": eig[:4].tolist()}


def certification_task(out: Path) -> tuple[dict, dict]:
    ref_saddle = reference_saddle(out)
    shutil.copyfile(ref_saddle, out / "workspace" / "saddle.data")
    ref = certify(out, "certify-0.0025", ADP, ref_saddle, "--step", "0.0025")
    values = {
        "n_negative_modes": ref["n_negative_eigenvalues"],
        "unstable_mode_frequency_THz": ref["unstable_mode_frequency_THz"],
        "connected_minima_eV": ref["connected_minima_eV"],
    }
    alt = {}
    for step in ("0.002", "0.005", "0.01", "0.02", "0.05", "0.1"):
        c = certify(out, f"certify-{step}", ADP, ref_saddle, "--step", step)
        alt[f"step_{step}"] = {k: c[k] for k in ("n_negative_eigenvalues", "unstable_mode_frequency_THz")}
    seven = neb(out / "adp-quickmin-7", ADP)
    c7 = certify(out, "certify-7-image-saddle", ADP, out / "adp-quickmin-7" / "saddle.data")
    alt["seven_image_saddle"] = {
        "unstable_mode_frequency_THz": c7["unstable_mode_frequency_THz"],
        "barrier": seven["forward_barrier_eV"],
    }
    eam_saddle = neb(out / "eam-quickmin-7", EAM)
    c_eam = certify(out, "certify-eam", EAM, out / "eam-quickmin-7" / "saddle.data")
    alt["eam_hessian_at_eam_saddle"] = {
        k: c_eam[k] for k in ("n_negative_eigenvalues", "negative_eigenvalues_eV_per_A2_amu")
    }
    alt["eam_hessian_at_eam_saddle"]["barrier"] = eam_saddle["forward_barrier_eV"]
    small = certify(out, "certify-kick-0.05", ADP, ref_saddle, "--kick", "0.05")
    alt["kick_0.05_A"] = {"connected_minima_eV": small["connected_minima_eV"]}
    alt["all_atoms_free_in_hessian"] = all_atoms_hessian(ref_saddle, out / "hessian-all-atoms")
    nu = ref["unstable_mode_frequency_THz"]
    lam = ref["negative_eigenvalues_eV_per_A2_amu"][0]
    alt["angular_frequency_rad_per_ps"] = 2 * math.pi * nu
    alt["without_mass_weighting_THz"] = nu * math.sqrt(ni_saddle.MASS)
    alt["eigenvalue_eV_per_A2"] = lam * ni_saddle.MASS
    alt["lowest_positive_frequency_THz"] = ref["lowest_positive_frequency_THz"]
    return values, alt


def rate_task(out: Path) -> tuple[dict, dict]:
    """Vineyard prefactor and rate at 300 K over the staged saddle, with the alternatives and traps."""
    s = out / "structures"
    ref_saddle = reference_saddle(out)
    shutil.copyfile(ref_saddle, out / "workspace" / "saddle.data")
    (out / "workspace" / "final.data").unlink()  # the rate needs the state it leaves only

    def rate(name: str, saddle: Path, *extra: str) -> dict:
        d = out / name
        return tool(d, "rate", str(ADP), str(saddle), str(s / "initial.data"), str(d), *extra)

    ref = rate("rate-0.0025", ref_saddle, "--step", "0.0025")
    values = {"prefactor_THz": ref["prefactor_THz"], "rate_300K_per_s": ref["rate_per_s"]}
    kt = ni_saddle.KB_EV_PER_K * 300.0
    boltzmann = math.exp(-ref["barrier_eV"] / kt)
    alt: dict = {}
    for step in ("0.005", "0.02"):
        r = rate(f"rate-{step}", ref_saddle, "--step", step)
        alt[f"step_{step}"] = {"prefactor_THz": r["prefactor_THz"], "rate_300K_per_s": r["rate_per_s"]}
    neb(out / "adp-quickmin-7", ADP)
    r7 = rate("rate-7-image-saddle", out / "adp-quickmin-7" / "saddle.data")
    alt["seven_image_saddle"] = {"prefactor_THz": r7["prefactor_THz"], "rate_300K_per_s": r7["rate_per_s"]}
    eyring = kt / 4.135667696e-15 / 1e12  # k_B T / h in THz
    alt["eyring_kT_over_h"] = {"prefactor_THz": eyring, "rate_300K_per_s": eyring * 1e12 * boltzmann}
    alt["angular_frequencies"] = {"prefactor_THz": 2 * math.pi * ref["prefactor_THz"]}
    alt["unstable_mode_kept"] = {"prefactor_THz": ref["prefactor_THz"] / ref["unstable_mode_frequency_THz"]}
    eam = neb(out / "eam-quickmin-7", EAM)
    alt["eam_barrier"] = {"rate_300K_per_s": ref["prefactor_THz"] * 1e12 * math.exp(-eam["forward_barrier_eV"] / kt)}
    e0 = unrelaxed_energy(ADP, s / "initial.data", out / "single")
    alt["unrelaxed_initial"] = {
        "rate_300K_per_s": ref["prefactor_THz"] * 1e12 * math.exp(-(ref["E_saddle_eV"] - e0) / kt)
    }
    alt["barrier_eV"] = ref["barrier_eV"]
    return values, alt


def workflow(out: Path) -> tuple[dict, dict]:
    eam, eam_alt = eam_task(out)
    adp, adp_alt = adp_task(out)
    cert, cert_alt = certification_task(out)
    (out / "workspace" / "saddle.data").unlink()  # the workflow finds its own saddle
    values = {
        "eam_forward_barrier_eV": eam["forward_barrier_eV"],
        "adp_forward_barrier_eV": adp["forward_barrier_eV"],
        "adp_reverse_barrier_eV": adp["reverse_barrier_eV"],
        "n_negative_modes": cert["n_negative_modes"],
        "unstable_mode_frequency_THz": cert["unstable_mode_frequency_THz"],
    }
    return values, {"eam": eam_alt, "adp": adp_alt, "certification": cert_alt}


TASKS = {
    "ni-island-eam-saddle": eam_task,
    "ni-island-adp-saddle": adp_task,
    "ni-island-saddle-certification": certification_task,
    "ni-island-glide-rate": rate_task,
    "ni-island-saddle-workflow": workflow,
}


def main(task: str, out: Path) -> None:
    start = time.process_time()
    wall = time.time()
    (out / "workspace").mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, str(HERE / "build_island.py"), str(out / "structures")], check=True)
    for name in ("initial.data", "final.data"):
        shutil.copyfile(out / "structures" / name, out / "workspace" / name)
    values, alternatives = TASKS[task](out)
    (out / "values.json").write_text(json.dumps(values, indent=1))
    alternatives["seconds"] = {"wall": time.time() - wall, "python_cpu": time.process_time() - start}
    (out / "alternatives.json").write_text(json.dumps(alternatives, indent=1))
    print(json.dumps({"values": values, "alternatives": alternatives}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
