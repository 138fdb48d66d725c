"""Alternative valid routes of cu-eam-elastic, for the fairness record (fairness.yaml).

Usage: alternatives.py POTENTIAL OUTDIR
  energy route:  C11, C12, C44 from the curvature of the LAMMPS energy against strain (+-0.5%, 5 points, 256-atom
                 cube at the relaxed a0), C12 from the volumetric curvature (3 C11 + 6 C12);
  other axis:    a0 from a 3x3x3 relaxation, and the finite-strain points from a 108-atom cube stretched by +-4%
                 along z instead of x (sigma_zz plays sigma_xx, the mean of sigma_xx and sigma_yy plays sigma_yy).
Prints the values as JSON (the `answer` of the fairness cases).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
EV_A3_GPA = 160.21766208


def lammps(workdir: Path, script: str) -> dict[str, float]:
    """One LAMMPS run in its own folder; the numbers of its RESULT line."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "in.lmp").write_text(script)
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    line = [ln for ln in (workdir / "log.lammps").read_text().splitlines() if ln.startswith("RESULT")][-1]
    words = line.split()[1:]
    return {k: float(v) for k, v in zip(words[::2], words[1::2], strict=True)}


def head(potential: Path, n: int, a: float) -> str:
    return (
        f"units metal\nboundary p p p\natom_style atomic\nlattice fcc {a:.10f}\nregion b block 0 {n} 0 {n} 0 {n}\n"
        f"create_box 1 b\ncreate_atoms 1 box\npair_style eam\npair_coeff 1 1 {potential}\n"
        "thermo_style custom step pe vol pxx pyy pzz pyz\nthermo_modify format float %.14g\n"
    )


def main() -> None:
    potential, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    relax = lammps(
        out / "alt" / "relax3",
        head(potential, 3, 3.6)
        + "fix r all box/relax iso 0.0 vmax 0.001\nminimize 0 1e-12 10000 100000\nunfix r\n"
        + 'minimize 0 1e-12 10000 100000\nprint "RESULT lx $(lx:%.12f) pe $(pe:%.12f) n $(atoms)"\n',
    )
    a0 = relax["lx"] / 3
    # energy route, 4x4x4 cube at a0
    s = np.array([-0.005, -0.0025, 0.0, 0.0025, 0.005])

    answer: dict[str, float] = {"a0_angstrom": round(a0, 6)}

    def scaled(tag: str, fx, fy, fz, tilt=0.0) -> list[float]:
        energies = []
        for i, x in enumerate(s):
            change = f"change_box all x scale {fx(x):.14f} y scale {fy(x):.14f} z scale {fz(x):.14f}"
            change += f" yz delta {tilt * x * 4 * a0:.14f} remap units box"
            r = lammps(
                out / "alt" / f"{tag}{i}",
                head(potential, 4, a0) + "change_box all triclinic\n" + change + "\nrun 0\n"
                'print "RESULT pe $(pe:%.14f)"\n',
            )
            energies.append(r["pe"])
        return energies

    vol = (4 * a0) ** 3
    curv = lambda e: float(2 * np.polyfit(s, e, 4)[2] / vol * EV_A3_GPA)  # noqa: E731
    one = lambda x: 1.0  # noqa: E731
    c11 = curv(scaled("e11-", lambda x: 1 + x, one, one))
    cvol = curv(scaled("evol-", lambda x: 1 + x, lambda x: 1 + x, lambda x: 1 + x))  # 3 C11 + 6 C12 (to 1st order)
    c44 = curv(scaled("e44-", one, one, one, tilt=1.0))
    answer |= {"C11_GPa": round(c11, 3), "C12_GPa": round((cvol - 3 * c11) / 6, 3), "C44_GPa": round(c44, 3)}
    # finite strain along z in a 108-atom cube
    for name, eps in (("plus4", 0.04), ("minus4", -0.04)):
        r = lammps(
            out / "alt" / f"z{name}",
            head(potential, 3, a0)
            + f"change_box all z scale {1 + eps:.12f} remap units box\nminimize 0 1e-12 1000 10000\n"
            + 'print "RESULT pxx $(pxx:%.8f) pyy $(pyy:%.8f) pzz $(pzz:%.8f)"\n',
        )
        answer[f"sigma_xx_at_{name}_GPa"] = round(-r["pzz"] / 1e4, 4)
        answer[f"sigma_yy_at_{name}_GPa"] = round(-0.5 * (r["pxx"] + r["pyy"]) / 1e4, 4)
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
