"""The staged end states of ni-island-neb-inputs and a run of the reference input deck.

  make_states.py OUTDIR
    builds the heptamer on fcc and on hcp hollows (build_island.py of ni-island-eam-saddle), relaxes both with
    Foiles' EAM and the two bottom layers fixed (cg to 1e-8 eV/A, the study's saddle tool ni_saddle.py), and
    writes them as OUTDIR/workspace/fcc_relaxed.data and hcp_relaxed.data (LAMMPS write_data files); then runs
    the reference deck references/ni-island-neb-inputs/in.neb on them with 7 partitions (mpirun) in OUTDIR/run
    and writes OUTDIR/values.json: the graded reference values and the barriers of that run (not graded).

Needs `lmp` with the REPLICA package and `mpirun`. Seconds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
EAM_TASK = ROOT / "references" / "ni-island-eam-saddle"
sys.path[:0] = [str(EAM_TASK / "solution"), str(EAM_TASK / "reproduce")]
import build_island  # noqa: E402
import ni_saddle  # noqa: E402

POT = ROOT / "tasks" / "ni-island-saddles" / "ni-island-eam-saddle" / "workspace" / "Ni_u3.eam"
DECK = HERE.parent / "in.neb"
REPLICAS = 7


def neb_coords(data: Path) -> str:
    """A LAMMPS data file's atoms in the format of `neb ... final FILE`: the number of lines, then id x y z."""
    lines = data.read_text().splitlines()
    n = int(next(line.split()[0] for line in lines if line.strip().endswith("atoms")))
    start = next(i for i, line in enumerate(lines) if line.startswith("Atoms")) + 2
    rows = [line.split() for line in lines[start : start + n]]
    return f"{n}\n" + "".join(f"{r[0]} {r[2]} {r[3]} {r[4]}\n" for r in rows)


def last_band_row(log: Path) -> dict[str, float]:
    """Step, largest replica force and the two barriers of the last line of the band's log."""
    rows = [line.split() for line in log.read_text().splitlines() if line.strip()]
    row = next(r for r in reversed(rows) if len(r) == 9 + 2 * REPLICAS and r[0].isdigit())
    return {"steps": int(row[0]), "max_replica_force": float(row[1]), "EBF": float(row[6]), "EBR": float(row[7])}


def main(out: Path) -> None:
    structures, work, ws, run = out / "structures", out / "relax", out / "workspace", out / "run"
    for d in (structures, work, ws, run):
        d.mkdir(parents=True, exist_ok=True)
    build_island.main(structures)
    e_fcc = ni_saddle.relax(POT, structures / "initial.data", ws / "fcc_relaxed.data", work, "relax-fcc")
    e_hcp = ni_saddle.relax(POT, structures / "final.data", ws / "hcp_relaxed.data", work, "relax-hcp")
    for f in (ws / "fcc_relaxed.data", ws / "hcp_relaxed.data", POT, DECK):
        shutil.copy(f, run)
    (run / "final.coords").write_text(neb_coords(ws / "hcp_relaxed.data"))
    mpi = ["mpirun", "-np", str(REPLICAS), "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    cmd = [*mpi, "lmp", "-partition", f"{REPLICAS}x1", "-in", "in.neb", "-log", "log.lammps"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    subprocess.run(cmd, cwd=run, check=True, capture_output=True, env=env)
    band = last_band_row(run / "log.lammps")
    values = {
        "units": "metal",
        "elements": ["Ni"],
        "reference_run_forward_barrier_eV": band["EBF"],
        "reference_run_reverse_barrier_eV": band["EBR"],
        "reference_run_reaction_energy_eV": round(e_hcp - e_fcc, 8),
        "reference_run_max_replica_force_eV_per_A": band["max_replica_force"],
    }
    (out / "values.json").write_text(json.dumps(values, indent=2) + "\n")
    print(json.dumps({**values, "band_steps": band["steps"]}, indent=2))


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
