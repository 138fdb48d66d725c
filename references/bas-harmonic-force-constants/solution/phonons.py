"""Harmonic phonons of 11BAs from FORCE_SETS + BORN (written here from dfpt/ph.out), phonopy API."""

import json
import re
import warnings
from pathlib import Path

import numpy as np

warnings.simplefilter("ignore")
import phonopy  # noqa: E402

THZ_TO_CM1 = 33.35641
MASSES = [11.0093, 74.9216]  # 11B, As


def born_from_ph_out(text: str) -> str:
    """phonopy's BORN text: 'default', eps_inf (9 numbers), Z* of B and As (9 numbers each, d Force / d E)."""
    eps_block = text.split("Dielectric constant in cartesian axis")[-1]
    eps = [float(x) for x in re.findall(r"\(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)", eps_block)[:3] for x in x]
    zblock = text.split("Effective charges (d Force / dE) in cartesian axis")[-1]
    rows = re.findall(r"E[xyz]\s+\(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)", zblock)[:6]
    z = [[float(v) for v in row] for row in rows]
    lines = ["default", " ".join(f"{v:.8f}" for v in eps)]
    for atom in range(2):
        lines.append(" ".join(f"{v:.8f}" for row in z[3 * atom : 3 * atom + 3] for v in row))
    return "\n".join(lines) + "\n"


def main() -> None:
    Path("BORN").write_text(born_from_ph_out(Path("dfpt/ph.out").read_text()))
    ph = phonopy.load(
        "phonopy_disp.yaml", primitive_matrix="F", force_sets_filename="FORCE_SETS", born_filename="BORN", is_nac=True
    )
    ph.masses = MASSES
    lat = ph.primitive.cell  # rows, bohr
    a = np.linalg.norm(lat[0]) * np.sqrt(2)  # fcc: |a_i| = a / sqrt(2)

    def reduced(cart_2pi_over_a):  # q_red_i = a_i . q / (2 pi), q = (2 pi / a) c
        return lat @ np.asarray(cart_2pi_over_a) / a

    def freqs(q, direction=None):
        ph.run_qpoints([reduced(q)], nac_q_direction=direction)
        return np.sort(ph.get_qpoints_dict()["frequencies"][0]) * THZ_TO_CM1

    gamma_to = freqs([0, 0, 0])
    gamma_lo = freqs([0, 0, 0], direction=[1, 0, 0])
    x = freqs([1, 0, 0])
    l_pt = freqs([0.5, 0.5, 0.5])
    ph.run_mesh([24, 24, 24], is_gamma_center=True)
    mesh = ph.get_mesh_dict()["frequencies"] * THZ_TO_CM1
    gap = mesh[:, 3:].min() - mesh[:, :3].max()
    answer = {
        "gamma_TO_cm1": round(float(gamma_to[3:].mean()), 3),
        "gamma_LO_cm1": round(float(gamma_lo[5]), 3),
        "X_cm1": [round(float(v), 3) for v in x],
        "L_cm1": [round(float(v), 3) for v in l_pt],
        "acoustic_optical_gap_cm1": round(float(gap), 3),
        "gamma_TO_THz": round(float(gamma_to[3:].mean()) / THZ_TO_CM1, 4),
    }
    Path("answer.json").write_text(json.dumps(answer, indent=2) + "\n")
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
