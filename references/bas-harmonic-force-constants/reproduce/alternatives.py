"""Other routes through the staged forces, for the fairness record of bas-harmonic-force-constants.

Usage: alternatives.py WORKSPACE    (prints one answer fragment per route)
- wang-nac-mesh-20: Wang's non-analytic correction instead of Gonze-Lee, the gap on a 20^3 mesh;
- raw-born-charges: the ph.x charges without charge neutrality;
- natural-boron: phonopy's default masses (natural boron 10.811 u);
- x-reduced-as-cartesian: the wave vector (1, 0, 0) given to phonopy in reduced coordinates;
- gap-at-x: the optical-acoustic gap at X alone.
"""

import json
import sys
import warnings
from pathlib import Path

import numpy as np

warnings.simplefilter("ignore")
sys.path.insert(0, str(Path(__file__).parent))
import phonopy  # noqa: E402
from values import MASSES, NAC_FACTOR, THZ_TO_CM1, born, forces  # noqa: E402


def build(ws: Path, masses=MASSES, method=None, neutral=True):
    ph = phonopy.load(ws / "phonopy_disp.yaml", primitive_matrix="F", produce_fc=False, log_level=0)
    n = len(ph.supercell)
    for i, d in enumerate(ph.dataset["first_atoms"]):
        d["forces"] = forces(ws / f"disp-{i + 1:03d}" / "pw.out", n)
    ph.produce_force_constants()
    if masses is not None:
        ph.masses = masses
    eps, z = born((ws / "dfpt" / "ph.out").read_text())
    if not neutral:
        import re

        text = (ws / "dfpt" / "ph.out").read_text().split("Effective charges (d Force / dE) in cartesian axis")[-1]
        z = np.array(re.findall(r"E[xyz]\s+\(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)", text)[:6], dtype=float).reshape(2, 3, 3)
    nac = {"born": z, "dielectric": eps, "factor": NAC_FACTOR}
    if method:
        nac["method"] = method
    ph.nac_params = nac
    return ph


def freqs(ph, q_red, direction=None):
    ph.run_qpoints([q_red], nac_q_direction=direction)
    return np.sort(ph.get_qpoints_dict()["frequencies"][0]) * THZ_TO_CM1


def cart(ph, q):
    lat = ph.primitive.cell
    a = np.linalg.norm(lat[0]) * np.sqrt(2)
    return lat @ np.asarray(q, float) / a


def summary(ph, mesh=24):
    to = freqs(ph, cart(ph, [0, 0, 0]))
    lo = freqs(ph, cart(ph, [0, 0, 0]), [1, 0, 0])
    ph.run_mesh([mesh] * 3, is_gamma_center=True)
    m = ph.get_mesh_dict()["frequencies"] * THZ_TO_CM1
    return {
        "gamma_TO_cm1": round(float(to[3:].mean()), 3),
        "gamma_LO_cm1": round(float(lo[5]), 3),
        "X_cm1": [round(float(v), 3) for v in freqs(ph, cart(ph, [1, 0, 0]))],
        "L_cm1": [round(float(v), 3) for v in freqs(ph, cart(ph, [0.5, 0.5, 0.5]))],
        "acoustic_optical_gap_cm1": round(float(m[:, 3:].min() - m[:, :3].max()), 3),
        "gamma_TO_THz": round(float(to[3:].mean()) / THZ_TO_CM1, 4),
    }


def main() -> None:
    ws = Path(sys.argv[1])
    out = {}
    out["wang-nac-mesh-20"] = summary(build(ws, method="wang"), mesh=20)
    out["raw-born-charges"] = summary(build(ws, neutral=False))
    out["natural-boron"] = summary(build(ws, masses=None))
    ph = build(ws)
    out["x-reduced-as-cartesian"] = {"X_cm1": [round(float(v), 3) for v in freqs(ph, [1.0, 0.0, 0.0])]}
    x = freqs(ph, cart(ph, [1, 0, 0]))
    out["gap-at-x"] = {"acoustic_optical_gap_cm1": round(float(x[3] - x[2]), 3)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
