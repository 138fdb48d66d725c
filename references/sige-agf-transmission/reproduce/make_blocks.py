"""Harmonic force-constant blocks of the Tersoff (1989) Si/Ge(001) interface for the transmission tasks.

Usage: make_blocks.py OUTDIR
Writes
  OUTDIR/sige_device.h5         principal-layer blocks of an intermixed interface, 2x2 conventional cells across
                                (sige-agf-transmission, sige-reflection-specularity)
  OUTDIR/interplanar_fc.json    interplanar longitudinal force constants of the abrupt interface
                                (mass-interface-transmission)
  OUTDIR/meta.json              lattice constants and relaxation data
Steps (LAMMPS, pair_style tersoff with SiCGe.tersoff, elements Si(D) and Ge):
 1. cubic Si (box/relax iso) and Ge strained to it in the (001) plane (box/relax z): the two leads;
 2. a 32 + 32 plane superlattice at the Si in-plane lattice, atoms and period relaxed (box/relax z); for the
    intermixed device, two of the eight atoms of the last Si plane and two of the first Ge plane are exchanged;
 3. force constants by central differences (0.0025 A; the Si-Ge bond is anharmonic enough that 0.01 A leaves
    an asymmetry of 1e-4 in its interplanar constant), symmetrised; lead blocks from the bulk cells, device blocks
    from the superlattice, principal layer = 4 (001) planes (one cubic cell along z).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import h5py
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lmp_tools import MASS, diamond_slab, energy_forces, relax  # noqa: E402

DELTA = 0.0025
N_PLANES = 32  # per material in the superlattice
DEV_PL = range(4, 12)  # device principal layers (planes 16..47); interface between PL 7 and PL 8
SWAP_SI, SWAP_GE = (1, 6), (2, 5)  # atoms (in build order) of the last Si / first Ge plane that are exchanged


def fc_columns(workdir: Path, cell, pos, types, pot: Path, atoms) -> np.ndarray:
    """Phi[i, a, j, b] = -dF_ia/du_jb for the displaced atoms j (central differences): (n, 3, len(atoms), 3)."""
    frames = []
    for j in atoms:
        for b in range(3):
            for s in (1, -1):
                p = pos.copy()
                p[j, b] += s * DELTA
                frames.append(p)
    _, f = energy_forces(workdir, cell, frames, types, pot)
    f = f.reshape(len(atoms), 3, 2, len(pos), 3)
    return np.transpose(-(f[:, :, 0] - f[:, :, 1]) / (2 * DELTA), (2, 3, 0, 1))


def lattices(pot: Path, runs: Path) -> tuple[float, float]:
    cell, pos, types, _ = diamond_slab(1, 1, ["Si"] * 8, 5.43, [5.43 / 4] * 8)
    c, _, _ = relax(runs / "cubic-Si", cell, pos, types, pot, "iso")
    a_si = c[0, 0]
    cell, pos, types, _ = diamond_slab(1, 1, ["Ge"] * 8, a_si, [5.81 / 4] * 8)
    c, _, _ = relax(runs / "strained-Ge", cell, pos, types, pot, "z")
    return a_si, c[2, 2] / 2


def lead_blocks(pot: Path, runs: Path, el: str, a_si: float, c: float, n: int):
    """onsite, coupling (PL0 -> PL1 along +z), masses, positions of one principal layer of bulk `el`."""
    cell, pos, types, plane = diamond_slab(n, n, [el] * 16, a_si, [c / 4] * 16)
    pl0 = np.where(plane < 4)[0]
    pl1 = np.where((plane >= 4) & (plane < 8))[0]
    phi = fc_columns(runs / f"lead-{el}-{n}", cell, pos, types, pot, pl0)
    onsite = phi[pl0].reshape(3 * len(pl0), 3 * len(pl0))
    coupling = phi[pl1].reshape(3 * len(pl1), 3 * len(pl0)).T  # rows PL0, columns PL1
    return 0.5 * (onsite + onsite.T), coupling, np.full(len(pl0), MASS[el]), pos[pl0]


def superlattice(pot: Path, runs: Path, a_si: float, c_ge: float, n: int, mixed: bool):
    species = ["Si"] * N_PLANES + ["Ge"] * N_PLANES
    cell, pos, types, plane = diamond_slab(n, n, species, a_si, [a_si / 4] * N_PLANES + [c_ge / 4] * N_PLANES)
    if mixed:
        last_si, first_ge = np.where(plane == N_PLANES - 1)[0], np.where(plane == N_PLANES)[0]
        types[last_si[list(SWAP_SI)]] = 2
        types[first_ge[list(SWAP_GE)]] = 1
    tag = f"{'mixed' if mixed else 'abrupt'}-{n}"
    c, p, e = relax(runs / f"superlattice-{tag}", cell, pos, types, pot, "z")
    return c, p, types, plane, e


def device_blocks(pot: Path, runs: Path, c, p, types, plane, tag: str):
    def pl(k):
        return np.where((plane >= 4 * k) & (plane < 4 * k + 4))[0]

    dev = np.concatenate([pl(k) for k in DEV_PL])
    phi = fc_columns(runs / f"device-{tag}", c, p, types, pot, dev)
    col = {a: i for i, a in enumerate(dev)}

    def blk(rk, ck):  # rows: atoms of PL rk; columns: displaced atoms of PL ck
        r, cc = pl(rk), [col[a] for a in pl(ck)]
        return phi[np.ix_(r, range(3), cc, range(3))].reshape(3 * len(r), 3 * len(cc))

    onsite = [0.5 * (blk(k, k) + blk(k, k).T) for k in DEV_PL]
    first, last = DEV_PL[0], DEV_PL[-1]
    coupling = [blk(first - 1, first)]
    coupling += [0.5 * (blk(k, k + 1) + blk(k + 1, k).T) for k in DEV_PL[:-1]]
    coupling.append(blk(last + 1, last).T)
    masses = [np.array([MASS["Si"] if types[a] == 1 else MASS["Ge"] for a in pl(k)]) for k in DEV_PL]
    positions = [p[pl(k)] for k in DEV_PL]
    return onsite, coupling, masses, positions, phi, dev


def main() -> None:
    out = Path(sys.argv[1]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    pot = Path(__file__).resolve().parent / "SiCGe.tersoff"
    if not pot.is_file():
        pot = Path("/usr/share/lammps/potentials/SiCGe.tersoff")
    runs = out / "runs"
    a_si, c_ge = lattices(pot, runs)
    meta = {"a_Si": a_si, "c_Ge_strained": c_ge, "delta": DELTA}

    # --- intermixed device, 2x2 conventional cells across
    n = 2
    leads = {el: lead_blocks(pot, runs, el, a_si, c, n) for el, c in (("Si", a_si), ("Ge", c_ge))}
    c, p, types, plane, e = superlattice(pot, runs, a_si, c_ge, n, mixed=True)
    onsite, coupling, masses, positions, _, _ = device_blocks(pot, runs, c, p, types, plane, "mixed-2")
    meta["mixed_superlattice_energy_eV"] = e
    meta["mixed_superlattice_Lz"] = c[2, 2]
    with h5py.File(out / "sige_device.h5", "w", track_order=True) as h5:
        h5.attrs["description"] = (
            "Harmonic force constants of an intermixed Si/Ge(001) interface (Tersoff 1989 potential, LAMMPS): "
            "a semi-infinite Si lead, 8 device principal layers, a semi-infinite Ge lead (Ge strained coherently "
            "to the Si lattice in the (001) plane). Each principal layer is 4 (001) atomic planes, 32 atoms."
        )
        h5.attrs["force_constant_unit"] = "eV/Angstrom^2"
        h5.attrs["mass_unit"] = "amu"
        h5.attrs["length_unit"] = "Angstrom"
        h5.attrs["ordering"] = "atom-major: row/column 3*i + alpha, alpha = x, y, z, atoms as in 'positions'"
        h5.attrs["direction"] = (
            "+z runs from the Si lead to the Ge lead; a coupling block has the layer nearer Si as rows and the "
            "next layer along +z as columns: F_i = -sum_j Phi_ij u_j"
        )
        h5.attrs["transverse_cell_angstrom"] = np.array([[2 * a_si, 0.0], [0.0, 2 * a_si]])
        for el, name in (("Si", "lead_Si"), ("Ge", "lead_Ge")):
            g = h5.create_group(name)
            ons, cpl, m, pos = leads[el]
            for key, arr in (("onsite", ons), ("coupling", cpl), ("masses", m), ("positions", pos)):
                g.create_dataset(key, data=arr, compression="gzip", shuffle=True)
            g.attrs["period_angstrom"] = a_si if el == "Si" else c_ge
        g = h5.create_group("device")
        for key, arr in (("onsite", onsite), ("coupling", coupling), ("masses", masses), ("positions", positions)):
            g.create_dataset(key, data=np.array(arr), compression="gzip", shuffle=True)
        g.attrs["n_layers"] = len(onsite)
        g.attrs["coupling_order"] = (
            "coupling[0]: Si-lead layer -> device layer 0; coupling[k]: device layer k-1 -> k; "
            "coupling[n_layers]: device layer n_layers-1 -> Ge-lead layer"
        )

    # --- abrupt interface, 1x1 cell: interplanar longitudinal constants per atom
    c, p, types, plane, e = superlattice(pot, runs, a_si, c_ge, 1, mixed=False)
    _, _, _, _, phi, dev = device_blocks(pot, runs, c, p, types, plane, "abrupt-1")
    col = {a: i for i, a in enumerate(dev)}

    def kzz(nn, mm):
        rows = np.where(plane == nn)[0]
        cols = [col[a] for a in np.where(plane == mm)[0]]
        return phi[rows, 2][:, cols, 2].sum() / len(rows)

    lo, hi = N_PLANES - 8, N_PLANES + 8  # device planes: 8 Si + 8 Ge
    couplings = []
    for i in range(lo - 2, hi + 2):
        for j in range(i + 1, min(i + 3, hi + 2)):
            if i < lo and j < lo or i >= hi and j >= hi:
                continue  # lead-lead pairs: bulk values below
            couplings.append([i - lo, j - lo, round(0.5 * (kzz(i, j) + kzz(j, i)), 6)])
    zs = np.array([p[plane == k, 2].mean() for k in range(2 * N_PLANES)])
    bulk = {}
    for el, k0 in (("Si", 18), ("Ge", 43)):  # bulk-like planes inside the displaced region
        bulk[el] = {"mass_amu": MASS[el], "phi_1": round(0.5 * (kzz(k0, k0 + 1) + kzz(k0 + 1, k0)), 6),
                    "phi_2": round(0.5 * (kzz(k0, k0 + 2) + kzz(k0 + 2, k0)), 6),
                    "plane_spacing_angstrom": round(float(zs[k0 + 1] - zs[k0]), 6)}  # fmt: skip
    description = (
        "Longitudinal interplanar force constants of the abrupt Si/Ge(001) interface (Tersoff 1989 potential, "
        "relaxed coherent superlattice, LAMMPS). Planes 0-7 are Si, planes 8-15 Ge; planes < 0 belong to the "
        "semi-infinite Si lead and planes >= 16 to the semi-infinite Ge lead. phi(i, j) is the zz force "
        "constant between plane i and plane j per atom of a plane (the sum over the atoms of plane j of "
        "Phi_zz(atom of plane i, atom of plane j)); every plane has the same number of atoms per area."
    )
    note = (
        "each entry is [i, j, phi(i, j)] for i < j; the couplings of lead planes among themselves are the lead "
        "values phi_1 (|i - j| = 1) and phi_2 (|i - j| = 2); no plane couples beyond its second neighbours"
    )
    lines = ["{", f' "description": {json.dumps(description)},',
             ' "units": ' + json.dumps({"phi": "eV/Angstrom^2", "mass": "amu", "length": "Angstrom"}) + ",",
             f' "lead_Si": {json.dumps(bulk["Si"])},', f' "lead_Ge": {json.dumps(bulk["Ge"])},',
             f' "device_masses_amu": {json.dumps([MASS["Si"]] * 8 + [MASS["Ge"]] * 8)},',
             f' "couplings_note": {json.dumps(note)},', ' "couplings": [',
             "  " + ",\n  ".join(json.dumps(c) for c in couplings), " ]", "}"]  # fmt: skip
    (out / "interplanar_fc.json").write_text("\n".join(lines) + "\n")
    meta["abrupt_plane_z"] = [round(float(z), 6) for z in zs[lo - 2 : hi + 2]]
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    main()
