"""Build the RuO2(100)/SnTe(110) interface from the two staged slabs and write the VASP inputs (numpy only).

The in-plane cell is the SnTe substrate's; RuO2 keeps its in-plane fractional coordinates (strained by
4.4689/4.492 - 1 = -0.51 % along a1 and 6.32/6.212 - 1 = +1.74 % along a2) and its Cartesian heights; its lowest
atom sits GAP above the highest SnTe atom, and c leaves VACUUM between the top of RuO2 and the bottom of the next
SnTe image. Ru layers alternate A, B, A, B from the interface up: MAGMOM +M on A, -M on B.

Usage: python3 write_inputs.py [WORKDIR] [--gap G] [--vacuum V]      (writes POSCAR, INCAR, KPOINTS, POTCAR.spec)
"""

import argparse
from pathlib import Path

import numpy as np

SPECIES = ["Sn", "Te", "Ru", "O"]
GAP, VACUUM, M = 2.60, 15.0, 1.5


def read_poscar(path):
    """Cell, species per atom and Cartesian positions of a VASP 5 POSCAR with Cartesian coordinates."""
    lines = Path(path).read_text().splitlines()
    cell = np.array([[float(x) for x in lines[i].split()[:3]] for i in (2, 3, 4)]) * float(lines[1])
    names, counts = lines[5].split(), [int(x) for x in lines[6].split()]
    assert lines[7].strip().lower().startswith("c"), "Cartesian coordinates expected"
    pos = np.array([[float(x) for x in row.split()[:3]] for row in lines[8 : 8 + sum(counts)]])
    sym = [n for n, c in zip(names, counts, strict=True) for _ in range(c)]
    return cell, sym, pos


def main():
    """Build the interface and write POSCAR, INCAR, KPOINTS and POTCAR.spec."""
    ap = argparse.ArgumentParser()
    ap.add_argument("workdir", nargs="?", default=".")
    ap.add_argument("--gap", type=float, default=GAP)
    ap.add_argument("--vacuum", type=float, default=VACUUM)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    work = Path(args.workdir)
    out = Path(args.out) if args.out else work
    out.mkdir(parents=True, exist_ok=True)
    cs, ss, ps = read_poscar(work / "SnTe_110_slab.vasp")
    cr, sr, pr = read_poscar(work / "RuO2_100_slab.vasp")
    a1, a2 = cs[0, 0], cs[1, 1]
    ps = ps - [0, 0, ps[:, 2].min()]
    pr = pr - [0, 0, pr[:, 2].min()]
    strained = np.column_stack(
        [pr[:, 0] / cr[0, 0] * a1, pr[:, 1] / cr[1, 1] * a2, pr[:, 2] + ps[:, 2].max() + args.gap]
    )
    sym = ss + sr
    pos = np.vstack([ps, strained])
    c = pos[:, 2].max() + args.vacuum
    # Ru sublattice from the layer order of the RuO2 slab: layers A, B, A, B from the bottom
    ru_z = sorted({round(z, 3) for s, z in zip(sr, pr[:, 2], strict=True) if s == "Ru"})
    moments = []
    rows = []
    for sp in SPECIES:
        idx = sorted(
            (i for i, s in enumerate(sym) if s == sp), key=lambda i: (round(pos[i, 2], 4), pos[i, 0], pos[i, 1])
        )
        for i in idx:
            rows.append((sp, pos[i]))
            if sp == "Ru":
                layer = ru_z.index(round(pos[i, 2] - ps[:, 2].max() - args.gap, 3))
                moments.append(M if layer % 2 == 0 else -M)
            else:
                moments.append(0.0)
    counts = [sum(1 for s in sym if s == sp) for sp in SPECIES]
    poscar = [
        "RuO2(100) 1x2 on SnTe(110), RuO2 strained to the SnTe cell",
        "1.0",
        f"  {a1:.6f} 0.000000 0.000000",
        f"  0.000000 {a2:.6f} 0.000000",
        f"  0.000000 0.000000 {c:.6f}",
        "  " + " ".join(SPECIES),
        "  " + " ".join(map(str, counts)),
        "Cartesian",
    ]
    poscar += [f"  {p[0]:.6f} {p[1]:.6f} {p[2]:.6f}  {s}" for s, p in rows]
    (out / "POSCAR").write_text("\n".join(poscar) + "\n")
    # MAGMOM in run-length form
    groups, prev, n = [], None, 0
    for m in moments:
        if m == prev:
            n += 1
        else:
            if prev is not None:
                groups.append(f"{n}*{prev:g}")
            prev, n = m, 1
    groups.append(f"{n}*{prev:g}")
    incar = f"""SYSTEM = RuO2(100)/SnTe(110) interface, collinear AFM RuO2, PBE+U, ionic relaxation
PREC = Accurate
ENCUT = 520
EDIFF = 1E-6
ISMEAR = 0; SIGMA = 0.05
ISPIN = 2
MAGMOM = {" ".join(groups)}
LDAU = .TRUE.
LDAUTYPE = 2
LDAUL = -1 -1 2 -1
LDAUU = 0 0 2.0 0
LDAUJ = 0 0 0 0
LMAXMIX = 4
LASPH = .TRUE.
LDIPOL = .TRUE.
IDIPOL = 3
LORBIT = 11
NBANDS = 240
IBRION = 2
ISIF = 2
NSW = 60
EDIFFG = -0.02
"""
    (out / "INCAR").write_text(incar)
    (out / "KPOINTS").write_text("Gamma-centred mesh, 1 point along the slab normal\n0\nGamma\n  7 5 1\n  0 0 0\n")
    (out / "POTCAR.spec").write_text("Sn_d\nTe\nRu_pv\nO\n")
    print(f"{len(rows)} atoms, c = {c:.4f} A, MAGMOM = {' '.join(groups)}")


if __name__ == "__main__":
    main()
