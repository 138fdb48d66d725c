"""Reference values of sige-reflection-specularity by a route independent of the oracle's channel labels.

Usage: current.py SIGE_DEVICE_H5 OUTDIR      writes OUTDIR/values.json
For each incoming Si channel (the oracle's lead modes) the scattering state is solved in a device extended by two
Si-lead layers; the reflected wave on the two outermost layers is split into in-plane wave-vector sectors with
the projectors of the group of in-plane translations of the 2x2 cross-section (eight sectors), and the energy
flux of each sector is measured with the current operator, J = -Im(u_{n}^+ tau u_{n+1}), between those layers.
No reflected channel is expanded or labelled: the specular flux of an incoming channel is that of its own sector.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
from agf import surface_green  # noqa: E402
from specularity import FREQUENCIES_THZ, translation  # noqa: E402
from transmission import load, solve  # noqa: E402


def sector_projectors(ops: list[np.ndarray]) -> list[np.ndarray]:
    """Projectors onto the joint eigenspaces of the commuting unitary translations."""
    comb = ops[0] + np.sqrt(2.0) * ops[1]
    vals, vecs = np.linalg.eig(comb)
    keys = np.round(vals, 6)
    out = []
    for key in dict.fromkeys(map(complex, keys)):
        cols = vecs[:, np.isclose(keys, key)]
        q, _ = np.linalg.qr(cols)
        out.append(q @ q.conj().T)
    return out


def main() -> None:
    dev = load(Path(sys.argv[1]))
    out = Path(sys.argv[2]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    a = dev["cell"][0, 0] / 2
    ops = [translation(dev["positions_l"], dev["cell"], np.array(t)) for t in ([a / 2, a / 2], [a / 2, -a / 2])]
    proj = sector_projectors(ops)
    h00, h01 = dev["lead_l"]
    values = {"p_all": [], "n_0": [], "R_0": [], "p_0": []}
    for nu in FREQUENCIES_THZ:
        s, eta = solve(dev, nu, extra_l=ops)  # incoming channels and eta from the oracle's solver
        w = 2 * np.pi * nu * 1e12
        z = w**2 + 1j * eta * max(np.abs(h00).max(), np.abs(dev["lead_r"][0]).max())
        # device extended by two Si-lead layers: layers (-2, -1 | 0 ... | right lead layer)
        ons = [h00, h00, h00, *dev["onsite"], dev["lead_r"][0]]
        cps = [h01, h01, *dev["coupling"]]
        gl = surface_green(z, h00, h01, "left")
        gr = surface_green(z, *dev["lead_r"], "right")
        sig_l = h01.T @ gl @ h01
        sig_r = dev["lead_r"][1] @ gr @ dev["lead_r"][1].T
        ons[0] = ons[0] + sig_l
        ons[-1] = ons[-1] + sig_r
        sizes = [len(b) for b in ons]
        off = np.concatenate([[0], np.cumsum(sizes)])
        A = np.zeros((off[-1], off[-1]), complex)
        for k, b in enumerate(ons):
            A[off[k] : off[k + 1], off[k] : off[k + 1]] = z * np.eye(len(b)) - b
        for k, c in enumerate(cps):
            A[off[k] : off[k + 1], off[k + 1] : off[k + 2]] = -c
            A[off[k + 1] : off[k + 2], off[k] : off[k + 1]] = -c.T
        n = len(h00)
        spec_tot = refl_tot = 0.0
        normal = []
        for i in range(len(s.inc.lam)):
            u, lam = s.inc.vec[:, i], s.inc.lam[i]
            rhs = np.zeros(off[-1], complex)
            rhs[:n] = h01.T @ (u / lam) - sig_l @ u  # source of the incoming wave on the outermost layer (-2)
            psi = np.linalg.solve(A, rhs)
            # incoming wave on layers -2, -1: u, lam u; the rest of psi there is reflected
            r0 = psi[:n] - u
            r1 = psi[n : 2 * n] - lam * u
            j_in = -np.imag(u.conj() @ h01 @ (lam * u))
            j_sec = [np.imag((P @ r0).conj() @ h01 @ (P @ r1)) for P in proj]  # leftward flux: -(-Im)
            own = [k for k, P in enumerate(proj) if np.linalg.norm(P @ u - u) < 1e-6]
            assert len(own) == 1
            spec, refl = j_sec[own[0]] / j_in, sum(j_sec) / j_in
            spec_tot += spec
            refl_tot += refl
            if np.linalg.norm(ops[0] @ u - u) < 1e-6 and np.linalg.norm(ops[1] @ u - u) < 1e-6:
                normal.append((spec, refl))
        values["p_all"].append(spec_tot / refl_tot)
        values["n_0"].append(len(normal))
        values["R_0"].append(sum(r for _, r in normal) / len(normal))
        values["p_0"].append(sum(sp for sp, _ in normal) / sum(r for _, r in normal))
        print(f"{nu:6.2f} THz  p_all {values['p_all'][-1]:.6f}  n_0 {len(normal)}  R_0 {values['R_0'][-1]:.6f}"
              f"  p_0 {values['p_0'][-1]:.6f}")  # fmt: skip
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")


if __name__ == "__main__":
    main()
