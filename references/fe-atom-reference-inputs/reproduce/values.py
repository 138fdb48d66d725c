"""Helpers of the fe-atom-reference-inputs reproduction: what the staged bulk output prints, what an atom run gives.

Usage: values.py BULK_OUT [RUNS_DIR] OUTDIR   (writes OUTDIR/values.json)

From the bulk run (fe_pbe_bcc_fm_08.out): its cutoffs (ecutwfc_ry, ecutrho_ry), the pseudopotential file and
the functional, which the atom must share. From each finished atom run under RUNS_DIR: the total energy (the '!'
line, Ry) and the last total magnetization; the 6 A box run gives e_atom_box6_ry, the reference run
e_atom_ref_ry and the cohesive energy against the bulk run's energy (eV per atom, context).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

RY_EV = 13.605693123


def bulk_settings(text: str) -> dict[str, object]:
    """Cutoffs, functional, pseudopotential and energy printed in a pw.x output."""
    num = r"([-+]?\d+\.\d+)"
    return {
        "ecutwfc_ry": float(re.search(r"kinetic-energy cutoff\s*=\s*" + num, text).group(1)),
        "ecutrho_ry": float(re.search(r"charge density cutoff\s*=\s*" + num, text).group(1)),
        "functional": re.search(r"Exchange-correlation\s*=\s*(.+?)\s*$", text, re.M).group(1).split("(")[0].strip(),
        "pseudo": Path(re.search(r"read from file:\s*\n\s*(\S+)", text).group(1)).name,
        "energy_ry": float(re.findall(r"^!\s+total energy\s*=\s*" + num, text, re.M)[-1]),
    }


def run_result(text: str) -> dict[str, float | bool] | None:
    """Energy and moment of a finished run, None when it did not converge."""
    if "convergence has been achieved" not in text:
        return None
    energy = float(re.findall(r"^!\s+total energy\s*=\s*([-+]?\d+\.\d+)", text, re.M)[-1])
    moments = re.findall(r"total magnetization\s*=\s*([-+]?\d+\.\d+)", text)
    return {"energy_ry": energy, "moment_muB": float(moments[-1]) if moments else 0.0}


def main() -> None:
    """Write OUTDIR/values.json from the bulk output and the finished atom runs."""
    bulk_out, runs, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    bulk = bulk_settings(bulk_out.read_text())
    values: dict[str, object] = {"ecutwfc_ry": bulk["ecutwfc_ry"], "ecutrho_ry": bulk["ecutrho_ry"]}
    runs_found = {}
    for d in sorted(p for p in runs.iterdir() if (p / "pw.out").is_file()) if runs.is_dir() else []:
        res = run_result((d / "pw.out").read_text())
        if res is not None:
            runs_found[d.name] = res
    if "box6" in runs_found:
        values["e_atom_box6_ry"] = runs_found["box6"]["energy_ry"]
    if "reference" in runs_found:
        e = runs_found["reference"]["energy_ry"]
        values["e_atom_ref_ry"] = e
        values["cohesive_energy_eV"] = round((e - float(bulk["energy_ry"])) * RY_EV, 4)
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    print(json.dumps({"bulk": bulk, "runs": runs_found, "values": values}, indent=1))


if __name__ == "__main__":
    main()
