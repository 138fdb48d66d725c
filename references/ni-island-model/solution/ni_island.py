"""Energies and heights of a compact Ni island on the Ni(111) slab of the ni-island-saddles study, with LAMMPS.

  ni_island.py POT INITIAL FINAL OUTDIR [--min cg|fire] [--ftol F] [--bulk-cell N] [--box-relax] [--adatom K]
              [--z-fixed Z] [--free-bottom] [--unrelaxed]

Relaxes, with the bottom of the slab (z < 13.0 A) held fixed: the island on fcc hollows (INITIAL), the island on
hcp hollows (FINAL), the bare slab (INITIAL without its island, the last seven IDs), and one adatom, the island's
centre atom (its first ID; --adatom K: its K-th ring atom), alone on its fcc (INITIAL) or hcp (FINAL) hollow.
Bulk fcc Ni per atom from an N x N x N cubic cell (a = 3.52 A, or its own relaxed lattice constant with
--box-relax). Writes OUTDIR/island.json: every energy, the fcc-hcp differences, the island's binding energy per
atom against isolated adatoms, its excess energy per atom against bulk Ni, and its relaxed height above the top
layer of the slab.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

Z_FIXED = 13.0  # A: atoms below are the fixed bottom of the slab
MASS = 58.69  # amu
A0 = 3.52  # A, the lattice constant of the slab
N_ISLAND = 7  # the island: the last seven IDs of the data file, its centre atom first
N_LAYER = 64  # atoms of one 8 x 8 layer of the slab; the top layer holds the IDs just before the island


def lmp(script: str, work: Path, name: str) -> str:
    """Run `script` with LAMMPS on one core in `work`; its standard output."""
    work.mkdir(parents=True, exist_ok=True)
    (work / f"{name}.in").write_text(script)
    proc = subprocess.run(
        ["lmp", "-in", f"{name}.in", "-log", f"{name}.log"],
        cwd=work,
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    if proc.returncode != 0:
        sys.exit(f"lmp failed in {work}/{name}.in:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout


def printed(stdout: str, tag: str) -> float:
    """The number that a `print "TAG value"` line of the script wrote."""
    return float(next(line.split()[1] for line in stdout.splitlines() if line.startswith(tag + " ")))


def pair(pot: Path) -> str:
    """The pair style of a funcfl EAM file."""
    return f"pair_style eam\npair_coeff * * {pot.resolve()}\n"


def id_ranges(data: Path) -> tuple[tuple[int, int], tuple[int, int]]:
    """IDs of the island and of the slab's top layer (first, last) in a data file of build_island.py."""
    n = int(next(line.split()[0] for line in data.read_text().splitlines() if line.strip().endswith(" atoms")))
    return (n - N_ISLAND + 1, n), (n - N_ISLAND - N_LAYER + 1, n - N_ISLAND)


def relax(args: argparse.Namespace, data: Path, keep: str, work: Path, name: str) -> dict:
    """Relax `data` with `keep` of its island ("all", "none" or the index of one atom).

    Returns the energy and the mean heights of the island atoms kept and of the top layer.
    """
    hold = "" if args.free_bottom else "fix hold fixed setforce 0.0 0.0 0.0\n"
    ISLAND, TOP = id_ranges(data)
    ids = list(range(ISLAND[0], ISLAND[1] + 1))
    gone = [] if keep == "all" else ids if keep == "none" else [i for i in ids if i != ISLAND[0] + int(keep)]
    delete = "".join(f"group gone id {i}\n" for i in gone) + ("delete_atoms group gone compress no\n" if gone else "")
    minimize = "run 0" if args.unrelaxed else f"minimize 0 {args.ftol} 50000 500000"
    script = f"""units metal
atom_style atomic
boundary p p p
atom_modify map array
read_data {data.resolve()}
mass 1 {MASS}
{pair(Path(args.pot))}{delete}variable low atom z<{args.z_fixed}
group fixed variable low
{hold}group island id {ISLAND[0]}:{ISLAND[1]}
group top id {TOP[0]}:{TOP[1]}
thermo_style custom step pe fmax
min_style {args.min}
{"timestep 0.005" + chr(10) if args.min == "fire" else ""}{minimize}
variable zi equal xcm(island,z)
variable zt equal xcm(top,z)
print "ENERGY $(pe:%.10f)"
print "NATOMS $(atoms)"
print "ZTOP $(v_zt:%.10f)"
print "ZISLAND $(v_zi:%.10f)"
"""
    out = lmp(script, work, name)
    res = {"E_eV": printed(out, "ENERGY"), "atoms": int(printed(out, "NATOMS")), "z_top_A": printed(out, "ZTOP")}
    if keep != "none":
        res["z_island_A"] = printed(out, "ZISLAND")
    return res


