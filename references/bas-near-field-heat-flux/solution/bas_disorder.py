"""Isotope-disordered BAs supercells from the staged phonopy force constants: Gamma modes, IR strengths, eps(omega).

The force constants of phonopy's 64-atom supercell are mapped, pair by pair over phonopy's shortest images, onto
an L x L x L supercell of the conventional cube (the Fourier interpolation at its commensurate wave vectors); the
boron sites get 10B or 11B masses at random with an exact composition; the Gamma-point dynamical matrix is
diagonalised and each mode projected on the Born-charge pattern Z*_k / sqrt(m_k) (the infrared oscillator
strength). Oracle of bas-natural-dielectric.
Usage (in the working folder): bas_disorder.py
"""

import re
import warnings
from pathlib import Path

import numpy as np
from scipy import sparse

warnings.simplefilter("ignore")
import phonopy  # noqa: E402

RY_J = 2.1798723611035e-18
BOHR_M = 0.529177210903e-10
AMU_KG = 1.66053906660e-27
E_C = 1.602176634e-19
EPS_VAC = 8.8541878128e-12
CM1_RAD_S = 2 * np.pi * 2.99792458e10  # 1 cm^-1 in rad/s
M10, M11, MAS = 10.0129, 11.0093, 74.9216


def forces(path, nat):
    block = Path(path).read_text().split("Forces acting on atoms (cartesian axes, Ry/au):")[-1]
    rows = re.findall(r"atom\s+\d+\s+type\s+\d+\s+force =\s+(\S+)\s+(\S+)\s+(\S+)", block)[:nat]
    f = np.array(rows, dtype=float)
    return f - f.mean(axis=0)


def dielectric(ph_out):
    text = Path(ph_out).read_text()
    eps = np.array(
        re.findall(
            r"\(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)",
            text.split("Dielectric constant in cartesian axis")[-1],
        )[:3],
        float,
    )
    zb = text.split("Effective charges (d Force / dE) in cartesian axis")[-1]
    z = np.array(re.findall(r"E[xyz]\s+\(\s*(\S+)\s+(\S+)\s+(\S+)\s*\)", zb)[:6], float).reshape(2, 3, 3)
    z = z - z.mean(axis=0)
    return float(eps[0, 0]), float(z[1, 0, 0])  # eps_inf, Z*(As) = -Z*(B)


def phonopy_fc(ws):
    ph = phonopy.load(
        Path(ws) / "phonopy_disp.yaml",
        primitive_matrix="F",
        produce_fc=False,
        log_level=0,
    )
    n = len(ph.supercell)
    ph.dataset = {**ph.dataset}
    for i, d in enumerate(ph.dataset["first_atoms"]):
        d["forces"] = forces(Path(ws) / f"disp-{i + 1:03d}" / "pw.out", n)
    ph.produce_force_constants()
    ph.symmetrize_force_constants()
    return ph


