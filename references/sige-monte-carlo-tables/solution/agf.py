"""Mode-resolved atomistic Green's functions for a lead | device | lead chain of principal layers.

Conventions: mass-weighted dynamical blocks in (rad/s)^2; for layer n the equation of motion is
    omega^2 u_n = H_{n,n} u_n + H_{n,n+1} u_{n+1} + H_{n,n-1} u_{n-1},   H_{n,n-1} = H_{n-1,n}^T.
Leads: onsite h00 and coupling h01 (layer n to n+1, along +x). The retarded problem is solved at
z = omega^2 + i eta. Bloch matrices come from the lead surface Green's functions (Lopez Sancho decimation):
    right-going, F(+) = g_right h10   (u_{n+1} = F(+) u_n),
    left-going, F(-)^-1 = g_left h01  (u_{n-1} = F(-)^-1 u_n).
The scattering state for an incoming right-going Bloch mode of the left lead is found by solving the
block-tridiagonal system of the device plus one lead layer on each side with the self-energies
Sigma_L = h10_L F_L(-)^-1, Sigma_R = h01_R F_R(+); the reflected and transmitted waves are expanded in the
eigenvectors of the Bloch matrices, the propagating parts normalised by the group velocities.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

EV_A2_AMU = 1.602176634e-19 / 1e-20 / 1.66053906660e-27  # eV/A^2/amu -> s^-2


def surface_green(z: complex, h00: np.ndarray, h01: np.ndarray, side: str, tol: float = 1e-14) -> np.ndarray:
    """Surface Green's function of a semi-infinite lead extending to the right ('right') or the left ('left')."""
    n = len(h00)
    eye = np.eye(n)
    if side == "right":
        a, b = h01.astype(complex), h01.T.conj().astype(complex)  # a couples to the bulk side
    else:
        a, b = h01.T.conj().astype(complex), h01.astype(complex)
    eps_s = h00.astype(complex)
    eps = h00.astype(complex)
    for _ in range(200):
        g = np.linalg.inv(z * eye - eps)
        agb = a @ g @ b
        bga = b @ g @ a
        eps_s = eps_s + agb
        eps = eps + agb + bga
        a = a @ g @ a
        b = b @ g @ b
        if np.abs(a).max() < tol * np.abs(h00).max() and np.abs(b).max() < tol * np.abs(h00).max():
            break
    else:
        raise RuntimeError("decimation did not converge")
    return np.linalg.inv(z * eye - eps_s)


@dataclass
class Modes:
    lam: np.ndarray  # Bloch factors of the propagating modes
    vel: np.ndarray  # group velocities (m/s if period in m)
    vec: np.ndarray  # unit eigenvectors (columns)
    coef: np.ndarray  # rows: projector giving each propagating mode's coefficient from a layer vector


def _cluster(lam: np.ndarray, tol: float) -> list[list[int]]:
    groups: list[list[int]] = []
    for i in range(len(lam)):
        for g in groups:
            if abs(lam[g[0]] - lam[i]) < tol:
                g.append(i)
                break
        else:
            groups.append([i])
    return groups


def bloch_modes(F: np.ndarray, h01: np.ndarray, omega: float, period: float, direction: int,
                prop_tol: float = 1e-4, extra: list[np.ndarray] | None = None) -> Modes:  # fmt: skip
    """Propagating modes of a Bloch matrix F (eigenvalues lam of unit modulus), velocity-diagonal basis.

    direction +1: F = F(+) (u_{n+1} = F u_n); -1: F = F(-)^-1 (u_{n-1} = F u_n), lam returned as the forward factor.
    `extra` are operators commuting with the lead (transverse translations) to diagonalise within degenerate sets.
    """
    mu, U = np.linalg.eig(F)
    Uinv = np.linalg.inv(U)
    prop = np.where(np.abs(np.abs(mu) - 1) < prop_tol)[0]
    lam = mu[prop] if direction > 0 else 1 / mu[prop]
    vec = U[:, prop]
    coef = Uinv[prop, :]
    out_lam, out_vel, out_vec, out_coef = [], [], [], []
    for group in _cluster(lam, 1e-5):
        # orthonormalise the degenerate subspace; the projector rows transform with the inverse
        V = vec[:, group]
        C = coef[group, :]
        Q, R = np.linalg.qr(V)
        C = R @ C  # so that Q @ (R C) = V C
        V = Q
        l0 = lam[group].mean()
        # velocity operator within the subspace: v = (i a / 2 omega) u^dag (lam h01 - lam^* h10) u
        M = (1j * period / (2 * omega)) * V.conj().T @ (l0 * h01 - np.conj(l0) * h01.conj().T) @ V
        M = 0.5 * (M + M.conj().T)
        ops = [M]
        for op in extra or []:
            ops.append(V.conj().T @ op @ V)
        # joint diagonalisation: a random real combination of the commuting Hermitian parts
        rng = np.random.default_rng(7)
        comb = sum(w * (o + o.conj().T) / 2 + w2 * (o - o.conj().T) / 2j
                   for o, w, w2 in zip(ops, rng.normal(size=len(ops)), rng.normal(size=len(ops))))  # fmt: skip
        _, W = np.linalg.eigh(comb)
        V = V @ W
        C = W.conj().T @ C
        for k in range(len(group)):
            u = V[:, k]
            v = float(np.real((1j * period / (2 * omega)) * u.conj() @ (l0 * h01 - np.conj(l0) * h01.conj().T) @ u))
            out_lam.append(l0)
            out_vel.append(v)
            out_vec.append(u)
            out_coef.append(C[k])
    return Modes(np.array(out_lam), np.array(out_vel), np.array(out_vec).T.reshape(len(F), -1),
                 np.array(out_coef).reshape(-1, len(F)))  # fmt: skip


