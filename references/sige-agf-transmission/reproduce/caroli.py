"""Reference values of sige-agf-transmission by routes independent of the oracle's mode matching.

Usage: caroli.py SIGE_DEVICE_H5 OUTDIR      writes OUTDIR/values.json
Channel counts from the quadratic eigenvalue problem of each lead, (z - h00 - lam h01 - h10/lam) u = 0, linearised
and solved as a generalised eigenproblem (scipy.linalg.eig; no Green's function): propagating channels have
|lam| = 1 and their group velocity sign gives the direction. Xi by the Caroli formula Tr[Gamma_L G Gamma_R G^+]
with decimated lead self-energies, and the transmission eigenvalues as the eigenvalues of the Hermitian matrix
Gamma_L^1/2 G Gamma_R G^+ Gamma_L^1/2 (the n_Si largest; the rest vanish), at eta = 1e-10 of the largest block
entry.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import h5py
import numpy as np
import scipy.linalg as sla

EV_A2_AMU = 1.602176634e-19 / 1e-20 / 1.66053906660e-27
FREQUENCIES_THZ = [1.0, 2.0, 3.5, 5.0, 6.0, 7.25, 8.5, 10.25, 11.5]


def weighted(b, mr, mc):
    return b / np.sqrt(np.repeat(mr, 3)[:, None] * np.repeat(mc, 3)[None, :]) * EV_A2_AMU


def decimate(z, h00, h01, side):
    n = len(h00)
    a, b = (h01, h01.T) if side == "right" else (h01.T, h01)
    a, b = a.astype(complex), b.astype(complex)
    es = e = h00.astype(complex)
    for _ in range(300):
        g = np.linalg.inv(z * np.eye(n) - e)
        agb, bga = a @ g @ b, b @ g @ a
        es, e = es + agb, e + agb + bga
        a, b = a @ g @ a, b @ g @ b
        if max(np.abs(a).max(), np.abs(b).max()) < 1e-15 * np.abs(h00).max():
            return np.linalg.inv(z * np.eye(n) - es)
    raise RuntimeError("decimation did not converge")


def count(h00, h01, w, period, direction):
    """Propagating channels with group velocity of sign `direction` (quadratic eigenproblem, no broadening)."""
    n = len(h00)
    s = np.abs(h00).max()  # work in units of the largest entry: the generalised eigensolver needs O(1) numbers
    h00, h01, w2 = h00 / s, h01 / s, w**2 / s
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-h01.T, w2 * np.eye(n) - h00]])
    B = np.block([[np.eye(n), np.zeros((n, n))], [np.zeros((n, n)), h01]])
    lam, vec = sla.eig(A, B)
    finite = np.isfinite(lam)
    lam, vec = lam[finite], vec[:, finite]
    unit = np.abs(np.abs(lam) - 1) < 1e-6
    total = 0
    done = np.zeros(len(lam), bool)
    for i in np.where(unit)[0]:
        if done[i]:
            continue
        group = [j for j in np.where(unit)[0] if abs(lam[j] - lam[i]) < 1e-6 and not done[j]]
        done[group] = True
        V = sla.orth(vec[:n, group])
        li = lam[i] / abs(lam[i])
        M = 1j * V.conj().T @ (li * h01 - np.conj(li) * h01.T) @ V  # the velocity up to a positive factor
        v = np.linalg.eigvalsh(0.5 * (M + M.conj().T))
        total += int(np.sum(v * direction > 0))
    return total


def xi_values(path: Path, eta: float, frequencies: list[float] = FREQUENCIES_THZ) -> list[float]:
    """Caroli Xi at each frequency (THz; by default every one) with a given broadening (for the traps)."""
    return [r[2] for r in _run(path, eta, frequencies)]


def _run(path: Path, eta: float, frequencies: list[float] = FREQUENCIES_THZ) -> list[tuple]:
    with h5py.File(path) as h5:
        ms, mg, dm = h5["lead_Si/masses"][()], h5["lead_Ge/masses"][()], h5["device/masses"][()]
        L = (weighted(h5["lead_Si/onsite"][()], ms, ms), weighted(h5["lead_Si/coupling"][()], ms, ms))
        R = (weighted(h5["lead_Ge/onsite"][()], mg, mg), weighted(h5["lead_Ge/coupling"][()], mg, mg))
        nl = int(h5["device"].attrs["n_layers"])
        on = [weighted(h5["device/onsite"][k], dm[k], dm[k]) for k in range(nl)]
        masses = [ms, *dm, mg]
        cp = [weighted(h5["device/coupling"][k], masses[k], masses[k + 1]) for k in range(nl + 1)]
        pl, pr = (float(h5[x].attrs["period_angstrom"]) * 1e-10 for x in ("lead_Si", "lead_Ge"))
    # device block matrix including one lead layer on each side
    blocks = [L[0], *on, R[0]]
    size = [len(b) for b in blocks]
    off = np.concatenate([[0], np.cumsum(size)])
    dyn = np.zeros((off[-1], off[-1]))
    for k, b in enumerate(blocks):
        dyn[off[k] : off[k + 1], off[k] : off[k + 1]] = b
    for k, c in enumerate(cp):
        dyn[off[k] : off[k + 1], off[k + 1] : off[k + 2]] = c
        dyn[off[k + 1] : off[k + 2], off[k] : off[k + 1]] = c.T
    scale = max(np.abs(L[0]).max(), np.abs(R[0]).max())
    rows = []
    for nu in frequencies:
        w = 2 * np.pi * nu * 1e12
        z = w**2 + 1j * eta * scale
        n_si, n_ge = count(*L, w, pl, +1), count(*R, w, pr, +1)
        sl = np.zeros_like(dyn, dtype=complex)
        sr = np.zeros_like(dyn, dtype=complex)
        sl[: size[0], : size[0]] = L[1].T @ decimate(z, *L, "left") @ L[1]
        sr[off[-2] :, off[-2] :] = R[1] @ decimate(z, *R, "right") @ R[1].T
        g = np.linalg.inv(z * np.eye(len(dyn)) - dyn - sl - sr)
        gl, gr = 1j * (sl - sl.conj().T), 1j * (sr - sr.conj().T)
        xi = float(np.real(np.trace(gl @ g @ gr @ g.conj().T)))
        e, U = np.linalg.eigh(0.5 * (gl + gl.conj().T))
        half = U @ np.diag(np.sqrt(np.clip(e, 0, None))) @ U.conj().T
        m = half @ g @ gr @ g.conj().T @ half
        tau = np.sort(np.linalg.eigvalsh(0.5 * (m + m.conj().T)))[::-1][:n_si]
        rows.append((n_si, n_ge, xi, float(np.std(tau)), float(tau.sum())))
    return rows


def main() -> None:
    out = Path(sys.argv[2]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    rows = _run(Path(sys.argv[1]), 1e-10)
    values = {"n_Si": [r[0] for r in rows], "n_Ge": [r[1] for r in rows], "Xi": [r[2] for r in rows],
              "std_tau": [r[3] for r in rows]}
    for nu, r in zip(FREQUENCIES_THZ, rows):
        print(f"{nu:6.2f} THz  n_Si {r[0]:3d}  n_Ge {r[1]:3d}  Xi {r[2]:.6f}  sum tau {r[4]:.6f}  std {r[3]:.6f}")
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")


if __name__ == "__main__":
    main()