def big_fc(ph, L, dense=True):
    """Force constants (Ry/bohr^2) of an L x L x L supercell of the conventional cube, by mapping each pair
    (primitive atom, shortest image) of phonopy's supercell onto the big cell (Fourier interpolation at its
    commensurate wave vectors). Returns (fc[3N,3N], is_boron[N])."""
    sc = ph.supercell
    fc = ph.force_constants
    svecs, multi = ph.primitive.get_smallest_vectors()
    scell = ph.primitive.cell  # phonopy stores the shortest vectors in primitive-cell coordinates
    uc = ph.unitcell
    a = uc.cell[0, 0]
    # big cell atoms: conventional-cell atoms + translations
    frac = uc.scaled_positions
    nums = uc.numbers
    grid = np.array([(i, j, k) for i in range(L) for j in range(L) for k in range(L)])
    pos = (grid[:, None, :] + frac[None, :, :]).reshape(-1, 3) / L  # fractional of big cube
    typ = np.tile(nums, len(grid))
    n = len(pos)
    key = {tuple(np.round(p * 4 * L).astype(int) % (4 * L)): i for i, p in enumerate(pos)}
    p2s = ph.primitive.p2s_map
    pnum = sc.numbers[p2s]
    rows_i, cols_j, blocks = [], [], []
    for ip, s_i in enumerate(p2s):
        sites = np.where(typ == pnum[ip])[0]
        for j in range(len(sc)):
            cnt, start = multi[j, ip]
            vec = svecs[start : start + cnt] @ scell  # bohr
            for r in vec:
                tgt = np.round((pos[sites] + r / (a * L)) * 4 * L).astype(int) % (4 * L)
                rows_i.append(sites)
                cols_j.append(np.array([key[tuple(t)] for t in tgt]))
                blocks.append(np.broadcast_to(fc[s_i, j] / cnt, (len(sites), 3, 3)))
    ii = np.concatenate(rows_i)
    jj = np.concatenate(cols_j)
    bb = np.concatenate(blocks)
    r3 = (3 * ii[:, None, None] + np.arange(3)[None, :, None]).repeat(3, axis=2)
    c3 = (3 * jj[:, None, None] + np.arange(3)[None, None, :]).repeat(3, axis=1)
    big = sparse.coo_matrix((bb.ravel(), (r3.ravel(), c3.ravel())), shape=(3 * n, 3 * n)).tocsr()
    big = 0.5 * (big + big.T)
    return (big.toarray() if dense else big), typ == pnum[0]


def boron_masses(n_boron, x10, rng):
    """Random 10B/11B masses on the boron sites: each site 10B with probability x10."""
    return np.where(rng.random(n_boron) < x10, M10, M11)


def modes(fc, is_boron, m_boron, z_as):
    """Gamma modes of the supercell: frequencies (cm^-1) and oscillator strengths per unit eps (SI), averaged over
    the three field directions."""
    n = len(is_boron)
    m = np.full(n, MAS)
    m[is_boron] = m_boron
    m3 = np.repeat(m, 3)
    d = fc / np.sqrt(np.outer(m3, m3))
    w2, e = np.linalg.eigh(d)
    conv = RY_J / BOHR_M**2 / AMU_KG
    w = np.sqrt(np.clip(w2, 0, None) * conv)  # rad/s
    z = np.where(is_boron, -z_as, z_as)
    p2 = np.zeros(len(w2))
    for alpha in range(3):
        v = np.zeros((n, 3))
        v[:, alpha] = z / np.sqrt(m)
        p2 += (e.T @ v.ravel()) ** 2 / 3.0
    return w, p2 / AMU_KG  # p2 in e^2/kg units (charges in e)


def lattice_eps_resolvent(fc, is_boron, m_boron, z_as, volume_m3, omega_cm1, gamma_cm1, steps=800):
    """Lattice part of eps(omega) from the resolvent <w|(D - omega^2 - i gamma omega)^-1|w> by the Lanczos
    (continued-fraction) recursion, w the Born-charge pattern, averaged over the three field directions."""
    n = len(is_boron)
    m = np.full(n, MAS)
    m[is_boron] = m_boron
    inv = 1.0 / np.sqrt(np.repeat(m, 3))
    d = sparse.diags(inv) @ fc @ sparse.diags(inv)
    conv = RY_J / BOHR_M**2 / AMU_KG / CM1_RAD_S**2  # D in cm^-2
    zc = omega_cm1**2 + 1j * gamma_cm1 * omega_cm1
    zz = np.where(is_boron, -z_as, z_as)
    out = np.zeros(len(omega_cm1), complex)
    for alpha in range(3):
        v = np.zeros((n, 3))
        v[:, alpha] = zz / np.sqrt(m)
        v = v.ravel()
        norm2 = v @ v
        q_prev, q = np.zeros_like(v), v / np.sqrt(norm2)
        a, b = [], [0.0]
        for _ in range(steps):
            u = conv * (d @ q) - b[-1] * q_prev
            a.append(q @ u)
            u -= a[-1] * q
            b.append(np.sqrt(u @ u))
            q_prev, q = q, u / b[-1]
        g = np.zeros(len(zc), complex)
        for k in range(steps - 1, -1, -1):
            g = 1.0 / (a[k] - zc - (b[k + 1] ** 2 * g if k + 1 < steps else 0))
        out += norm2 * g / 3.0
    # eps_lat = e^2/(eps_vac V) sum p^2/(w^2 - z) with p^2 in 1/u and w in rad/s
    return out * E_C**2 / (EPS_VAC * volume_m3 * AMU_KG * CM1_RAD_S**2)


