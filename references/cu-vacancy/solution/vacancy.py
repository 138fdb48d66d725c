"""Vacancy formation energy and volume of fcc Cu with LAMMPS (stdlib only); prints answer.json.

At zero pressure and at 10 GPa, two LAMMPS runs each, in their own directories under runs/<pressure>/:
  perfect/  the 4x4x4 conventional supercell (256 atoms) relaxed at the pressure, written to perfect.data;
  defect/   the same cell with the atom nearest the box centre removed, energy before relaxation, then atoms and
            cell relaxed at the pressure (box/relax iso P alternated with fixed-cell minimisations).
The reference state of the removed atom is the perfect crystal at the same pressure, so the perfect-crystal
enthalpy H = E + P V and volume are scaled by (N-1)/N:  H_f = H(N-1) - (N-1)/N H(N) (= E_f at P = 0),
Omega_f = [V(N-1) - (N-1)/N V(N)] / (V(N)/N), in units of the atomic volume at that pressure.
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

RELAX = """fix br all box/relax iso {p} vmax 0.001
minimize 0 1e-12 10000 100000
unfix br
minimize 0 1e-12 10000 100000
"""
P_HIGH_BAR = 1.0e5  # 10 GPa
EV_PER_BAR_A3 = 1.0e-25 / 1.602176634e-19  # 1 bar x 1 A^3 in eV


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


def vacancy(potential: Path, runs: Path, p: float) -> dict[str, float]:
    """Perfect and defect cells relaxed at pressure p (bar): energies, volumes and the unrelaxed defect energy."""
    a_guess = float(potential.read_text().splitlines()[1].split()[2])  # starting guess only; relaxed below
    relax = RELAX.format(p=p)
    perfect = lammps(
        runs / "perfect",
        HEADER.format(structure=PERFECT.format(a=a_guess, n=CELLS), potential=potential)
        + relax
        + 'print "RESULT pe $(pe:%.12f) vol $(vol:%.12f) natoms $(atoms) lx $(lx:%.10f) xlo $(xlo:%.10f)"\n'
        + "write_data perfect.data\n",
    )
    centre = perfect["xlo"] + perfect["lx"] / 2
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
        + relax
        + relax
        + 'print "RESULT pe $(pe:%.12f) vol $(vol:%.12f) press $(press:%.4f)"\n',
    )
    if defect["removed"] != 1:
        raise SystemExit(f"expected to remove one atom, removed {defect['removed']}")
    n = perfect["natoms"]
    scale = (n - 1) / n
    pv = p * EV_PER_BAR_A3
    print(f"p = {p} bar: residual pressure of the relaxed defect cell {defect['press']} bar", file=sys.stderr)
    return {
        "H_f": defect["pe"] + pv * defect["vol"] - scale * (perfect["pe"] + pv * perfect["vol"]),
        "E_f_unrelaxed": defect["pe_unrelaxed"] - scale * perfect["pe"],
        "Omega_f": (defect["vol"] - scale * perfect["vol"]) / (perfect["vol"] / n),
    }


def main() -> None:
    """Relax the perfect and the defect cell at 0 and 10 GPa; print the formation quantities as JSON."""
    potential = Path(sys.argv[1]).resolve()
    runs = Path("runs").resolve()
    zero = vacancy(potential, runs / "0GPa", 0.0)
    high = vacancy(potential, runs / "10GPa", P_HIGH_BAR)
    answer = {
        "Ef_vac_eV": round(zero["H_f"], 5),
        "Ef_vac_unrelaxed_eV": round(zero["E_f_unrelaxed"], 5),
        "Omega_f_per_atomic_volume": round(zero["Omega_f"], 4),
        "Hf_vac_10GPa_eV": round(high["H_f"], 5),
        "Omega_f_10GPa_per_atomic_volume": round(high["Omega_f"], 4),
    }
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
