"""Reference vacancy formation energy and volume of fcc Cu with the Foiles u3 EAM potential (LAMMPS).

For each supercell of n x n x n conventional cells (N = 4 n^3 sites), one LAMMPS run in its own directory:
the perfect crystal relaxed at zero pressure (box/relax iso), then one atom deleted and the defect cell
evaluated unrelaxed, relaxed at fixed cell, and relaxed at zero pressure (atoms and volume). With E(N), V(N) of
the perfect crystal and E(N-1), V(N-1) of the defect cell:

    E_f     = E(N-1) - (N-1)/N * E(N)
    Omega_f = [V(N-1) - (N-1)/N * V(N)] / (V(N)/N)     (formation volume in units of the atomic volume)

The same runs at a hydrostatic pressure P = 10 GPa (box/relax iso 1e5 bar for both cells) give the formation
enthalpy and the formation volume at that pressure, with H = E + P V of each cell:

    H_f(P)     = H(N-1) - (N-1)/N * H(N)
    Omega_f(P) = [V(N-1) - (N-1)/N * V(N)] / (V(N)/N)     (atomic volume of the perfect crystal at P)

The reference is the 4x4x4 cell (256 sites) that the prompt prescribes; the other sizes show convergence.
An independent code (ASE's own EAM implementation) recomputes the unrelaxed energy as a cross-check.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

LMP = shutil.which("lmp") or shutil.which("lmp_serial") or "lmp"
SIZES = (3, 4, 5)
REFERENCE_SIZE = 4
PRESSURES_BAR = (0.0, 1.0e5)  # zero pressure and 10 GPa
EV_PER_BAR_A3 = 1.0e5 * 1.0e-30 / 1.602176634e-19

SCRIPT = """units metal
atom_style atomic
boundary p p p
lattice fcc 3.615
region box block 0 {n} 0 {n} 0 {n}
create_box 1 box
create_atoms 1 box
pair_style eam
pair_coeff 1 1 {potential}
thermo_style custom step pe press vol
thermo_modify format float %.12g
min_modify line quadratic

# perfect crystal at the target pressure ({p} bar)
fix relax all box/relax iso {p} vmax 0.001
minimize 0 1e-12 10000 100000
unfix relax
minimize 0 1e-12 10000 100000
variable E0 equal $(pe:%.12f)
variable V0 equal $(vol:%.12f)
variable N0 equal $(atoms)
print "PERFECT pe ${{E0}} vol ${{V0}} natoms ${{N0}} press $(press:%.6f)"

# remove one atom; unrelaxed, fixed-cell relaxed, zero-pressure relaxed
group gone id 1
delete_atoms group gone compress no
run 0
print "UNRELAXED pe $(pe:%.12f) vol $(vol:%.12f) natoms $(atoms)"
minimize 0 1e-12 10000 100000
print "FIXEDCELL pe $(pe:%.12f) vol $(vol:%.12f) natoms $(atoms)"
fix relax all box/relax iso {p} vmax 0.001
minimize 0 1e-12 10000 100000
unfix relax
minimize 0 1e-12 10000 100000
fix relax all box/relax iso {p} vmax 0.001
minimize 0 1e-12 10000 100000
unfix relax
minimize 0 1e-12 10000 100000
print "ZEROP pe $(pe:%.12f) vol $(vol:%.12f) natoms $(atoms) press $(press:%.6f)"
"""


def run(workdir: Path, potential: Path, n: int, p: float = 0.0) -> dict[str, dict[str, float]]:
    """One LAMMPS run for an n x n x n supercell at pressure p (bar); returns the printed tagged lines."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "in.lmp").write_text(SCRIPT.format(n=n, potential=potential, p=p))
    subprocess.run([LMP, "-in", "in.lmp", "-log", "log.lammps", "-screen", "none"], cwd=workdir, check=True)
    out: dict[str, dict[str, float]] = {}
    for line in (workdir / "log.lammps").read_text().splitlines():
        tag, *rest = line.split() or [""]
        if tag in ("PERFECT", "UNRELAXED", "FIXEDCELL", "ZEROP") and not line.startswith("print"):
            out[tag] = {k: float(v) for k, v in zip(rest[::2], rest[1::2], strict=True)}
    return out


