"""Reference values of bas-harmonic-force-constants from the two staged pw.x force outputs.

Independent of the oracle's file route: the forces are read here from pw.out directly (not with phonopy -f),
the drift removed, the Born charges taken from ph.out with charge neutrality imposed, and the phonopy API
(4.10) builds the force constants on the fcc primitive cell with the 11B mass and the Gonze-Lee non-analytic
correction. Usage: values.py WORKSPACE [OUT.json]
"""

import json
import re
import sys
import warnings
from pathlib import Path

import numpy as np

warnings.simplefilter("ignore")
import phonopy  # noqa: E402

THZ_TO_CM1 = 33.35641
MASSES = [11.0093, 74.9216]
NAC_FACTOR = 2.0  # e^2 in Rydberg atomic units, phonopy's nac_factor of its QE interface


def forces(path: Path, nat: int) -> np.ndarray:
    text = path.read_text()
    block = text.split("Forces acting on atoms (cartesian axes, Ry/au):")[-1]
    rows = re.findall(r"atom\s+\d+\s+type\s+\d+\s+force =\s+(\S+)\s+(\S+)\s+(\S+)", block)[:nat]
    f = np.array(rows, dtype=float)  # Ry/bohr: the units of phonopy's QE interface
    return f - f.mean(axis=0)


def born(text: str):
    eps_block = text.split("Dielectric constant in cartesian axis")[-1]
    eps = np.array(re.findall(r"\(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)", eps_block)[:3], dtype=float)
    zblock = text.split("Effective charges (d Force / dE) in cartesian axis")[-1]
    z = np.array(re.findall(r"E[xyz]\s+\(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)", zblock)[:6], dtype=float).reshape(2, 3, 3)
    return eps, z - z.mean(axis=0)


def analyse(ws: Path, masses=MASSES, nac=True, mesh=24) -> dict:
    ph = phonopy.load(ws / "phonopy_disp.yaml", primitive_matrix="F", produce_fc=False, log_level=0)
    n = len(ph.supercell)
    ph.dataset = {**ph.dataset}
    for i, d in enumerate(ph.dataset["first_atoms"]):
        d["forces"] = forces(ws / f"disp-{i + 1:03d}" / "pw.out", n)
    ph.produce_force_constants()
    ph.masses = masses
    if nac:
        eps, z = born((ws / "dfpt" / "ph.out").read_text())
        ph.nac_params = {"born": z, "dielectric": eps, "factor": NAC_FACTOR}
    lat = ph.primitive.cell
    a = np.linalg.norm(lat[0]) * np.sqrt(2)

    def freqs(q, direction=None):
        ph.run_qpoints([lat @ np.asarray(q, float) / a], nac_q_direction=direction)
        return np.sort(ph.get_qpoints_dict()["frequencies"][0]) * THZ_TO_CM1

    to = freqs([0, 0, 0])
    lo = freqs([0, 0, 0], [1, 0, 0])
    x = freqs([1, 0, 0])
    l_pt = freqs([0.5, 0.5, 0.5])
    ph.run_mesh([mesh] * 3, is_gamma_center=True)
    m = ph.get_mesh_dict()["frequencies"] * THZ_TO_CM1
    return {
        "gamma_TO_cm1": round(float(to[3:].mean()), 3),
        "gamma_LO_cm1": round(float(lo[5]), 3),
        "X_cm1": [round(float(v), 3) for v in x],
        "L_cm1": [round(float(v), 3) for v in l_pt],
        "acoustic_optical_gap_cm1": round(float(m[:, 3:].min() - m[:, :3].max()), 3),
        "gamma_TO_THz": round(float(to[3:].mean()) / THZ_TO_CM1, 4),
    }


def main() -> None:
    ws = Path(sys.argv[1])
    res = analyse(ws)
    text = json.dumps(res, indent=2) + "\n"
    if len(sys.argv) > 2:
        Path(sys.argv[2]).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
