"""Vacancy formation energy and volume of fcc Cu with LAMMPS (stdlib only); prints answer.json.

Three LAMMPS runs, each in its own directory under runs/:
  perfect/  the 4x4x4 conventional supercell (256 atoms) relaxed at zero pressure, written to perfect.data;
  defect/   the same cell with the atom nearest the box centre removed, energy before relaxation, then atoms and
            cell relaxed at zero pressure (box/relax iso 0 alternated with fixed-cell minimisations).
The reference state of the removed atom is the perfect crystal, so the perfect-crystal energy and volume are
scaled by (N-1)/N:  E_f = E(N-1) - (N-1)/N E(N),  Omega_f = [V(N-1) - (N-1)/N V(N)] / (V(N)/N).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
CELLS = 4

HEADER = """units metal
atom_style atomic
boundary p p p
{structure}
pair_style eam
pair_coeff 1 1 {potential}
thermo_style custom step pe press vol
thermo_modify format float %.12g
"""

PERFECT = """lattice fcc {a}
region box block 0 {n} 0 {n} 0 {n}
create_box 1 box
create_atoms 1 box"""

RELAX = """fix br all box/relax iso 0.0 vmax 0.001
minimize 0 1e-12 10000 100000
unfix br
minimize 0 1e-12 10000 100000
"""


def lammps(workdir: Path, script: str) -> dict[str, float]:
    """Run one LAMMPS input in its own directory; return the numbers of its RESULT lines (later ones win)."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "in.lmp").write_text(script)
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    found: dict[str, float] = {}
    for line in (workdir / "log.lammps").read_text().splitlines():
        if line.startswith("RESULT"):
            words = line.split()[1:]
            found.update({k: float(v) for k, v in zip(words[::2], words[1::2], strict=True)})
    if not found:
        raise SystemExit(f"{workdir}: LAMMPS printed no RESULT line")
    return found


def main() -> None:
    """Relax the perfect and the defect cell; print E_f (relaxed and unrelaxed) and Omega_f as JSON."""
    potential = Path(sys.argv[1]).resolve()
    a_guess = float(potential.read_text().splitlines()[1].split()[2])  # starting guess only; relaxed below
    runs = Path("runs").resolve()
    perfect = lammps(
        runs / "perfect",
        HEADER.format(structure=PERFECT.format(a=a_guess, n=CELLS), potential=potential)
        + RELAX
        + 'print "RESULT pe $(pe:%.12f) vol $(vol:%.12f) natoms $(atoms) lx $(lx:%.10f)"\n'
        + "write_data perfect.data\n",
    )
    centre = perfect["lx"] / 2
    defect = lammps(
        runs / "defect",
        HEADER.format(structure=f"read_data {runs / 'perfect' / 'perfect.data'}", potential=potential)
        # the atom closest to the centre of the box (a lattice site there exists for even CELLS)
        + f"region centre sphere {centre} {centre} {centre} 0.5 units box\n"
        + "group gone region centre\n"
        + 'print "RESULT removed $(count(gone))"\n'
        + "delete_atoms group gone compress no\n"
        + "run 0\n"
        + 'print "RESULT pe_unrelaxed $(pe:%.12f) natoms $(atoms)"\n'
        + RELAX
        + RELAX
        + 'print "RESULT pe $(pe:%.12f) vol $(vol:%.12f) press $(press:%.4f)"\n',
    )
    if defect["removed"] != 1:
        raise SystemExit(f"expected to remove one atom, removed {defect['removed']}")
    n = perfect["natoms"]
    scale = (n - 1) / n
    answer = {
        "Ef_vac_eV": round(defect["pe"] - scale * perfect["pe"], 5),
        "Ef_vac_unrelaxed_eV": round(defect["pe_unrelaxed"] - scale * perfect["pe"], 5),
        "Omega_f_per_atomic_volume": round((defect["vol"] - scale * perfect["vol"]) / (perfect["vol"] / n), 4),
    }
    print(f"residual pressure of the relaxed defect cell: {defect['press']} bar", file=sys.stderr)
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