def exact_composition(n_boron, x10, rng):
    """Exactly round(x10 * n_boron) 10B atoms on randomly chosen boron sites, 11B on the rest."""
    m = np.full(n_boron, M11)
    m[rng.permutation(n_boron)[: round(x10 * n_boron)]] = M10
    return m


def ir_spectrum(ws, x10, size=4, seeds=(0, 1, 2, 3), gamma=2.0, ph=None, fc=None):
    """Mode-resolved infrared response of BAs with 10B fraction x10, averaged over configurations:
    the S-weighted mean and standard deviation of the TO frequencies (cm^-1), eps_0, and the peak of the
    configuration-averaged Im eps(omega) with the model damping gamma (cm^-1)."""
    ph = ph or phonopy_fc(ws)
    eps_inf, z = dielectric(Path(ws) / "dfpt" / "ph.out")
    if fc is None:
        fc = big_fc(ph, size)
    big, is_b = fc
    volume = (ph.unitcell.cell[0, 0] * size * BOHR_M) ** 3
    omega = np.arange(600.0, 800.0, 0.02)
    im = np.zeros_like(omega)
    means, sds, eps0 = [], [], []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        w, p2 = modes(big, is_b, exact_composition(int(is_b.sum()), x10, rng), z)
        keep = w > 100 * CM1_RAD_S  # drop the acoustic triplet at Gamma
        wc = w[keep] / CM1_RAD_S
        s = p2[keep] * E_C**2 / (EPS_VAC * volume * w[keep] ** 2)
        mean = (s * wc).sum() / s.sum()
        means.append(mean)
        sds.append(np.sqrt((s * (wc - mean) ** 2).sum() / s.sum()))
        eps0.append(eps_inf + s.sum())
        im += (
            s[:, None] * wc[:, None] ** 2 * gamma * omega / ((wc[:, None] ** 2 - omega**2) ** 2 + (gamma * omega) ** 2)
        ).sum(0)
    im /= len(seeds)
    k = np.argmax(im)
    half = np.where(im >= im[k] / 2)[0]
    return {
        "mean": float(np.mean(means)),
        "sd": float(np.mean(sds)),
        "eps0": float(np.mean(eps0)),
        "peak": float(omega[k]),
        "fwhm": float(omega[half[-1]] - omega[half[0]]),
        "spread_mean": float(np.std(means)),
        "spread_sd": float(np.std(sds)),
    }


GAMMA = 2.0  # cm^-1, the model intrinsic damping of the prompts


def natural(ws="."):
    """bas-natural-dielectric: natural boron (19.9 % 10B), a 4x4x4 supercell, four configurations."""
    r = ir_spectrum(ws, 0.199, size=4, seeds=(0, 1, 2, 3), gamma=GAMMA)
    return {
        "omega_TO_mean_cm1": round(r["mean"], 3),
        "sigma_TO_cm1": round(r["sd"], 3),
        "peak_Im_eps_cm1": round(r["peak"], 2),
        "eps_0": round(r["eps0"], 4),
    }


def main():
    import json

    answer = natural()
    Path("answer.json").write_text(json.dumps(answer, indent=2) + "\n")
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
