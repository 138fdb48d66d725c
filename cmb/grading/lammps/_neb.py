"""Check type for the final replica of a LAMMPS NEB run: lammps.neb_coords.

`neb ... final FILE` reads FILE as LAMMPS documents it: comment lines (#) and blank lines are skipped, the first
other line holds the number of atoms listed, and each following line `ID x y z` moves one atom of the initial
state; atoms not listed keep their initial positions. LAMMPS takes, for each listed atom, the periodic image
nearest its initial position. The check rebuilds that final replica and compares it with the intended final
state atom by atom, so a missing count line, a wrong or partial atom list and coordinates of another state all
fail, without running LAMMPS.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from cmb.grading._registry import CheckContext, GraderConfigError, Outcome, register
from cmb.grading.lammps._state import parse_number


class NebCoordsParams(BaseModel):
    """Parameters of lammps.neb_coords."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    initial_state: str = Field(
        description="Data file of the initial replica (atom_style atomic), beside reference.yaml"
    )
    final_state: str = Field(description="Data file of the intended final replica, beside reference.yaml")
    tolerance: float = Field(default=0.01, gt=0, description="Largest allowed distance (Å) of any atom")


class NebFileError(ValueError):
    """The NEB file is not what LAMMPS reads."""


def parse_neb_coords(text: str) -> dict[int, np.ndarray]:
    """The atoms an NEB final-replica file moves: {id: position}, as LAMMPS reads the file."""
    lines = [ln.split("#", 1)[0].split() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines:
        raise NebFileError("no count line (the file is empty)")
    count = lines[0]
    if len(count) != 1 or not count[0].isdigit():
        raise NebFileError(f"the first line must hold the number of atoms listed, found {' '.join(count)[:60]!r}")
    n = int(count[0])
    body = lines[1:]
    if len(body) != n:
        raise NebFileError(f"the count line says {n} atoms but {len(body)} coordinate lines follow")
    moved: dict[int, np.ndarray] = {}
    for words in body:
        xyz = [parse_number(w) for w in words[1:]]
        if len(words) != 4 or not words[0].isdigit() or any(v is None for v in xyz):
            raise NebFileError(f"not an 'ID x y z' line: {' '.join(words)[:60]!r}")
        atom = int(words[0])
        if atom in moved:
            raise NebFileError(f"atom {atom} is listed twice")
        moved[atom] = np.array(xyz, dtype=float)
    return moved


def read_atomic_data(text: str, name: str) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """Box matrix (rows a, b, c) and positions {id: xyz} of a data file with an `Atoms # atomic` section."""
    lo = np.zeros(3)
    hi = np.zeros(3)
    tilt = np.zeros(3)
    atoms: dict[int, np.ndarray] = {}
    lines = text.splitlines()
    i = 1
    while i < len(lines):
        words = lines[i].split("#", 1)[0].split()
        if words[-2:] in (["xlo", "xhi"], ["ylo", "yhi"], ["zlo", "zhi"]):
            axis = "xyz".index(words[-1][0])
            lo[axis], hi[axis] = float(words[0]), float(words[1])
        elif words[-3:] == ["xy", "xz", "yz"]:
            tilt = np.array([float(w) for w in words[:3]])
        elif words == ["Atoms"]:
            i += 1
            while i < len(lines):
                row = lines[i].split("#", 1)[0].split()
                if row and row[0][0].isalpha():
                    break
                if row:
                    atoms[int(row[0])] = np.array([float(v) for v in row[2:5]])
                i += 1
            break
        i += 1
    if not atoms:
        raise GraderConfigError(f"reference data file {name!r} has no Atoms section")
    lx, ly, lz = hi - lo
    box = np.array([[lx, 0.0, 0.0], [tilt[0], ly, 0.0], [tilt[1], tilt[2], lz]])
    return box, atoms


def nearest_image(delta: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The displacements (rows) reduced to their shortest periodic images in the box."""
    frac = delta @ np.linalg.inv(box)
    reduced: np.ndarray = (frac - np.round(frac)) @ box
    return reduced


@register("lammps.neb_coords", params=NebCoordsParams, needs_reference=False, thresholds=("tolerance",))
def neb_coords(ctx: CheckContext[NebCoordsParams]) -> Outcome:
    """The NEB final-replica file, applied to the initial state, gives the final state within tolerance."""
    p = ctx.params
    box, initial = read_atomic_data(ctx.reference_file(p.initial_state).read_text(), p.initial_state)
    _, final = read_atomic_data(ctx.reference_file(p.final_state).read_text(), p.final_state)
    if initial.keys() != final.keys():
        raise GraderConfigError(f"check {ctx.check.id!r}: the two reference states hold different atom ids")
    try:
        moved = parse_neb_coords(ctx.submission.read_text(ctx.check.target.file))
    except NebFileError as exc:
        return Outcome(False, f"LAMMPS would not read it: {exc}")
    unknown = sorted(set(moved) - set(initial))
    if unknown:
        return Outcome(False, f"atom ids {unknown[:5]} are not in the initial state ({len(initial)} atoms)")
    ids = sorted(initial)
    start = np.array([initial[i] for i in ids])
    # LAMMPS puts each listed atom at the image nearest its initial position
    replica = np.array(
        [start[k] + nearest_image(moved[i] - start[k], box) if i in moved else start[k] for k, i in enumerate(ids)]
    )
    target = np.array([final[i] for i in ids])
    off = np.linalg.norm(nearest_image(replica - target, box), axis=1)
    worst = int(np.argmax(off))
    miss = float(off[worst])
    summary = f"{len(moved)} atoms listed; largest distance from the final state {miss:.4f} Å (atom {ids[worst]})"
    if miss > p.tolerance:
        wrong = int((off > p.tolerance).sum())
        return Outcome(False, f"{summary}: {wrong} atoms off by more than {p.tolerance:g} Å", p.tolerance, miss)
    return Outcome(True, f"{summary}, within {p.tolerance:g} Å", p.tolerance, miss)
