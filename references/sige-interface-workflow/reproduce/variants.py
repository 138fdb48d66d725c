"""Alternatives and errors of sige-interface-workflow, each a change to the oracle's step a (build_device.py).

Usage: variants.py WORKSPACE_DIR OUTDIR [VARIANT ...]   writes (or adds to) OUTDIR/variants.json
  delta_0.01      force constants with 0.01 A displacements instead of 0.0025 A (valid)
  device_4_layers a device of four principal layers (planes 24-39) instead of eight (valid)
  unrelaxed       the superlattice's force constants at its unrelaxed positions (error)
  cubic_ge_lead   the Ge lead built from cubic Ge at a_Ge instead of Ge strained to a_Si (error; its blocks are
                  then taken at the Si in-plane lattice but with the cubic c, the strain of the device ignored)
Each variant's blocks go through the oracle's transmission and specularity scripts.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
sol = here.parents[0] / "solution"
sys.path.insert(0, str(sol))
sys.path.insert(0, str(here.parents[1] / "sige-agf-transmission" / "solution"))
sys.path.insert(0, str(here.parents[1] / "sige-reflection-specularity" / "solution"))
import build_device  # noqa: E402
import specularity  # noqa: E402
import transmission  # noqa: E402


def run_step_a(work: Path, variant: str) -> Path:
    work.mkdir(parents=True, exist_ok=True)
    for name in ("SiCGe.tersoff", "sige_intermixed.data"):
        shutil.copyfile(Path(sys.argv[1]) / name, work / name)
    build_device.DELTA = 0.01 if variant == "delta_0.01" else 0.0025
    build_device.DEV_PL = range(6, 10) if variant == "device_4_layers" else range(4, 12)
    original_relax = build_device.relax
    if variant == "unrelaxed":

        def relax(workdir, cell, pos, types, pot, box="z"):
            if workdir.name == "superlattice":
                return cell, pos, 0.0
            return original_relax(workdir, cell, pos, types, pot, box)

        build_device.relax = relax
    if variant == "cubic_ge_lead":

        def relax(workdir, cell, pos, types, pot, box="z"):
            c, p, e = original_relax(workdir, cell, pos, types, pot, box)
            if workdir.name == "strained-Ge":  # c of cubic Ge (5.656747 A) instead of the strained 5.814537 A
                scale = 5.656747 * 2 / c[2, 2]
                c = c.copy()
                c[2, 2] *= scale
                p = p.copy()
                p[:, 2] *= scale
            return c, p, e

        build_device.relax = relax
    cwd = os.getcwd()
    os.chdir(work)
    try:
        sys.argv[1:] = [str(Path(sys.argv[1])), "x"]  # keep argv[1] for the next variant
        build_device.sys.argv = ["build_device.py", "sige_intermixed.data", "sige_device.h5"]
        with contextlib.redirect_stdout(io.StringIO()):
            build_device.main()
    finally:
        os.chdir(cwd)
        build_device.relax = original_relax
    return work / "sige_device.h5"


def evaluate(h5: Path) -> dict:
    def quiet(module):
        buf = io.StringIO()
        module.sys.argv = ["x", str(h5)]
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            module.main()
        return json.loads(buf.getvalue())

    def loose_solve(dev, nu, extra_l=None):  # flux conserved only to 1e-5 with blocks made less carefully
        s = transmission.scatter(2 * np.pi * nu * 1e12, dev["lead_l"], dev["lead_r"], dev["onsite"],
                                 dev["coupling"], dev["period_l"], dev["period_r"], eta_rel=1e-9, extra_l=extra_l)  # fmt: skip
        return s, 1e-9

    transmission.solve = specularity.solve = loose_solve
    return {"transmission": quiet(transmission), "reflection": quiet(specularity)}


def main() -> None:
    out = Path(sys.argv[2]).resolve()
    workspace = sys.argv[1]
    path = out / "variants.json"
    result = json.loads(path.read_text()) if path.exists() else {}
    for variant in sys.argv[3:] or ("delta_0.01", "device_4_layers", "unrelaxed", "cubic_ge_lead"):
        sys.argv[1] = workspace
        result[variant] = evaluate(run_step_a(out / variant, variant))
        print(variant, json.dumps(result[variant]), flush=True)
        path.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
