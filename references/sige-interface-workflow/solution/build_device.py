"""Step a of sige-interface-workflow: relax the staged intermixed superlattice and write its force-constant blocks.

Usage: build_device.py DATAFILE OUT_H5 > step-a.json
1. Cubic Si (box/relax iso) and Ge strained to it in the plane (box/relax z) with the Tersoff (1989) Si-Ge
   parameters (SiCGe.tersoff, Si(D) and Ge): a_Si, c_Ge, the two leads.
2. The staged superlattice relaxed with box/relax z (in-plane lattice kept), a tight force tolerance.
3. Force constants by central differences (0.0025 A): the leads from bulk cells (perfect crystals, so that the
   in-plane translations are exact symmetries), the device from the relaxed superlattice, principal layers of four
   (001) planes; the device spans planes 16-47 around the intermixed interface between planes 31 and 32, far from
   the second (abrupt) interface of the periodic cell at planes 63 | 0.
Writes OUT_H5 in the layout of sige_device.h5 of sige-agf-transmission.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import h5py
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lmp_tools import MASS, diamond_slab, energy_forces, read_data, relax  # noqa: E402

DELTA = 0.0025
DEV_PL = range(4, 12)


def fc_columns(work: Path, cell, pos, types, pot: Path, atoms) -> np.ndarray:
    frames = []
    for j in atoms:
        for b in range(3):
            for s in (1, -1):
                p = pos.copy()
                p[j, b] += s * DELTA
                frames.append(p)
    _, f = energy_forces(work, cell, frames, types, pot)
    f = f.reshape(len(atoms), 3, 2, len(pos), 3)
    return np.transpose(-(f[:, :, 0] - f[:, :, 1]) / (2 * DELTA), (2, 3, 0, 1))


def main() -> None:
    data, out = Path(sys.argv[1]), Path(sys.argv[2])
    pot = Path("SiCGe.tersoff").resolve()
    runs = Path("runs-a").resolve()
    cell, pos, types, _ = diamond_slab(1, 1, ["Si"] * 8, 5.43, [5.43 / 4] * 8)
    c, _, _ = relax(runs / "cubic-Si", cell, pos, types, pot, "iso")
    a_si = c[0, 0]
    cell, pos, types, _ = diamond_slab(1, 1, ["Ge"] * 8, a_si, [5.81 / 4] * 8)
    c, _, _ = relax(runs / "strained-Ge", cell, pos, types, pot, "z")
    c_ge = c[2, 2] / 2
    leads = {}
    for el, cz in (("Si", a_si), ("Ge", c_ge)):
        cell, pos, types, plane = diamond_slab(2, 2, [el] * 16, a_si, [cz / 4] * 16)
        pl0, pl1 = np.where(plane < 4)[0], np.where((plane >= 4) & (plane < 8))[0]
        phi = fc_columns(runs / f"lead-{el}", cell, pos, types, pot, pl0)
        onsite = phi[pl0].reshape(3 * len(pl0), -1)
        leads[el] = (0.5 * (onsite + onsite.T), phi[pl1].reshape(3 * len(pl1), -1).T, np.full(len(pl0), MASS[el]),
                     pos[pl0])  # fmt: skip
    cell, pos, types = read_data(data)
    c, p, energy = relax(runs / "superlattice", cell, pos, types, pot, "z")
    # (001) planes from the relaxed z coordinates (the stack starts above z = 0): 8 atoms per plane
    order = np.argsort(p[:, 2], kind="stable")
    plane = np.empty(len(p), int)
    plane[order] = np.arange(len(p)) // 8

    def grid(xy: np.ndarray) -> np.ndarray:
        """In-plane site index on the a/4 grid of the 2x2 cross-section (robust to relaxation and wrapping)."""
        return np.round(xy / (a_si / 4)).astype(int) % 8

    def pl(k):
        idx = np.where((plane >= 4 * k) & (plane < 4 * k + 4))[0]
        g = grid(p[idx, :2])
        return idx[np.lexsort((g[:, 1], g[:, 0], plane[idx]))]  # plane, then x site, then y site

    # list the lead atoms the same way (plane, x site, y site)
    for el in leads:
        ons, cpl, m, lp = leads[el]
        g = grid(lp[:, :2])
        k = np.lexsort((g[:, 1], g[:, 0], np.round(lp[:, 2] / (a_si / 8)).astype(int)))
        perm = (3 * k[:, None] + np.arange(3)).reshape(-1)
        leads[el] = (ons[np.ix_(perm, perm)], cpl[np.ix_(perm, perm)], m[k], lp[k])
    dev = np.concatenate([pl(k) for k in DEV_PL])
    phi = fc_columns(runs / "device", c, p, types, pot, dev)
    col = {a: i for i, a in enumerate(dev)}

    def blk(rk, ck):
        r, cc = pl(rk), [col[a] for a in pl(ck)]
        return phi[np.ix_(r, range(3), cc, range(3))].reshape(3 * len(r), 3 * len(cc))

    onsite = [0.5 * (blk(k, k) + blk(k, k).T) for k in DEV_PL]
    coupling = [blk(DEV_PL[0] - 1, DEV_PL[0])]
    coupling += [0.5 * (blk(k, k + 1) + blk(k + 1, k).T) for k in DEV_PL[:-1]]
    coupling.append(blk(DEV_PL[-1] + 1, DEV_PL[-1]).T)
    masses = [np.array([MASS["Si"] if types[a] == 1 else MASS["Ge"] for a in pl(k)]) for k in DEV_PL]
    with h5py.File(out, "w") as h5:
        h5.attrs["transverse_cell_angstrom"] = np.array([[2 * a_si, 0.0], [0.0, 2 * a_si]])
        for el, name in (("Si", "lead_Si"), ("Ge", "lead_Ge")):
            g = h5.create_group(name)
            ons, cpl, m, lp = leads[el]
            g["onsite"], g["coupling"], g["masses"], g["positions"] = ons, cpl, m, lp
            g.attrs["period_angstrom"] = a_si if el == "Si" else c_ge
        g = h5.create_group("device")
        g["onsite"], g["coupling"] = np.array(onsite), np.array(coupling)
        g["masses"], g["positions"] = np.array(masses), np.array([p[pl(k)] for k in DEV_PL])
        g.attrs["n_layers"] = len(onsite)
    json.dump({"a_Si_angstrom": round(a_si, 6), "c_Ge_strained_angstrom": round(c_ge, 6)}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
