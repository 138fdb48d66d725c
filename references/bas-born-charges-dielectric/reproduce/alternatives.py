"""Answers of other routes through the staged bas.dyn, for the fairness record of bas-born-charges-dielectric.

- no-sum-rules: the raw force constants and Born charges (no acoustic sum rule, no charge neutrality);
- natural-boron-as-10B: the "10B" quantities computed with the natural boron weight 10.811 u;
Each prints an answer.json fragment. Usage: alternatives.py BAS_DYN
"""

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from values import AMU_RY, M_AS, RY_TO_CM1, analyse, frequencies, read_dyn  # noqa: E402


def raw(celldm, phi, eps, z, m_b):
    """As analyse(), without the sum rules."""
    omega = celldm**3 / 4.0
    masses = np.array([m_b, M_AS])
    w_to = frequencies(phi, masses)
    q = np.array([1.0, 0.0, 0.0])
    qz = np.einsum("a,sab->sb", q, z)
    na = 4 * np.pi * 2.0 / omega * np.einsum("ia,jb->ijab", qz, qz) / (q @ eps @ q)
    w_lo = frequencies(phi + na, masses)
    to, lo = float(np.mean(w_to[3:])), float(w_lo[-1])
    return {"omega_TO_cm1": round(to, 3), "omega_LO_cm1": round(lo, 3), "eps_0": round(float(eps[0, 0] * lo**2 / to**2), 4)}


def main() -> None:
    celldm, phi, eps, z = read_dyn(Path(sys.argv[1]).read_text())
    out = {
        "no-sum-rules": {
            "Z_B": round(float(z[0, 0, 0]), 4),
            "Z_As": round(float(z[1, 0, 0]), 4),
            "11B": raw(celldm, phi, eps, z, 11.0093),
            "10B": raw(celldm, phi, eps, z, 10.0129),
        },
        "natural-boron-as-10B": {"10B": analyse(celldm, phi, eps, z, 10.811)},
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
