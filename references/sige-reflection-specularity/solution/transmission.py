"""Mode-resolved phonon transmission through the intermixed Si/Ge(001) interface of sige_device.h5 (AGF).

Blocks are mass-weighted and converted to (rad/s)^2; at each frequency the retarded problem is solved at
z = omega^2 + i eta with omega = 2 pi nu. Lead surface Green's functions by decimation give the Bloch matrices
of the leads, whose unit-modulus eigenvalues are the propagating channels; the scattering state of each incoming
Si channel is solved in the device, and the reflected and transmitted waves are expanded in the lead channels and
normalised by their energy fluxes (group velocity / layer period). eta is lowered until transmission plus
reflection is one within 1e-6 for every incoming channel.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import h5py
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agf import EV_A2_AMU, scatter  # noqa: E402

FREQUENCIES_THZ = [1.0, 2.0, 3.5, 5.0, 6.0, 7.25, 8.5, 10.25, 11.5]


def weighted(block: np.ndarray, m_rows: np.ndarray, m_cols: np.ndarray) -> np.ndarray:
    """Phi / sqrt(m_i m_j) in s^-2 from eV/A^2 and amu."""
    return block / np.sqrt(np.repeat(m_rows, 3)[:, None] * np.repeat(m_cols, 3)[None, :]) * EV_A2_AMU


def load(path: Path) -> dict:
    with h5py.File(path) as h5:
        ms, mg = h5["lead_Si/masses"][()], h5["lead_Ge/masses"][()]
        dm = h5["device/masses"][()]
        n = int(h5["device"].attrs["n_layers"])
        masses = [ms, *dm, mg]
        return {
            "lead_l": (weighted(h5["lead_Si/onsite"][()], ms, ms), weighted(h5["lead_Si/coupling"][()], ms, ms)),
            "lead_r": (weighted(h5["lead_Ge/onsite"][()], mg, mg), weighted(h5["lead_Ge/coupling"][()], mg, mg)),
            "onsite": [weighted(h5["device/onsite"][k], dm[k], dm[k]) for k in range(n)],
            "coupling": [weighted(h5["device/coupling"][k], masses[k], masses[k + 1]) for k in range(n + 1)],
            "period_l": float(h5["lead_Si"].attrs["period_angstrom"]) * 1e-10,
            "period_r": float(h5["lead_Ge"].attrs["period_angstrom"]) * 1e-10,
            "positions_l": h5["lead_Si/positions"][()],
            "cell": h5.attrs["transverse_cell_angstrom"][()],
        }


def solve(dev: dict, nu_thz: float, extra_l: list | None = None):
    """Scattering at nu, eta lowered until T + R = 1 within 1e-6 for every incoming channel."""
    for eta in (1e-7, 1e-8, 1e-9, 1e-10, 1e-11):
        s = scatter(2 * np.pi * nu_thz * 1e12, dev["lead_l"], dev["lead_r"], dev["onsite"], dev["coupling"],
                    dev["period_l"], dev["period_r"], eta_rel=eta, extra_l=extra_l)  # fmt: skip
        total = np.sum(np.abs(s.t) ** 2, axis=1) + np.sum(np.abs(s.r) ** 2, axis=1)
        if len(total) == 0 or np.max(np.abs(total - 1)) < 1e-6:
            return s, eta
    raise RuntimeError(f"{nu_thz} THz: flux not conserved to 1e-6 (max error {np.max(np.abs(total - 1)):.2e})")


def main() -> None:
    dev = load(Path(sys.argv[1] if len(sys.argv) > 1 else "sige_device.h5"))
    out: dict[str, list] = {"frequencies_THz": [], "n_Si": [], "n_Ge": [], "Xi": [], "std_tau": []}
    for nu in FREQUENCIES_THZ:
        s, eta = solve(dev, nu)
        tau = np.linalg.eigvalsh(s.t @ s.t.conj().T) if s.t.shape[1] else np.zeros(s.t.shape[0])
        out["frequencies_THz"].append(nu)
        out["n_Si"].append(int(s.t.shape[0]))
        out["n_Ge"].append(int(s.t.shape[1]))
        out["Xi"].append(round(float(np.sum(np.abs(s.t) ** 2)), 6))
        out["std_tau"].append(round(float(np.std(tau)), 6))
        print(f"{nu:6.2f} THz  eta {eta:.0e}  n_Si {s.t.shape[0]:3d}  n_Ge {s.t.shape[1]:3d}  Xi {out['Xi'][-1]:.6f}"
              f"  std(tau) {out['std_tau'][-1]:.6f}", file=sys.stderr)  # fmt: skip
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
