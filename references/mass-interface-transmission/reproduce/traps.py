"""Values of the common errors quoted in the grader of mass-interface-transmission (tests and fairness cases).

Usage: traps.py INTERPLANAR_FC_JSON OUTDIR      writes OUTDIR/traps.json
Each variant changes one thing in the oracle's chain (solution/chain.py).
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solution"))
from agf import EV_A2_AMU, surface_green  # noqa: E402
from chain import Chain, conductance  # noqa: E402


def values(chain: Chain, scale: float = 1.0) -> dict[str, float]:
    return {k: chain.transmission(nu * 1e12 * scale) for k, nu in
            (("T_2THz", 2), ("T_5THz", 5), ("T_8THz", 8), ("T_9p5THz", 9.5))}  # fmt: skip


def four_plane_layers(doc: dict) -> dict:
    """The oracle's scattering solver with four-plane principal layers (device of 4 layers, leads of 4 planes)."""
    ch = Chain(doc)
    ext = list(range(-4, ch.n + 4))  # the oracle's chain padded with one more two-plane lead layer per side

    def lead_of(p):
        return doc["lead_Si"] if p < 0 else doc["lead_Ge"] if p >= ch.n else None

    idx = {p: k for k, p in enumerate(range(-8, ch.n + 8))}
    phi = np.zeros((len(idx), len(idx)))
    for p in idx:
        for d, key in ((1, "phi_1"), (2, "phi_2")):
            q = p + d
            if q in idx and lead_of(p) is not None and lead_of(p) is lead_of(q):
                phi[idx[p], idx[q]] = phi[idx[q], idx[p]] = lead_of(p)[key]
    for i, j, v in doc["couplings"]:
        phi[idx[i], idx[j]] = phi[idx[j], idx[i]] = v
    d = phi + np.diag(-phi.sum(axis=1))
    keep = [idx[p] for p in ext]
    masses = np.array([lead_of(p)["mass_amu"] if lead_of(p) else doc["device_masses_amu"][p] for p in ext])
    dyn = d[np.ix_(keep, keep)] / np.sqrt(np.outer(masses, masses)) * EV_A2_AMU

    def lead4(lead):
        f1, f2, m = lead["phi_1"], lead["phi_2"], lead["mass_amu"]
        f = np.zeros((8, 8))
        for i in range(8):
            f[i, i] = -2 * (f1 + f2)
            for dd, v in ((1, f1), (2, f2)):
                if i + dd < 8:
                    f[i, i + dd] = f[i + dd, i] = v
        f = f / m * EV_A2_AMU
        return f[:4, :4], f[:4, 4:]

    from agf import scatter  # noqa: PLC0415

    def t(nu_hz):
        b = [dyn[k : k + 4, k : k + 4] for k in range(0, len(ext), 4)]
        c = [dyn[k : k + 4, k + 4 : k + 8] for k in range(0, len(ext) - 4, 4)]
        for eta in (1e-9, 1e-10, 1e-11, 1e-12, 1e-13):
            s = scatter(2 * np.pi * nu_hz, lead4(doc["lead_Si"]), lead4(doc["lead_Ge"]), b[1:-1], c,
                        4 * doc["lead_Si"]["plane_spacing_angstrom"] * 1e-10,
                        4 * doc["lead_Ge"]["plane_spacing_angstrom"] * 1e-10, eta_rel=eta)  # fmt: skip
            if s.t.shape[1] == 0:
                return 0.0
            tt, rr = float(np.sum(np.abs(s.t) ** 2)), float(np.sum(np.abs(s.r) ** 2))
            if abs(tt + rr - 1) < 1e-8:
                return tt
        raise RuntimeError(nu_hz)

    res = {k: t(nu * 1e12) for k, nu in (("T_2THz", 2), ("T_5THz", 5), ("T_8THz", 8), ("T_9p5THz", 9.5))}
    res["T_10GHz"] = t(1e10)
    res["curve"] = [round(t(0.1e12 * (i + 1)), 8) for i in range(100)]
    return res


