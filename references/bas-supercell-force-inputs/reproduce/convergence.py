"""Cutoff and k-point convergence of the LDA total energy of BAs; the supercell's sampling unfolded.

The Gamma point (or an n x n x n mesh) of the 64-atom cubic supercell samples the primitive cell's Brillouin
zone at the supercell's reciprocal-lattice vectors folded back: running the primitive cell on exactly those
k points gives the perfect supercell's energy per atom without a 64-atom calculation.
"""

import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

OUT = Path(sys.argv[1])
CELLDM = 8.924240  # a = 4.7225 A in bohr
PRIM = np.array([[-1, 0, 1], [0, 1, 1], [-1, 1, 0]]) * 0.5  # ibrav = 2 vectors, units of a
SUPER = np.array([[-2, 2, 2], [2, -2, 2], [2, 2, -2]])  # supercell matrix on PRIM (64 atoms)


def pw(name: str, ecut: float, kcard: str) -> float:
    text = f"""&control
  calculation = 'scf'
  prefix = '{name}'
  outdir = './tmp'
  pseudo_dir = '../pseudo'
/
&system
  ibrav = 2
  celldm(1) = {CELLDM}
  nat = 2
  ntyp = 2
  ecutwfc = {ecut}
/
&electrons
  conv_thr = 1.0d-10
/
ATOMIC_SPECIES
B  11.0093 B.pz-vbc.UPF
As 74.9216 As.pz-bhs.UPF
ATOMIC_POSITIONS crystal
B  0.00 0.00 0.00
As 0.25 0.25 0.25
{kcard}"""
    run = OUT / "runs"
    (run / f"{name}.in").write_text(text)
    with open(run / f"{name}.out", "w") as fh:
        subprocess.run(["pw.x", "-in", f"{name}.in"], cwd=run, stdout=fh, stderr=subprocess.DEVNULL, check=True)
    m = re.search(r"^!\s+total energy\s+=\s+(\S+) Ry", (run / f"{name}.out").read_text(), re.M)
    assert m, name
    subprocess.run(["rm", "-rf", str(run / "tmp")], check=True)
    return float(m.group(1))


def unfolded(n: int, shift: int) -> np.ndarray:
    """Primitive-cell k points (2pi/a, Cartesian) equivalent to an n x n x n mesh of the supercell."""
    b_sc = np.linalg.inv(SUPER @ PRIM).T
    b_p = np.linalg.inv(PRIM).T
    pts = set()
    for ijk in itertools.product(range(n), repeat=3):
        k = (np.array(ijk) + 0.5 * shift) / n @ b_sc
        for g in itertools.product(range(-4, 5), repeat=3):
            f = (k + np.array(g) @ b_sc) @ np.linalg.inv(b_p)
            pts.add(tuple(np.round(f - np.floor(f + 1e-9), 8)))
    return np.array(sorted(pts)) @ b_p


def main() -> None:
    cuts = [40, 50, 55, 58, 60, 65, 70, 80, 100, 120]
    e_cut = {c: pw(f"ecut{c}", c, "K_POINTS automatic\n6 6 6 1 1 1\n") for c in cuts}
    ref = e_cut[120]
    lines = [f"{c} {e:.8f} {(e - ref) / 2 * 1000:.3f}" for c, e in e_cut.items()]
    (OUT / "ecut.dat").write_text("# ecutwfc_Ry E_Ry_per_cell dE_mRy_per_atom (vs 120 Ry)\n" + "\n".join(lines) + "\n")
    meshes = [(n, s) for n in (2, 3, 4, 6) for s in (0, 1)] + [(8, 1)]
    e_k = {(n, s): pw(f"k{n}{s}", 70, f"K_POINTS automatic\n{n} {n} {n} {s} {s} {s}\n") for n, s in meshes}
    kref = e_k[(8, 1)]
    lines = [f"{n} {s} {e:.8f} {(e - kref) / 2 * 1000:.3f}" for (n, s), e in e_k.items()]
    (OUT / "kmesh.dat").write_text("# n shift E_Ry dE_mRy_per_atom (vs 8x8x8 shifted), 70 Ry\n" + "\n".join(lines) + "\n")
    sc = {}
    for label, n, s in (("gamma", 1, 0), ("2x2x2-shifted", 2, 1), ("2x2x2-unshifted", 2, 0)):
        ks = unfolded(n, s)
        card = f"K_POINTS tpiba\n{len(ks)}\n" + "".join(f"{k[0]:.10f} {k[1]:.10f} {k[2]:.10f} 1.0\n" for k in ks)
        e = pw(f"sc-{label}", 70, card)
        sc[label] = {"k_points": len(ks), "E_Ry": e, "dE_mRy_per_atom": round((e - kref) / 2 * 1000, 3)}
    (OUT / "supercell.dat").write_text(json.dumps(sc, indent=2) + "\n")
    ok = [c for c in cuts if abs(e_cut[c] - ref) / 2 * 1000 <= 1.0]
    values = {"ecutwfc_min_ry": min(ok), "supercell_sampling": sc}
    (OUT / "values.json").write_text(json.dumps(values, indent=2) + "\n")
    print(json.dumps(values, indent=2))


if __name__ == "__main__":
    main()
