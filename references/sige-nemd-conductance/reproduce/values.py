"""Reference values of sige-nemd-conductance from the staged NEMD outputs (log.lammps, temp_profile.dat).

Usage: values.py WORKSPACE [OUT.json]     (WORKSPACE holds in.nemd, sige.data, log.lammps, temp_profile.dat)

The reference route, counted here on its own:
- heat current: least-squares slopes of the two Langevin tallies (f_thot, f_tcold: the cumulative energy each
  thermostat removed from its atoms, eV) against time over the production run; the current is the mean of
  -slope(hot) and +slope(cold); the heat leaves the hot slab both ways along z, so the flux through one
  cross-section is that current over 2 A, A = Lx Ly the cell's cross-section;
- temperature drop: the plane temperatures averaged over all production blocks; a straight line through the Si
  planes and one through the Ge planes of each half of the cell, between the thermostat slabs, leaving out the
  slabs and EXCL planes next to each slab, each line extrapolated to the interface plane (half way between the
  last Si and the first Ge plane); dT = T_Si - T_Ge there, at both interfaces;
- G = J / dT with dT the mean drop of the two equivalent interfaces;
- standard error (reported, not graded): a jackknife over the production blocks, leaving out one block at a
  time from the block means of the flux (each block's tally slopes) and of the mean drop (each block's profile).
  The block conductances themselves are heavy-tailed (a block's drop is noisy, sometimes near zero), so their
  mean and plain standard error are recorded only as the trap they are.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

EV_J = 1.602176634e-19
PS = 1e-12
A2_M2 = 1e-20
NSI, NGE, PER_PLANE = 40, 40, 8
HOT, COLD = range(18, 22), range(58, 62)  # plane indices of the thermostat slabs
EXCL = 4  # planes left out next to each thermostat slab in the fits (one conventional cell)


def thermo_runs(log: str) -> list[dict[str, np.ndarray]]:
    """The thermo table of every run of a LAMMPS log, column name -> values."""
    runs: list[dict[str, np.ndarray]] = []
    header: list[str] | None = None
    rows: list[list[float]] = []
    for line in log.splitlines():
        words = line.split()
        if words[:1] == ["Step"]:
            header, rows = words, []
        elif header is not None and line.startswith("Loop time"):
            runs.append(dict(zip(header, np.array(rows).T, strict=True)))
            header = None
        elif header is not None and len(words) == len(header):
            try:
                rows.append([float(w) for w in words])
            except ValueError:
                continue
    return runs


def production(ws: Path) -> dict[str, np.ndarray]:
    """The last run of log.lammps: the production, with the tallies f_thot and f_tcold (eV) against Time (ps)."""
    return thermo_runs((ws / "log.lammps").read_text())[-1]


def profile_blocks(ws: Path) -> tuple[np.ndarray, np.ndarray]:
    """Timesteps of the blocks and the plane temperatures, shape (blocks, planes), from temp_profile.dat."""
    steps, temps, cur = [], [], []
    for line in (ws / "temp_profile.dat").read_text().splitlines():
        if line.startswith("#"):
            continue
        w = line.split()
        if len(w) == 3 and not line.startswith(" "):
            if cur:
                temps.append(cur)
            steps.append(int(w[0]))
            cur = []
        else:
            cur.append(float(w[2]))
    temps.append(cur)
    return np.array(steps), np.array(temps)


def geometry(ws: Path) -> tuple[float, float, float, np.ndarray]:
    """Lx, Ly, Lz (A) and the plane heights (A): the mean z of each plane's eight atoms in sige.data."""
    lines = (ws / "sige.data").read_text().splitlines()
    box = {w.split()[-1]: float(w.split()[1]) for w in lines if w.endswith(("xhi", "yhi", "zhi"))}
    start = lines.index("Atoms # atomic") + 2
    atoms = np.array([[float(x) for x in ln.split()] for ln in lines[start:] if ln.strip()])
    atoms = atoms[np.argsort(atoms[:, 0])]
    z = atoms[:, 4].reshape(-1, PER_PLANE).mean(axis=1)
    return box["xhi"], box["yhi"], box["zhi"], z


def slope(t: np.ndarray, e: np.ndarray) -> float:
    return float(np.polyfit(t, e, 1)[0])


def heat_current_eV_per_ps(run: dict[str, np.ndarray], which: str = "both") -> float:
    """Heat the hot slab puts in (= the cold slab takes out) per ps, from the slopes of the tallies."""
    hot, cold = -slope(run["Time"], run["f_thot"]), slope(run["Time"], run["f_tcold"])
    return {"hot": hot, "cold": cold, "both": 0.5 * (hot + cold)}[which]


def flux_W_per_m2(current_eV_ps: float, area_A2: float, ways: int = 2) -> float:
    return current_eV_ps * EV_J / PS / (ways * area_A2 * A2_M2)