def main() -> None:
    doc = json.loads(Path(sys.argv[1]).read_text())
    out = Path(sys.argv[2]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    traps: dict[str, dict] = {}
    # 1. second-neighbour couplings dropped (what one-plane principal layers with nearest-neighbour blocks keep)
    nn = copy.deepcopy(doc)
    nn["couplings"] = [c for c in nn["couplings"] if c[1] - c[0] == 1]
    for lead in ("lead_Si", "lead_Ge"):
        nn[lead]["phi_2"] = 0.0
    traps["no_second_neighbours"] = values(Chain(nn))
    # 2. nu used where omega is needed (no 2 pi): the chain probed at nu / 2 pi
    traps["no_2pi"] = values(Chain(doc), 1 / (2 * np.pi))
    # 3. the bulk on-site constant of each material at every plane, also at the interface
    ch = Chain(doc)
    planes = ch.planes
    masses = np.array([doc["lead_Si"]["mass_amu"] if p < 0 else doc["lead_Ge"]["mass_amu"] if p >= ch.n else
                       doc["device_masses_amu"][p] for p in planes])  # fmt: skip
    phi = ch.dyn * np.sqrt(np.outer(masses, masses)) / EV_A2_AMU
    for k, p in enumerate(planes):
        lead = doc["lead_Si"] if (p < 8) else doc["lead_Ge"]
        phi[k, k] = -2 * (lead["phi_1"] + lead["phi_2"])
    ch.dyn = phi / np.sqrt(np.outer(masses, masses)) * EV_A2_AMU
    traps["bulk_onsite_at_interface"] = values(ch)
    # 4. a fixed broadening eta = 1e-4 of the largest omega^2
    ch = Chain(doc)

    def t_eta(nu_hz: float, eta: float) -> float:
        """Caroli transmission with a fixed broadening (decimated leads), as a finite-eta AGF would give it."""
        (h00l, h01l), (h00r, h01r) = ch.lead(ch.si), ch.lead(ch.ge)
        z = (2 * np.pi * nu_hz) ** 2 + 1j * eta * max(np.abs(h00l).max(), np.abs(h00r).max())
        d = ch.dyn[2:-2, 2:-2]  # the device planes; the end lead layers enter through the self-energies
        m = len(d)
        tl, tr_ = ch.dyn[2:4, 0:2], ch.dyn[-4:-2, -2:]  # device ends to the lead layers
        sl = np.zeros((m, m), complex)
        sr = np.zeros((m, m), complex)
        sl[:2, :2] = tl @ surface_green(z, h00l, h01l, "left") @ tl.T
        sr[-2:, -2:] = tr_ @ surface_green(z, h00r, h01r, "right") @ tr_.T
        g = np.linalg.inv(z * np.eye(m) - d - sl - sr)
        gl, gr = 1j * (sl - sl.conj().T), 1j * (sr - sr.conj().T)
        return float(np.real(np.trace(gl @ g @ gr @ g.conj().T)))

    traps["eta_1e-12_check"] = {"T_2THz": t_eta(2e12, 1e-12)}
    traps["eta_1e-3"] = {k: t_eta(nu * 1e12, 1e-3) for k, nu in (("T_2THz", 2), ("T_9p5THz", 9.5))}
    traps["eta_1e-3"]["T_10GHz"] = t_eta(1e10, 1e-3)
    # 5. conductances: classical limit and 2 pi slips
    ch = Chain(doc)
    nu_c = min(ch.band_top_hz(ch.si), ch.band_top_hz(ch.ge))
    s = np.linspace(0, 1, 2001)[1:]
    nus = nu_c * (1 - (1 - s) ** 2)
    tr = np.array([ch.transmission(nu) for nu in nus])
    nus, tr = np.concatenate([[0.0], nus]), np.concatenate([[ch.transmission(1e10)], tr])
    g50, g300 = conductance(50, nus, tr) * 1e12, conductance(300, nus, tr) * 1e12
    traps["conductance"] = {"G_50K": g50, "G_300K": g300, "G_50K_x2pi": 2 * np.pi * g50,
                            "G_300K_over_2pi": g300 / (2 * np.pi),
                            "classical": float(np.sum(0.5 * (tr[1:] + tr[:-1]) * np.diff(nus)) * 1.380649e-23 * 1e12)}  # fmt: skip
    # a valid alternative: four-plane principal layers (any layer of at least two planes is exact)
    traps["four_plane_layers"] = four_plane_layers(doc)
    (out / "traps.json").write_text(json.dumps(traps, indent=1) + "\n")
    print(json.dumps(traps, indent=1))


if __name__ == "__main__":
    main()