@dataclass
class Scattering:
    t: np.ndarray  # rows: incoming left channels, columns: outgoing right channels
    r: np.ndarray  # rows: incoming left channels, columns: outgoing (reflected) left channels
    inc: Modes
    refl: Modes
    trans: Modes


def scatter(omega: float, lead_l: tuple, lead_r: tuple, dev_on: list[np.ndarray], dev_cpl: list[np.ndarray],
            period_l: float, period_r: float, eta_rel: float = 1e-8, extra_l: list | None = None,
            extra_r: list | None = None) -> Scattering:  # fmt: skip
    """S-matrix blocks t and r at angular frequency omega (rad/s).

    lead_l = (h00, h01) of the left lead, lead_r of the right lead; dev_on = onsite blocks of the N device layers;
    dev_cpl = N+1 couplings: [left lead layer -> device 1, device 1 -> 2, ..., device N -> right lead layer].
    """
    h00l, h01l = lead_l
    h00r, h01r = lead_r
    scale = max(np.abs(h00l).max(), np.abs(h00r).max())
    z = omega**2 + 1j * eta_rel * scale
    # Bloch matrices
    gl_left = surface_green(z, h00l, h01l, "left")  # left lead, semi-infinite to the left
    gl_right = surface_green(z, h00l, h01l, "right")  # left lead's bulk seen from the left (for incoming modes)
    gr_right = surface_green(z, h00r, h01r, "right")
    Fl_minus_inv = gl_left @ h01l  # u_{n-1} = F u_n
    Fl_plus = gl_right @ h01l.conj().T
    Fr_plus = gr_right @ h01r.conj().T
    inc = bloch_modes(Fl_plus, h01l, omega, period_l, +1, extra=extra_l)
    keep = inc.vel > 0
    inc = Modes(inc.lam[keep], inc.vel[keep], inc.vec[:, keep], inc.coef[keep])
    refl = bloch_modes(Fl_minus_inv, h01l, omega, period_l, -1, extra=extra_l)
    keep = refl.vel < 0
    refl = Modes(refl.lam[keep], refl.vel[keep], refl.vec[:, keep], refl.coef[keep])
    trans = bloch_modes(Fr_plus, h01r, omega, period_r, +1, extra=extra_r)
    keep = trans.vel > 0
    trans = Modes(trans.lam[keep], trans.vel[keep], trans.vec[:, keep], trans.coef[keep])
    sigma_l = h01l.conj().T @ Fl_minus_inv
    sigma_r = h01r @ Fr_plus
    # block system: layers 0 (left lead), 1..N (device), N+1 (right lead)
    ons = [h00l + sigma_l, *dev_on, h00r + sigma_r]
    sizes = [len(b) for b in ons]
    offs = np.concatenate([[0], np.cumsum(sizes)])
    ntot = offs[-1]
    A = np.zeros((ntot, ntot), complex)
    for k, b in enumerate(ons):
        A[offs[k] : offs[k + 1], offs[k] : offs[k + 1]] = z * np.eye(len(b)) - b
    for k, c in enumerate(dev_cpl):
        A[offs[k] : offs[k + 1], offs[k + 1] : offs[k + 2]] = -c
        A[offs[k + 1] : offs[k + 2], offs[k] : offs[k + 1]] = -c.conj().T
    rhs = np.zeros((ntot, len(inc.lam)), complex)
    h10l = h01l.conj().T
    for i in range(len(inc.lam)):
        u = inc.vec[:, i]
        rhs[: sizes[0], i] = h10l @ (u / inc.lam[i]) - sigma_l @ u
    sol = np.linalg.solve(A, rhs)
    u0 = sol[: sizes[0]]
    uN1 = sol[offs[-2] :]
    refl_wave = u0 - inc.vec
    c = refl.coef @ refl_wave  # (n_refl, n_inc)
    d = trans.coef @ uN1
    # flux of a unit-normalised layer amplitude: velocity / period (energy per layer times layers per second)
    fl_in, fl_r, fl_t = inc.vel / period_l, np.abs(refl.vel) / period_l, trans.vel / period_r
    r = (c * np.sqrt(fl_r)[:, None] / np.sqrt(fl_in)[None, :]).T
    t = (d * np.sqrt(fl_t)[:, None] / np.sqrt(fl_in)[None, :]).T
    return Scattering(t, r, inc, refl, trans)
