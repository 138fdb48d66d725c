"""Reference values of bas-born-charges-dielectric from the production ph.x run (runs/gamma/bas.dyn).

Independent of the oracle (which runs dynmat.x): the Gamma force constants of bas.dyn are read directly, the
acoustic sum rule is imposed on them (the self term of each atom set to minus the sum of its couplings) and on
the Born charges (the mean over the atoms subtracted), and the non-analytic term
    C_na[i a, j b] = (4 pi e^2 / Omega) (q.Z_i)_a (q.Z_j)_b / (q.eps.q),   e^2 = 2 in Rydberg units,
is added for q along [100] for the LO mode. Masses: 11B 11.0093, 10B 10.0129, As 74.9216 u. eps_0 from the
mode sum eps_inf + (4 pi / Omega) sum over the TO modes of |Z.e|^2 / (M omega^2), checked against
Lyddane-Sachs-Teller. Also collects the k-point series of eps_inf (runs/kconv/kconv.dat).

Usage: values.py OUTDIR   (writes OUTDIR/values.json)
"""

import json
import re
import sys
from pathlib import Path

import numpy as np

AMU_RY = 911.44424310865645  # 1 u in Rydberg mass units (QE's AMU_RY)
RY_TO_CM1 = 109737.31568160  # QE's RY_TO_CMM1
MASSES = {"11B": 11.0093, "10B": 10.0129}
M_AS = 74.9216


def read_dyn(text: str):
    lines = text.splitlines()
    head = lines[2].split()
    ntyp, nat = int(head[0]), int(head[1])
    celldm = float(head[3])
    start = lines.index(next(l for l in lines if "Dynamical  Matrix in cartesian axes" in l))
    body = lines[start + 4 :]
    phi = np.zeros((nat, nat, 3, 3))
    k = 0
    for _ in range(nat * nat):
        i, j = (int(x) for x in body[k].split())
        for a in range(3):
            vals = [float(x) for x in body[k + 1 + a].split()]
            phi[i - 1, j - 1, a] = vals[0::2]
        k += 4
    eps_start = next(n for n, l in enumerate(lines) if "Dielectric Tensor:" in l)
    eps = np.array([[float(x) for x in lines[eps_start + 2 + a].split()] for a in range(3)])
    z_start = next(n for n, l in enumerate(lines) if "Effective Charges E-U" in l)
    z = np.zeros((nat, 3, 3))
    for s in range(nat):
        first = z_start + 2 + 4 * s
        assert lines[first].split()[:2] == ["atom", "#"], lines[first]
        z[s] = [[float(x) for x in lines[first + 1 + a].split()] for a in range(3)]
    return celldm, phi, eps, z


def frequencies(phi: np.ndarray, masses: np.ndarray) -> np.ndarray:
    nat = len(masses)
    c = phi.transpose(0, 2, 1, 3).reshape(3 * nat, 3 * nat)
    c = 0.5 * (c + c.T)
    m = np.repeat(masses, 3) * AMU_RY
    w2 = np.linalg.eigvalsh(c / np.sqrt(np.outer(m, m)))
    return np.sign(w2) * np.sqrt(np.abs(w2)) * RY_TO_CM1


def analyse(celldm: float, phi: np.ndarray, eps: np.ndarray, z: np.ndarray, m_b: float) -> dict:
    nat = phi.shape[0]
    phi = phi.copy()
    for i in range(nat):  # acoustic sum rule on the force constants
        phi[i, i] -= phi[i].sum(axis=0)
    z = z - z.mean(axis=0)  # charge neutrality
    omega = celldm**3 / 4.0  # fcc primitive cell, bohr^3
    masses = np.array([m_b, M_AS])
    w_to = frequencies(phi, masses)
    q = np.array([1.0, 0.0, 0.0])
    qz = np.einsum("a,sab->sb", q, z)  # (q.Z_s)_b
    na = 4 * np.pi * 2.0 / omega * np.einsum("ia,jb->ijab", qz, qz) / (q @ eps @ q)
    w_lo = frequencies(phi + na, masses)
    to = float(np.mean(w_to[3:]))
    lo = float(w_lo[-1])
    # mode sum for eps_0 with the isotropic cubic charge: Z^2 / mu over the TO triplet
    mu = m_b * M_AS / (m_b + M_AS) * AMU_RY
    zxx = z[0, 0, 0]
    w_ry = to / RY_TO_CM1
    eps0_sum = float(eps[0, 0] + 4 * np.pi * 2.0 / omega * zxx**2 / (mu * w_ry**2))
    eps0_lst = float(eps[0, 0] * lo**2 / to**2)
    assert abs(eps0_sum - eps0_lst) < 1e-3 * eps0_lst, (eps0_sum, eps0_lst)
    return {"omega_TO_cm1": round(to, 3), "omega_LO_cm1": round(lo, 3), "eps_0": round(eps0_sum, 4)}


def main() -> None:
    out = Path(sys.argv[1])
    celldm, phi, eps, z = read_dyn((out / "runs" / "gamma" / "bas.dyn").read_text())
    zn = z - z.mean(axis=0)
    values = {
        "eps_inf": round(float(eps[0, 0]), 4),
        "Z_B": round(float(zn[0, 0, 0]), 4),
        "Z_As": round(float(zn[1, 0, 0]), 4),
        "Z_raw": [round(float(z[0, 0, 0]), 4), round(float(z[1, 0, 0]), 4)],
        "acoustic_raw_cm1": round(float(np.max(np.abs(frequencies(phi, np.array([MASSES["11B"], M_AS]))[:3]))), 3),
    }
    for iso, m in MASSES.items():
        r = analyse(celldm, phi, eps, z, m)
        values[iso] = r
    kconv = out / "runs" / "kconv" / "kconv.dat"
    if kconv.is_file():
        values["eps_inf_kconv"] = {l.split()[0]: float(l.split()[1]) for l in kconv.read_text().split("\n") if l.strip()}
    (out / "values.json").write_text(json.dumps(values, indent=2) + "\n")
    print(json.dumps(values, indent=2))


if __name__ == "__main__":
    main()
