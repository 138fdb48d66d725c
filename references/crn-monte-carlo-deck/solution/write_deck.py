"""Oracle for crn-monte-carlo-deck: a VAMPIRE deck (input, crn.mat, crn.ucf) for the classical Monte Carlo
temperature sweep of the model exchange of AFM-[110]2 CrN in the staged relaxed cell.

The unit cell holds the four Cr of POSCAR (N carries no moment); every Cr-Cr pair of the two graded shells is
listed from both ends, as VAMPIRE requires, with VAMPIRE's per-pair constant: TB2J counts every pair twice
(E = -sum_{i != j} J S.S), VAMPIRE once (E = -sum_{i<j} J S.S), so J_VAMPIRE = 2 J_TB2J, converted to joules.
Each spin sublattice is its own material so that its magnetisation can be followed through the transition.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

MEV = 1.602176487e-22  # J per meV, VAMPIRE's own constant
# Model exchange in TB2J's convention (meV), by shell and spin relation, as the prompt gives them
J_TB2J = {("nn", True): 0.8, ("nn", False): -3.2, ("nnn", True): 0.4, ("nnn", False): -1.5}
SHELLS = {"nn": (2.85, 3.10), "nnn": (4.10, 4.30)}  # the windows of the prompt's two shells, in angstrom
SPINS = [1, 1, -1, -1]  # the AFM-[110]2 order on the Cr of POSCAR, in file order

lines = Path("POSCAR").read_text().splitlines()
scale = float(lines[1])
cell = np.array([[float(x) for x in ln.split()[:3]] for ln in lines[2:5]]) * scale
assert np.allclose(cell, np.diag(np.diag(cell))), "VAMPIRE needs an orthogonal cell"
species, counts = lines[5].split(), [int(x) for x in lines[6].split()]
assert species[0] == "Cr" and lines[7].strip().lower().startswith("d"), (species, lines[7])
frac = np.array([[float(x) for x in ln.split()[:3]] for ln in lines[8 : 8 + counts[0]]])
size = np.diag(cell)

pairs = []
for i, j in itertools.product(range(len(frac)), repeat=2):
    for image in itertools.product((-1, 0, 1), repeat=3):
        r = float(np.linalg.norm((frac[j] + image - frac[i]) * size))
        shell = next((s for s, (lo, hi) in SHELLS.items() if lo <= r <= hi), None)
        if shell is not None:
            pairs.append((i, j, image, 2 * J_TB2J[(shell, SPINS[i] == SPINS[j])] * MEV))

ucf = ["# unit cell size (angstrom)", " ".join(f"{x:.6f}" for x in size), "# unit cell vectors",
       "1.0 0.0 0.0", "0.0 1.0 0.0", "0.0 0.0 1.0", "# atoms: id cx cy cz material lcat hcat", f"{len(frac)} 2"]
ucf += [f"{k} {x:.8f} {y:.8f} {z:.8f} {0 if SPINS[k] > 0 else 1} 0 0" for k, (x, y, z) in enumerate(frac % 1.0)]
ucf += ["# interactions: id i j dx dy dz Jij (J)", f"{len(pairs)} isotropic"]
ucf += [f"{n} {i} {j} {c[0]} {c[1]} {c[2]} {J:.6e}" for n, (i, j, c, J) in enumerate(pairs)]
Path("crn.ucf").write_text("\n".join(ucf) + "\n")

mat = ["material:num-materials = 2"]
for m, (name, direction) in enumerate((("Cr_up", "0,0,1"), ("Cr_down", "0,0,-1")), start=1):
    mat += [f"material[{m}]:material-name = {name}", f"material[{m}]:atomic-spin-moment = 2.47 !muB",
            f"material[{m}]:initial-spin-direction = {direction}", f"material[{m}]:damping-constant = 1.0",
            f"material[{m}]:unit-cell-category = {m}"]
Path("crn.mat").write_text("\n".join(mat) + "\n")

Path("input").write_text("""# VAMPIRE: Neel temperature of AFM-[110]2 CrN from the model exchange (classical Monte Carlo)
create:full
create:periodic-boundaries-x
create:periodic-boundaries-y
create:periodic-boundaries-z
material:file = crn.mat
material:unit-cell-file = crn.ucf
dimensions:system-size-x = 7.0 !nm
dimensions:system-size-y = 7.0 !nm
dimensions:system-size-z = 7.0 !nm
sim:program = curie-temperature
sim:integrator = monte-carlo
sim:minimum-temperature = 0.0
sim:maximum-temperature = 600.0
sim:temperature-increment = 5.0
sim:equilibration-time-steps = 10000
sim:loop-time-steps = 20000
output:temperature
output:material-magnetisation
output:mean-magnetisation-length
""")
print(f"wrote input, crn.mat and crn.ucf ({len(frac)} Cr, {len(pairs)} directed pairs)")
