"""Check types for slabs and constrained relaxations: qe.dipole_correction and qe.constraints.

qe.dipole_correction: a slab with an out-of-plane dipole, in a periodic cell, sees an artificial field from its
own images unless the input adds a compensating sawtooth (tefield + dipfield) or cuts the Coulomb interaction
along the normal (assume_isolated = '2D'). The sawtooth only helps where pw.x puts it: along bg(:, edir)
(default edir = 1, an in-plane axis for a slab along z), with its ramp, between emaxpos and emaxpos + eopreg
(default 0.5 and 0.1, fractions of the cell along edir), in the vacuum rather than through the atoms. An
external field (eamp, default 0) is a different calculation.

qe.constraints: the if_pos flags, e.g. in-plane components held so that a relaxation at a given stacking
shift does not slide back to the nearest minimum.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from cmb.grading._registry import CheckContext, Outcome, register
from cmb.grading.qe._cell import cell_heights, pw_structure
from cmb.grading.qe._evaluator import effective_value, fmt
from cmb.grading.qe._input import PwInput
from cmb.grading.qe._reader import read_pw_input


class DipoleParams(BaseModel):
    """Parameters of qe.dipole_correction."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_gap: float = Field(
        default=2.0, ge=0, description="Shortest distance (Å) from any atom to the sawtooth's ramp region"
    )
    allow_2d_cutoff: bool = Field(
        default=True, description="Accept assume_isolated = '2D' (the Coulomb cutoff) instead of the sawtooth"
    )
    max_field: float = Field(default=0.0, ge=0, description="Largest |eamp| accepted (Hartree a.u.)")


def _value(pw: PwInput, key: str) -> object:
    return effective_value(pw, key).value


def _normal_axis(frac: np.ndarray, heights: np.ndarray) -> int:
    """The cell axis with the widest empty gap (Å) between atom planes: the slab normal."""
    gaps = []
    for axis in range(3):
        z = np.sort(frac[:, axis] % 1.0)
        steps = np.diff(np.append(z, z[0] + 1.0))
        gaps.append(float(steps.max()) * heights[axis])
    return int(np.argmax(gaps))


def _ramp_distance(frac_axis: np.ndarray, start: float, width: float, height: float) -> float:
    """Shortest distance (Å) from any atom to the periodic interval [start, start + width] along one axis."""
    rel = (frac_axis - start) % 1.0  # 0 at the ramp's start
    inside = rel <= width
    if inside.any():
        return 0.0
    return float(np.minimum(rel - width, 1.0 - rel).min()) * height


@register("qe.dipole_correction", params=DipoleParams, needs_reference=False, thresholds=("min_gap",))
def dipole_correction(ctx: CheckContext[DipoleParams]) -> Outcome:
    """The slab's images are decoupled: a dipole correction along its normal, ramp in the vacuum, or a 2D cutoff."""
    p = ctx.params
    pw = read_pw_input(ctx)
    structure = pw_structure(pw)
    heights = cell_heights(structure.lattice.matrix)
    frac = np.array(structure.frac_coords, dtype=float)
    normal = _normal_axis(frac, heights)
    field = _value(pw, "system.eamp")
    if isinstance(field, (int, float)) and abs(float(field)) > p.max_field:
        return Outcome(False, f"eamp = {fmt(field)} Ha a.u. adds an external field: not the field-free slab")
    isolated = str(_value(pw, "system.assume_isolated") or "none").lower()
    if p.allow_2d_cutoff and isolated == "2d":
        if normal != 2:
            return Outcome(False, f"assume_isolated = '2D' cuts along z, but the vacuum is along axis {normal + 1}")
        return Outcome(True, "assume_isolated = '2D': the Coulomb interaction is cut along the slab normal (z)")
    if _value(pw, "control.tefield") is not True:
        return Outcome(False, "no dipole correction: tefield = .false. (and no 2D Coulomb cutoff)")
    if _value(pw, "control.dipfield") is not True:
        return Outcome(False, "tefield without dipfield = .true.: a sawtooth field, no dipole correction")
    edir = _value(pw, "system.edir")
    if edir != normal + 1:
        return Outcome(
            False,
            f"edir = {fmt(edir)}: the correction acts along axis {fmt(edir)}, the vacuum is along axis {normal + 1}",
        )
    raw_start, raw_width = _value(pw, "system.emaxpos"), _value(pw, "system.eopreg")
    if not (isinstance(raw_start, (int, float)) and isinstance(raw_width, (int, float)) and 0 < raw_width < 1):
        return Outcome(False, f"emaxpos = {fmt(raw_start)}, eopreg = {fmt(raw_width)}: not a ramp inside the cell")
    start, width = float(raw_start), float(raw_width)
    gap = _ramp_distance(frac[:, normal], start, width, float(heights[normal]))
    where = f"ramp from {start:g} to {start + width:.4g} of the cell along axis {normal + 1}"
    if gap < p.min_gap:
        return Outcome(
            False, f"{where} lies {gap:.2f} Å from the nearest atom (at least {p.min_gap:g} Å needed)", p.min_gap, gap
        )
    return Outcome(
        True, f"dipole correction along axis {normal + 1}, {where}, {gap:.2f} Å from the nearest atom", p.min_gap, gap
    )


_AXES = {"x": 0, "y": 1, "z": 2}


class ConstraintParams(BaseModel):
    """Parameters of qe.constraints."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fixed: list[Literal["x", "y", "z"]] = Field(
        default_factory=list, description="Cartesian force components every atom must hold (if_pos 0)"
    )
    free: list[Literal["x", "y", "z"]] = Field(
        default_factory=list,
        description="Cartesian force components that at least min_free of the atoms must leave free",
    )
    min_free: float = Field(default=0.5, gt=0, le=1, description="Fraction of the atoms free along each `free` axis")


@register("qe.constraints", params=ConstraintParams, needs_reference=False)
def constraints(ctx: CheckContext[ConstraintParams]) -> Outcome:
    """The if_pos flags of ATOMIC_POSITIONS hold and free the Cartesian components a constrained relaxation needs."""
    p = ctx.params
    pw = read_pw_input(ctx)
    if pw.positions is None:
        return Outcome(False, f"{pw.name}: no readable ATOMIC_POSITIONS card")
    flags = pw.positions.if_pos
    nat = len(flags)
    failures = []
    for axis in p.fixed:
        moving = [i + 1 for i, f in enumerate(flags) if f[_AXES[axis]] != 0]
        if moving:
            failures.append(f"{len(moving)} of {nat} atoms may move along {axis} (atoms {moving[:6]}), none may")
    for axis in p.free:
        free = sum(1 for f in flags if f[_AXES[axis]] != 0)
        if free < p.min_free * nat:
            failures.append(f"only {free} of {nat} atoms may move along {axis}")
    held = ", ".join(p.fixed) or "nothing"
    if failures:
        return Outcome(False, f"{pw.name}: " + "; ".join(failures), None, [list(f) for f in flags])
    return Outcome(
        True,
        f"{pw.name}: every atom holds {held}; {', '.join(p.free) or 'no axis'} left free",
        None,
        [list(f) for f in flags],
    )