def formation(r: dict[str, dict[str, float]], tag: str, pressure: float = 0.0) -> tuple[float, float]:
    """(E_f, or H_f = E_f + P dV at pressure P in bar, in eV; Omega_f in atomic volumes) of one defect state."""
    p, d = r["PERFECT"], r[tag]
    n = p["natoms"]
    e_f = d["pe"] - (n - 1) / n * p["pe"] + pressure * EV_PER_BAR_A3 * (d["vol"] - (n - 1) / n * p["vol"])
    omega = (d["vol"] - (n - 1) / n * p["vol"]) / (p["vol"] / n)
    return e_f, omega


def ase_unrelaxed(potential: Path, n: int) -> float:
    """Unrelaxed E_f from ASE's EAM implementation (independent of LAMMPS)."""
    from ase.build import bulk
    from ase.calculators.eam import EAM

    calc = EAM(potential=str(potential))
    perfect = bulk("Cu", "fcc", a=3.615, cubic=True).repeat((n, n, n))
    perfect.calc = calc
    e_n = perfect.get_potential_energy()
    defect = perfect.copy()
    del defect[0]
    defect.calc = calc
    return float(defect.get_potential_energy() - (len(perfect) - 1) / len(perfect) * e_n)


def main() -> None:
    """Run every size, print the convergence table, write the reference values as JSON to stdout."""
    potential, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    results = {}
    for n in SIZES:
        t0 = time.perf_counter()
        r = run(out / "runs" / f"n{n}", potential, n)
        results[n] = r
        rows = {tag: formation(r, tag) for tag in ("UNRELAXED", "FIXEDCELL", "ZEROP")}
        print(
            f"{n}x{n}x{n} ({4 * n**3} sites, {time.perf_counter() - t0:.1f} s): "
            + "  ".join(f"{tag} Ef = {e:.5f} eV, Omega_f = {o:.4f}" for tag, (e, o) in rows.items()),
            file=sys.stderr,
        )
    at_p = {}
    for n in SIZES:
        r = run(out / "runs" / f"n{n}-10GPa", potential, n, PRESSURES_BAR[1])
        at_p[n] = r
        h_f, om = formation(r, "ZEROP", PRESSURES_BAR[1])
        e_only, _ = formation(r, "ZEROP")
        a_p = (4 * r["PERFECT"]["vol"] / r["PERFECT"]["natoms"]) ** (1 / 3)
        print(
            f"{n}x{n}x{n} at 10 GPa (a = {a_p:.5f} A, residual {r['ZEROP']['press']:.1f} bar): H_f = {h_f:.5f} eV, "
            f"Omega_f = {om:.4f}; E_f without P dV = {e_only:.5f} eV",
            file=sys.stderr,
        )
    ref = results[REFERENCE_SIZE]
    e_relaxed, omega = formation(ref, "ZEROP")
    h_p, omega_p = formation(at_p[REFERENCE_SIZE], "ZEROP", PRESSURES_BAR[1])
    omega0 = ref["PERFECT"]["vol"] / ref["PERFECT"]["natoms"]
    first_order = e_relaxed + PRESSURES_BAR[1] * EV_PER_BAR_A3 * omega * omega0
    print(f"first-order estimate E_f + P Omega_f(0) Omega0: {first_order:.5f} eV (vs {h_p:.5f})", file=sys.stderr)
    e_unrelaxed, _ = formation(ref, "UNRELAXED")
    try:
        print(
            f"ASE EAM cross-check, unrelaxed 4x4x4: {ase_unrelaxed(potential, REFERENCE_SIZE):.5f} eV", file=sys.stderr
        )
    except ImportError:
        print("ASE not available: cross-check skipped", file=sys.stderr)
    json.dump(
        {
            "Ef_vac_eV": round(e_relaxed, 5),
            "Ef_vac_unrelaxed_eV": round(e_unrelaxed, 5),
            "Omega_f_per_atomic_volume": round(omega, 4),
            "Hf_vac_10GPa_eV": round(h_p, 5),
            "Omega_f_10GPa_per_atomic_volume": round(omega_p, 4),
        },
        sys.stdout,
        indent=2,
    )
    print()


if __name__ == "__main__":
    main()
