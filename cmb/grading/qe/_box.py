"""Check type for isolated atoms and molecules in a periodic box: qe.box.

A reference atom (for a cohesive energy) or a molecule is computed in a box large enough that it does not feel
its periodic images. What matters is the distance between opposite faces of the cell along each axis (its
heights), not the edge lengths: a skewed cell can have long edges and thin layers.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from cmb.grading._registry import CheckContext, Outcome, register
from cmb.grading.qe._cell import cell_heights, pw_structure
from cmb.grading.qe._reader import read_pw_input


class BoxParams(BaseModel):
    """Parameters of qe.box."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_height: float = Field(gt=0, description="Shortest distance (Å) between opposite faces of the cell")


@register("qe.box", params=BoxParams, needs_reference=False, thresholds=("min_height",))
def box(ctx: CheckContext[BoxParams]) -> Outcome:
    """The cell is at least min_height Å between every pair of opposite faces."""
    p = ctx.params
    pw = read_pw_input(ctx)
    heights = cell_heights(pw_structure(pw).lattice.matrix)
    shown = " x ".join(f"{h:.3f}" for h in heights)
    thinnest = float(heights.min())
    if thinnest < p.min_height - 1e-6:  # a box written as exactly the bound passes despite rounding
        return Outcome(
            False,
            f"box heights {shown} Å: {thinnest:.3f} Å between opposite faces, at least {p.min_height:g} Å needed",
            p.min_height,
            thinnest,
        )
    return Outcome(True, f"box heights {shown} Å, every one at least {p.min_height:g} Å", p.min_height, thinnest)
