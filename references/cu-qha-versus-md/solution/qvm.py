"""Classical QHA against NPT MD for fcc Cu (Cu_u3.eam) at 100-500 K; prints answer.json.

QHA: seven lattice constants from -1.5% to +3% around the static equilibrium, static energies and CLASSICAL
harmonic free energies (phonopy classical=True: k_B T ln(hbar w / k_B T) per mode, no zero-point energy; 3x3x3
supercell, 20^3 mesh, LAMMPS forces), PhonopyQHA with a Vinet EOS. a = (4 V)^(1/3) from the volume per atom.
MD: the last (production) thermo block of each log only, a = (4 V / N)^(1/3) averaged over its rows. The
linear expansion coefficient is a third of PhonopyQHA's volumetric `thermal_expansion` at 300 K.
"""

from __future__ import annotations

import json
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import qha_lib as q
from phonopy import PhonopyQHA

TEMPS = [100.0, 200.0, 300.0, 400.0, 500.0]


def md_lattice_constant(path: Path) -> float:
    """Mean (4 V / N)^(1/3) over the last complete thermo block of one log."""
    text = path.read_text()
    natoms = int(re.search(r"^Created (\d+) atoms", text, re.M).group(1))
    lines = text.splitlines()
    start = [i for i, ln in enumerate(lines) if ln.split()[:1] == ["Step"]][-1]
    header = lines[start].split()
    rows = []
    for ln in lines[start + 1 :]:
        if ln.startswith("Loop time"):
            break
        rows.append([float(w) for w in ln.split()])
    else:
        raise SystemExit(f"{path.name}: the last thermo block is incomplete")
    vol = np.array(rows)[:, header.index("Volume")]
    return float(np.mean((4.0 * vol / natoms) ** (1.0 / 3.0)))


def main() -> None:
    """QHA on the grid, MD averages from the logs, answer.json on stdout."""
    warnings.simplefilter("ignore")
    potential = Path(sys.argv[1]).resolve()
    logdir = Path(sys.argv[2]).resolve()
    runs = Path("runs").resolve()
    a0 = q.relaxed_lattice_constant(potential, runs)
    lattice = a0 * (1 + q.STRAINS)
    energies, free, entropy, cv = [], [], [], []
    for i, a in enumerate(lattice):
        energies.append(q.energy_per_atom(a, potential, runs / f"v{i}" / "static"))
        f, s, c = q.vibrational(a, potential, runs / f"v{i}" / "phonons")
        free.append(f)
        entropy.append(s)
        cv.append(c)
    qha = PhonopyQHA(
        volumes=lattice**3 / 4,
        electronic_energies=energies,
        temperatures=q.TEMPERATURES,
        free_energy=np.array(free).T,
        cv=np.array(cv).T,
        entropy=np.array(entropy).T,
        t_max=800.0,
        eos="vinet",
        verbose=False,
    )
    index = [int(np.argmin(abs(q.TEMPERATURES - t))) for t in TEMPS]
    a_qha = [float((4 * qha.volume_temperature[k]) ** (1 / 3)) for k in index]
    a_md = [md_lattice_constant(logdir / f"npt_{int(t)}K.log") for t in TEMPS]
    print(f"static a0 = {a0:.6f} A; a_MD = {[round(x, 5) for x in a_md]}", file=sys.stderr)
    answer = {
        "a_QHA_classical_angstrom": [round(x, 5) for x in a_qha],
        "delta_a_angstrom": [round(m - a, 5) for m, a in zip(a_md, a_qha, strict=True)],
        "alpha_L_QHA_classical_300K_per_K": float(f"{qha.thermal_expansion[index[2]] / 3:.4e}"),
    }
    json.dump(answer, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