def segments(excl: int = EXCL, skip_interface: int = 0) -> list[tuple[list[int], list[int], float]]:
    """For each interface: the Si planes, the Ge planes fitted, and which plane pair it lies between.

    Interface 1 lies between Si plane 39 and Ge plane 40 (heat along +z), interface 2 between Ge plane 79 and
    Si plane 0 + the period (heat along -z, through the periodic boundary).
    """
    si1 = list(range(HOT[-1] + 1 + excl, NSI - skip_interface))
    ge1 = list(range(NSI + skip_interface, COLD[0] - excl))
    si2 = list(range(skip_interface, HOT[0] - excl))
    ge2 = list(range(COLD[-1] + 1 + excl, NSI + NGE - skip_interface))
    return [(si1, ge1, 1), (si2, ge2, 2)]


def unwrapped(z: np.ndarray, lz: float) -> np.ndarray:
    """Heights with the Si planes of the lower half moved up by one period, so interface 2 lies between them."""
    out = z.copy()
    out[: HOT[0]] += lz
    return out


def interface_drops(temps: np.ndarray, z: np.ndarray, lz: float, excl: int = EXCL, skip_interface: int = 0,
                    deg: int = 1) -> list[float]:  # fmt: skip
    """T_Si - T_Ge at each interface plane from fits of the Si and Ge planes extrapolated to it."""
    zz = unwrapped(z, lz)
    drops = []
    for si, ge, k in segments(excl, skip_interface):
        if k == 1:
            z_int = 0.5 * (zz[NSI - 1] + zz[NSI])
        else:
            z_int = 0.5 * (zz[NSI + NGE - 1] + zz[0])
        t_si = np.polyval(np.polyfit(zz[si], temps[si], deg), z_int)
        t_ge = np.polyval(np.polyfit(zz[ge], temps[ge], deg), z_int)
        drops.append(float(t_si - t_ge))
    return drops


def block_series(ws: Path, excl: int = EXCL, which: str = "both") -> tuple[np.ndarray, np.ndarray]:
    """Flux (W/m^2, from each block's tally slopes) and mean drop of the two interfaces (K) of every block."""
    run = production(ws)
    lx, ly, lz, z = geometry(ws)
    steps, temps = profile_blocks(ws)
    edges = np.r_[0, steps]
    flux, drop = [], []
    for b in range(len(steps)):
        sel = (run["Step"] >= edges[b]) & (run["Step"] <= edges[b + 1])
        flux.append(flux_W_per_m2(heat_current_eV_per_ps({k: v[sel] for k, v in run.items()}, which), lx * ly))
        drop.append(float(np.mean(interface_drops(temps[b], z, lz, excl))))
    return np.array(flux), np.array(drop)


def block_conductances(ws: Path, excl: int = EXCL, which: str = "both") -> np.ndarray:
    """G (GW/m^2/K) of each block on its own: its flux over its mean drop (heavy-tailed: a block's drop is noisy)."""
    flux, drop = block_series(ws, excl, which)
    return flux / drop / 1e9


def jackknife_stderr(flux: np.ndarray, drop: np.ndarray) -> float:
    """Standard error of G = <J>/<dT> (GW/m^2/K) by leaving out one block at a time."""
    n = len(flux)
    loo = np.array([np.delete(flux, i).mean() / np.delete(drop, i).mean() for i in range(n)]) / 1e9
    return float(np.sqrt((n - 1) / n * ((loo - loo.mean()) ** 2).sum()))


def stderr(g_blocks: np.ndarray) -> float:
    """The naive standard error of block conductances, std(ddof=1)/sqrt(n)."""
    return float(g_blocks.std(ddof=1) / np.sqrt(len(g_blocks)))


def values(ws: Path) -> dict[str, float]:
    run = production(ws)
    lx, ly, lz, z = geometry(ws)
    _, temps = profile_blocks(ws)
    j = flux_W_per_m2(heat_current_eV_per_ps(run), lx * ly)
    drops = interface_drops(temps.mean(axis=0), z, lz)
    flux_b, drop_b = block_series(ws)
    g_blocks = flux_b / drop_b / 1e9
    return {
        "heat_flux_W_per_m2": j,
        "delta_T_K": float(np.mean(drops)),
        "G_GW_per_m2_K": float(j / np.mean(drops) / 1e9),
        "G_stderr_GW_per_m2_K": jackknife_stderr(flux_b, drop_b),
        "G_naive_block_stderr_GW_per_m2_K": stderr(g_blocks),
        "delta_T_interface1_K": drops[0],
        "delta_T_interface2_K": drops[1],
        "G_block_mean_GW_per_m2_K": float(g_blocks.mean()),
        "n_blocks": len(g_blocks),
    }


def main() -> None:
    ws = Path(sys.argv[1])
    v = values(ws)
    text = json.dumps(v, indent=2) + "\n"
    if len(sys.argv) > 2:
        Path(sys.argv[2]).write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
