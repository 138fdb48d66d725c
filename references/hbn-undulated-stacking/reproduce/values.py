"""Reference values of hbn-undulated-stacking: the sliding part of the potential step along a rippled BA bilayer.

The staged table is the vacuum-level step of the flat bilayer at the seven stackings of the precomputed sliding
path, counted by hbn-sliding-potential-step's own values.py (the macroscopic average over the middle fifth of each
vacuum gap) from the staged average.x files of that path, to 0.001 meV. The ripple model is the prompt's:

  h(x) = A sin(2 pi x / L), layers d apart along the normal, lengths kept, BA registry at the crests and troughs;
  the top layer slides by u(x) = d theta(x) relative to the bottom one, theta ~ h'(x) to first order in the slope;
  the local stacking lam(x) = 2 + u(x) / (a / sqrt 3) and the local step dV(lam(x)).

dV(lam) is the three-term sine series sum_n b_n sin(2 pi n lam / 3) (period 3, odd about AA and SP) fitted by least
squares to the seven staged points; x is sampled at N points over one wavelength (endpoint excluded).

Usage: python3 values.py OUTDIR     writes OUTDIR/workspace/sliding_step.csv (from the staged path of
                                    hbn-sliding-potential-step) and OUTDIR/values.json
       python3 values.py --table CSV OUTDIR   the reference values from a given table instead
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
STEP_REPRODUCE = ROOT / "references" / "hbn-sliding-potential-step" / "reproduce"
STEP_PATH = ROOT / "tasks" / "hbn-sliding-ferroelectricity" / "hbn-sliding-potential-step" / "workspace" / "path"

A_LAT = 2.504  # in-plane lattice constant of the path (A)
BOND = A_LAT / np.sqrt(3)  # one unit of lam (A)
D = 3.45  # interlayer distance of the model (A), the relaxed AB distance of the path
AMPLITUDE = 4.0  # ripple amplitude A (A)
WAVELENGTH = 100.0  # ripple wavelength L (A) = 10 nm
LAM_FLAT = 2.0  # BA
N_SAMPLES = 200_000
TAGS = ("0.00", "0.50", "1.00", "1.25", "1.50", "1.75", "2.00")
NAMES = {"0.00": "AA", "1.00": "AB", "1.50": "SP", "2.00": "BA"}

HEADER = """\
# Vacuum-level step of flat bilayer h-BN at seven stackings along its sliding path
# (Quantum ESPRESSO 6.7, PBE + DFT-D3, a = 2.504 A, interlayer distance relaxed at each stacking,
# dipole correction in the vacuum).
# lambda: shift of the top layer from the AA stacking in units of a/sqrt(3) along the B-N bond direction
# delta_V_meV: potential energy of an electron in the vacuum above the bilayer minus that below it, in meV
lambda,stacking,delta_V_meV
"""


def table_from_path(path: Path = STEP_PATH) -> str:
    """The staged table, counted by hbn-sliding-potential-step's values.py from its staged path."""
    # Loaded by path under its own name: both folders' modules are called values.py.
    spec = importlib.util.spec_from_file_location("hbn_potential_step_values", STEP_REPRODUCE / "values.py")
    assert spec is not None and spec.loader is not None
    step_values = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(STEP_REPRODUCE))  # its own imports (bilayer.py)
    spec.loader.exec_module(step_values)
    relaxed, step_mev = step_values.relaxed, step_values.step_mev

    rows = []
    for tag in TAGS:
        z = relaxed((path / f"s{tag}.relax.out").read_text())[1]
        rows.append(f"{tag},{NAMES.get(tag, '-')},{step_mev(path / f's{tag}.avg.dat', z):.3f}\n")
    return HEADER + "".join(rows)


def read_table(csv: Path) -> tuple[np.ndarray, np.ndarray]:
    """Lambda and delta_V (meV) of the staged table."""
    lines = csv.read_text().splitlines()
    rows = [line.split(",") for line in lines if line and not line.startswith(("#", "lambda"))]
    return np.array([float(r[0]) for r in rows]), np.array([float(r[2]) for r in rows])


def sine_coefficients(lam: np.ndarray, dv: np.ndarray, n_terms: int = 3) -> np.ndarray:
    """Least-squares coefficients b_n (meV) of sum_n b_n sin(2 pi n lam / 3)."""
    basis = np.sin(2 * np.pi * np.outer(lam, np.arange(1, n_terms + 1)) / 3)
    return np.linalg.lstsq(basis, dv, rcond=None)[0]


def sine_series(b: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """The sine series with coefficients b at the stackings lam."""
    return np.sin(2 * np.pi * np.outer(lam, np.arange(1, len(b) + 1)) / 3) @ b


def ripple(n: int = N_SAMPLES) -> tuple[np.ndarray, np.ndarray]:
    """Samples of x over one wavelength and the first-order relative shift u = d h'(x) of the top layer (A)."""
    x = np.arange(n) / n * WAVELENGTH
    slope = 2 * np.pi * AMPLITUDE / WAVELENGTH * np.cos(2 * np.pi * x / WAVELENGTH)
    return x, D * slope


def reference_values(lam_t: np.ndarray, dv_t: np.ndarray) -> dict[str, float]:
    """The reference values, keyed like reference.yaml."""
    b = sine_coefficients(lam_t, dv_t)
    _, u = ripple()
    lam = LAM_FLAT + u / BOND
    dv = sine_series(b, lam)
    flat = sine_series(b, np.array([LAM_FLAT]))[0]
    return {
        "max_shift_angstrom": float(np.abs(u).max()),
        "lambda_min": float(lam.min()),
        "lambda_max": float(lam.max()),
        "lambda_at_x0": float(lam[0]),
        "delta_V_max_meV": float(dv.max()),
        "delta_V_min_meV": float(dv.min()),
        "delta_V_mean_meV": float(dv.mean()),
        "reversed_fraction": float(np.mean(np.sign(dv) != np.sign(flat))),
    }


def main() -> None:
    """Write the table and values.json."""
    args = sys.argv[1:]
    if args[:1] == ["--table"]:
        csv, out = Path(args[1]), Path(args[2])
    else:
        out = Path(args[0])
        (out / "workspace").mkdir(parents=True, exist_ok=True)
        csv = out / "workspace" / "sliding_step.csv"
        csv.write_text(table_from_path())
    values = reference_values(*read_table(csv))
    out.mkdir(parents=True, exist_ok=True)
    (out / "values.json").write_text(json.dumps(values, indent=1) + "\n")
    b = sine_coefficients(*read_table(csv))
    print(json.dumps({"sine_coefficients_meV": b.tolist(), **values}, indent=1))


if __name__ == "__main__":
    main()
