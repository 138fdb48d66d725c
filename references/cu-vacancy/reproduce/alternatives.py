"""An alternative valid route of cu-vacancy, for the fairness record (fairness.yaml).

Usage: alternatives.py POTENTIAL OUTDIR
The 4x4x4 cell with the atom at the origin removed (not the central one), both cells relaxed with
`fix box/relax aniso` (the three edges free) at 0 and at 10 GPa, and the enthalpy read from LAMMPS's own
`enthalpy` thermo keyword (E + P V with the instantaneous pressure, equal to the target at convergence) instead
of E + P V assembled by hand; the unrelaxed energy from a defect cell built at the relaxed lattice constant.
Prints the answer as JSON.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"

SCRIPT = """units metal
atom_style atomic
boundary p p p
lattice fcc 3.6
region box block 0 4 0 4 0 4
create_box 1 box
create_atoms 1 box
pair_style eam
pair_coeff 1 1 {potential}
thermo_style custom step pe enthalpy press vol
thermo_modify format float %.14g
fix r all box/relax aniso {p} vmax 0.002
minimize 0 1e-12 20000 200000
unfix r
minimize 0 1e-12 20000 200000
print "RESULT hp $(enthalpy:%.12f) vp $(vol:%.12f) np $(atoms)"
delete_atoms group all compress no
"""
DEFECT = """units metal
atom_style atomic
boundary p p p
lattice fcc 3.6
region box block 0 4 0 4 0 4
create_box 1 box
create_atoms 1 box
pair_style eam
pair_coeff 1 1 {potential}
thermo_style custom step pe enthalpy press vol
thermo_modify format float %.14g
group gone id 1
delete_atoms group gone compress no
run 0
print "RESULT hu $(pe:%.12f)"
fix r all box/relax aniso {p} vmax 0.002
minimize 0 1e-12 20000 200000
unfix r
minimize 0 1e-12 20000 200000
fix r all box/relax aniso {p} vmax 0.002
minimize 0 1e-12 20000 200000
unfix r
minimize 0 1e-12 20000 200000
print "RESULT hd $(enthalpy:%.12f) vd $(vol:%.12f) pd $(press:%.6f)"
"""


def lammps(workdir: Path, script: str) -> dict[str, float]:
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "in.lmp").write_text(script)
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    out: dict[str, float] = {}
    for line in (workdir / "log.lammps").read_text().splitlines():
        if line.startswith("RESULT"):
            words = line.split()[1:]
            out.update({k: float(v) for k, v in zip(words[::2], words[1::2], strict=True)})
    return out


def main() -> None:
    potential, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    answer = {}
    for tag, p in (("0GPa", 0.0), ("10GPa", 1.0e5)):
        perfect = lammps(out / "alt" / f"perfect-{tag}", SCRIPT.format(potential=potential, p=p).rsplit("delete", 1)[0])
        a = (4 * perfect["vp"] / perfect["np"]) ** (1 / 3)
        defect = lammps(
            out / "alt" / f"defect-{tag}",
            DEFECT.format(potential=potential, p=p).replace("lattice fcc 3.6", f"lattice fcc {a:.12f}"),
        )
        n = perfect["np"]
        h_f = defect["hd"] - (n - 1) / n * perfect["hp"]
        omega = (defect["vd"] - (n - 1) / n * perfect["vp"]) / (perfect["vp"] / n)
        if p == 0.0:
            e_u = defect["hu"] - (n - 1) / n * perfect["hp"]
            answer |= {"Ef_vac_eV": round(h_f, 5), "Ef_vac_unrelaxed_eV": round(e_u, 5),
                       "Omega_f_per_atomic_volume": round(omega, 4)}
        else:
            answer |= {"Hf_vac_10GPa_eV": round(h_f, 5), "Omega_f_10GPa_per_atomic_volume": round(omega, 4)}
        print(f"{tag}: residual pressure of the defect cell {defect['pd']} bar", file=sys.stderr)
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