def bulk(args: argparse.Namespace, work: Path) -> dict:
    """Energy per atom and lattice constant of bulk fcc Ni."""
    n = args.bulk_cell
    relax_box = "fix box all box/relax iso 0.0\nminimize 0 1e-10 10000 100000\nunfix box\n" if args.box_relax else ""
    script = f"""units metal
atom_style atomic
boundary p p p
lattice fcc {A0}
region cell block 0 {n} 0 {n} 0 {n}
create_box 1 cell
create_atoms 1 region cell
mass 1 {MASS}
{pair(Path(args.pot))}thermo_style custom step pe press vol
{relax_box}run 0
print "ENERGY $(pe/atoms:%.10f)"
print "LATTICE $((vol/atoms*4)^(1/3):%.8f)"
"""
    out = lmp(script, work, "bulk")
    return {"E_eV_per_atom": printed(out, "ENERGY"), "a_A": printed(out, "LATTICE")}


def main() -> None:
    """Run every structure and write island.json."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("pot", "initial", "final", "outdir"):
        p.add_argument(name)
    p.add_argument("--min", default="cg", choices=["cg", "fire"])
    p.add_argument("--ftol", type=float, default=1e-8, help="force tolerance of every relaxation, eV/A")
    p.add_argument("--z-fixed", type=float, default=Z_FIXED, help="atoms below this height (A) are held fixed")
    p.add_argument("--adatom", type=int, default=0, help="which island atom is the single adatom (0 = centre)")
    p.add_argument("--unrelaxed", action="store_true", help="energies of the structures as given (the trap)")
    p.add_argument("--free-bottom", action="store_true", help="relax every atom (the trap of an unheld bottom)")
    p.add_argument("--bulk-cell", type=int, default=3, help="cubic cells per edge of the bulk reference")
    p.add_argument("--box-relax", action="store_true", help="relax the bulk lattice constant")
    args = p.parse_args()
    out = Path(args.outdir)
    work = out / "work"
    ini, fin = Path(args.initial), Path(args.final)
    runs = {
        "island_fcc": relax(args, ini, "all", work, "island-fcc"),
        "island_hcp": relax(args, fin, "all", work, "island-hcp"),
        "slab": relax(args, ini, "none", work, "slab"),
        "adatom_fcc": relax(args, ini, str(args.adatom), work, "adatom-fcc"),
        "adatom_hcp": relax(args, fin, str(args.adatom), work, "adatom-hcp"),
    }
    b = bulk(args, work)
    e = {k: v["E_eV"] for k, v in runs.items()}
    fcc = runs["island_fcc"]
    result = {
        "island_hcp_minus_fcc_meV": 1000 * (e["island_hcp"] - e["island_fcc"]),
        "adatom_hcp_minus_fcc_meV": 1000 * (e["adatom_hcp"] - e["adatom_fcc"]),
        "binding_energy_eV_per_atom": (N_ISLAND * e["adatom_fcc"] - (N_ISLAND - 1) * e["slab"] - e["island_fcc"])
        / N_ISLAND,
        "excess_energy_eV_per_atom": (e["island_fcc"] - e["slab"]) / N_ISLAND - b["E_eV_per_atom"],
        "island_height_A": fcc["z_island_A"] - fcc["z_top_A"],
        "adatom_height_A": runs["adatom_fcc"]["z_island_A"] - runs["adatom_fcc"]["z_top_A"],
        "bulk_energy_eV_per_atom": b["E_eV_per_atom"],
        "bulk_lattice_A": b["a_A"],
        "runs": runs,
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "island.json").write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
