"""Reference values of ni-island-model, the alternatives that must pass and the errors that must fail.

Every number comes from LAMMPS (29 Sep 2021) through the task's tool (solution/ni_island.py) on the staged structures
(the study's build_island.py) with the staged Ni_u3.eam. The reference route differs from the oracle's: FIRE
instead of conjugate gradients for every relaxation, and bulk Ni from a relaxed 4 x 4 x 4 cubic cell instead of a
3 x 3 x 3 cell at a = 3.52 A.

Usage: alternatives.py OUTDIR   writes OUTDIR/values.json and OUTDIR/alternatives.json (about 30 s on one core)
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
TOOL = HERE.parent / "solution" / "ni_island.py"
WS = ROOT / "tasks" / "ni-island-saddles" / "ni-island-model" / "workspace"
BUILD = ROOT / "references" / "ni-island-eam-saddle" / "reproduce" / "build_island.py"
KEYS = (
    "island_hcp_minus_fcc_meV",
    "adatom_hcp_minus_fcc_meV",
    "binding_energy_eV_per_atom",
    "excess_energy_eV_per_atom",
    "island_height_A",
)
EXPERIMENTAL_COHESIVE_EV = (
    4.44  # the measured cohesive energy of Ni (Kittel), for the trap of a bulk energy not computed
)


def run(out: Path, *extra: str, ws: Path = WS) -> dict:
    """The tool on the structures of `ws` with options `extra`; its island.json."""
    subprocess.run(
        [sys.executable, str(TOOL), str(WS / "Ni_u3.eam"), str(ws / "initial.data"), str(ws / "final.data"), str(out)]
        + list(extra),
        check=True,
        capture_output=True,
    )
    return json.loads((out / "island.json").read_text())


def pick(res: dict) -> dict:
    """The five answer fields of a run."""
    return {k: res[k] for k in KEYS}


def thicker_slab(out: Path, layers: int) -> Path:
    """The study's structures rebuilt with `layers` layers (same cell, vacuum, island); returns their folder.

    `layers` must be 1 modulo 3, so that the top layer has the stacking of the study's four-layer slab.
    """
    assert layers % 3 == 1, layers
    spec = importlib.util.spec_from_file_location("build_island", BUILD)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.LAYERS = layers
    mod.main(out)
    return out


def main(out: Path) -> None:
    """Run every route and write values.json and alternatives.json."""
    out.mkdir(parents=True, exist_ok=True)
    ref = run(out / "reference", "--min", "fire", "--bulk-cell", "4", "--box-relax")
    alt: dict[str, dict] = {}
    alt["oracle_cg"] = pick(run(out / "oracle-cg"))
    alt["fire_loose_ring_adatom"] = pick(
        run(out / "fire-loose-ring", "--min", "fire", "--ftol", "1e-5", "--adatom", "3")
    )
    alt["unrelaxed"] = pick(run(out / "unrelaxed", "--unrelaxed"))
    alt["free_bottom"] = pick(run(out / "free-bottom", "--free-bottom"))
    # seven layers keep the stacking of the top layer (ABCA BCA): the island is on the same kinds of hollows
    seven = thicker_slab(out / "seven-layers" / "structures", 7)
    alt["seven_layers_two_fixed"] = pick(run(out / "seven-layers" / "two-fixed", ws=seven))
    alt["seven_layers_three_fixed"] = pick(run(out / "seven-layers" / "three-fixed", "--z-fixed", "15.0", ws=seven))
    e = ref["runs"]
    n = 7
    alt["traps"] = {
        "island_difference_per_atom_meV": ref["island_hcp_minus_fcc_meV"] / n,
        "seven_adatom_differences_meV": n * ref["adatom_hcp_minus_fcc_meV"],
        "binding_per_island_eV": n * ref["binding_energy_eV_per_atom"],
        "excess_per_island_eV": n * ref["excess_energy_eV_per_atom"],
        "adsorption_vs_free_atoms_eV_per_atom": -(e["island_fcc"]["E_eV"] - e["slab"]["E_eV"]) / n,
        "excess_vs_experimental_cohesive_eV_per_atom": (e["island_fcc"]["E_eV"] - e["slab"]["E_eV"]) / n
        + EXPERIMENTAL_COHESIVE_EV,
        "height_above_unrelaxed_top_layer_A": e["island_fcc"]["z_island_A"] - 16.0968188426,
        "adatom_height_A": ref["adatom_height_A"],
    }
    values = pick(ref) | {
        "adatom_height_A": ref["adatom_height_A"],
        "bulk_energy_eV_per_atom": ref["bulk_energy_eV_per_atom"],
        "bulk_lattice_A": ref["bulk_lattice_A"],
        "energies_eV": {k: v["E_eV"] for k, v in e.items()},
    }
    (out / "values.json").write_text(json.dumps(values, indent=1))
    (out / "alternatives.json").write_text(json.dumps(alt, indent=1))
    print(json.dumps({"values": values, "alternatives": alt}, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
