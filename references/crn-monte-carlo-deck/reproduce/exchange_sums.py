"""Reference values of crn-monte-carlo-deck from the staged POSCAR: the cell lengths, and per Cr the exchange
VAMPIRE sums over each neighbour class (nearest / next-nearest shell, parallel / antiparallel in AFM-[110]2).

The neighbour classes are counted in the cell itself (every Cr must see the same counts), and each constant is
VAMPIRE's per-pair value: twice the TB2J-convention model constant of the prompt, in joules.
"""

from __future__ import annotations

import itertools
import json
import sys

import numpy as np

MEV = 1.602176487e-22
J_TB2J = {(0, True): 0.8, (0, False): -3.2, (1, True): 0.4, (1, False): -1.5}  # meV, the prompt's table
WINDOWS = [(2.85, 3.10), (4.10, 4.30)]
SPINS = [1, 1, -1, -1]
MOMENT_MUB = 2.47

lines = open(sys.argv[1]).read().splitlines()
cell = np.array([[float(x) for x in ln.split()[:3]] for ln in lines[2:5]]) * float(lines[1])
n_cr = int(lines[6].split()[0])
frac = np.array([[float(x) for x in ln.split()[:3]] for ln in lines[8 : 8 + n_cr]])
counts = set()
for i in range(n_cr):
    c = {key: 0 for key in J_TB2J}
    for j in range(n_cr):
        for image in itertools.product((-1, 0, 1), repeat=3):
            r = float(np.linalg.norm((frac[j] + image - frac[i]) @ cell))
            for shell, (lo, hi) in enumerate(WINDOWS):
                if lo <= r <= hi:
                    c[(shell, SPINS[i] == SPINS[j])] += 1
    counts.add(tuple(c[key] for key in sorted(J_TB2J, key=lambda k: (k[0], not k[1]))))
assert len(counts) == 1, f"the Cr see different neighbour classes: {counts}"
(n,) = counts
keys = sorted(J_TB2J, key=lambda k: (k[0], not k[1]))  # nn parallel, nn antiparallel, nnn parallel, nnn anti
sums = [k * 2 * J_TB2J[key] * MEV for k, key in zip(n, keys, strict=True)]
print(json.dumps({"neighbour_counts": list(n), "exchange_sums_J": sums,
                  "cr_cell_lengths_A": np.linalg.norm(cell, axis=1).tolist(), "cr_moment_muB": MOMENT_MUB}))
