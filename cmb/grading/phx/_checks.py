"""Check family `phx`: a Quantum ESPRESSO ph.x 6.7 input graded on what ph.x would do with it.

phx.valid     ph.x would read the input without stopping (title, &inputph, the wave vector, refused combinations)
phx.param     the effective value of one &inputph setting (defaults and ph.x's own rules applied)
phx.qpoint    the wave vectors ph.x computes include Gamma (a single q = 0, or a grid with ldisp)
phx.pw_match  prefix and outdir are those of the pw.x ground-state input ph.x must read
phx.masses    the masses of the dynamical matrix (ph.x amass, else the pw.x ATOMIC_SPECIES masses), by element
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from cmb.grading._registry import CheckContext, Outcome, register
from cmb.grading._submission import SubmissionError
from cmb.grading.phx._reader import (
    PhInput,
    PhInputError,
    label_element,
    parse_ph_input,
    pw_control,
    pw_species,
    same_folder,
)

Scalar = str | float | int | bool


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _read(ctx: CheckContext[Any]) -> PhInput:
    return parse_ph_input(ctx.submission.read_text(ctx.check.target.file))


@register("phx.valid", needs_reference=False)
def valid(ctx: CheckContext[_Params]) -> Outcome:
    """ph.x 6.7 would read the input: the namelist, its variables and values, the wave vector, no refused mix."""
    try:
        ph = _read(ctx)
    except (PhInputError, SubmissionError) as exc:
        return Outcome(False, f"{ctx.check.target.file}: {exc}")
    what = "a q grid (ldisp)" if ph.value("ldisp") else f"q = {ph.xq}"
    return Outcome(True, f"{ctx.check.target.file}: readable by ph.x 6.7, {len(ph.values)} settings, {what}")


class ParamParams(_Params):
    """Rules on the effective value of one setting; every rule given must hold."""

    any_of: list[Scalar] | None = Field(default=None, description="Allowed effective values")
    min: float | None = Field(default=None, description="Inclusive lower bound")
    max: float | None = Field(default=None, description="Inclusive upper bound")
    explicit: bool = Field(default=False, description="The input must set it (a default does not count)")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=0.0)
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().lower() == b.strip().lower()
    return False


@register("phx.param", params=ParamParams, needs_reference=False, thresholds=("min", "max"))
def param(ctx: CheckContext[ParamParams]) -> Outcome:
    """The value ph.x 6.7 will use for one &inputph setting meets the allowed values and bounds."""
    setting = (ctx.check.target.setting or "").lower().removeprefix("inputph.")
    if not setting:
        return Outcome(False, "grader error: phx.param needs target.setting")
    try:
        ph = _read(ctx)
    except (PhInputError, SubmissionError) as exc:
        return Outcome(False, f"{ctx.check.target.file}: {exc}")
    eff = ph.effective(setting)
    how = {"input": "as given", "default": "ph.x default", "rule": f"set by ph.x ({eff.note})"}[eff.origin]
    shown = f"{setting} = {eff.value!r} ({how})"
    p = ctx.params
    if p.explicit and not ph.given(setting):
        return Outcome(False, f"{shown}: the input must set it explicitly", actual=eff.value)
    if p.any_of is not None and not any(_same(eff.value, a) for a in p.any_of):
        return Outcome(False, f"{shown}: not one of {p.any_of}", expected=p.any_of, actual=eff.value)
    for bound, word in ((p.min, "at least"), (p.max, "at most")):
        if bound is None:
            continue
        if isinstance(eff.value, bool) or not isinstance(eff.value, int | float):
            return Outcome(False, f"{shown}: not a number to compare with {bound}", actual=eff.value)
        value = float(eff.value)
        if (value < bound) if word == "at least" else (value > bound):
            return Outcome(False, f"{shown}: must be {word} {bound:g}", expected=bound, actual=eff.value)
    return Outcome(True, shown, actual=eff.value)


class QpointParams(_Params):
    """Which wave vectors are acceptable."""

    allow_grid: bool = Field(default=True, description="A q grid (ldisp, which always holds Gamma) also passes")


@register("phx.qpoint", params=QpointParams, needs_reference=False)
def qpoint(ctx: CheckContext[QpointParams]) -> Outcome:
    """Gamma is computed: the wave vector read after the namelist is q = 0, or (if allowed) a grid via ldisp."""
    try:
        ph = _read(ctx)
    except (PhInputError, SubmissionError) as exc:
        return Outcome(False, f"{ctx.check.target.file}: {exc}")
    if ph.value("ldisp"):
        grid = tuple(ph.value(f"nq{i}") for i in (1, 2, 3))
        if ctx.params.allow_grid:
            return Outcome(True, f"a {grid[0]}x{grid[1]}x{grid[2]} q grid, which includes Gamma")
        return Outcome(False, f"a {grid[0]}x{grid[1]}x{grid[2]} q grid; a single Gamma-point run was asked for")
    if ph.value("qplot"):
        return Outcome(False, "a q list (qplot); a Gamma-point run was asked for")
    if ph.computes_gamma():
        return Outcome(True, "q = (0, 0, 0): Gamma")
    return Outcome(False, f"q = {ph.xq} (2pi/a, Cartesian) is not Gamma", expected=[0, 0, 0], actual=list(ph.xq or ()))


class PwMatchParams(_Params):
    """The pw.x input of the same submission."""

    pw_file: str = Field(description="The pw.x ground-state input in the submission, e.g. scf.in")


@register("phx.pw_match", params=PwMatchParams, needs_reference=False)
def pw_match(ctx: CheckContext[PwMatchParams]) -> Outcome:
    """ph.x reads the pw.x run it follows: the same prefix and the same outdir (defaults of both codes applied)."""
    try:
        ph = _read(ctx)
        pw = pw_control(ctx.submission.read_text(ctx.params.pw_file))
    except (PhInputError, SubmissionError) as exc:
        return Outcome(False, str(exc))
    prefix, outdir = str(ph.value("prefix")), str(ph.value("outdir"))
    problems = []
    if prefix.strip() != pw["prefix"].strip():
        problems.append(f"prefix {prefix!r} (ph.x) vs {pw['prefix']!r} ({ctx.params.pw_file})")
    if not same_folder(outdir, pw["outdir"]):
        problems.append(f"outdir {outdir!r} (ph.x) vs {pw['outdir']!r} ({ctx.params.pw_file})")
    if problems:
        return Outcome(False, "ph.x would not find the ground state: " + "; ".join(problems))
    return Outcome(True, f"prefix {prefix!r} and outdir {outdir!r} match {ctx.params.pw_file}")


def _standard_weight(element: str) -> float:
    from pymatgen.core.periodic_table import Element

    try:
        return float(Element(element).atomic_mass)
    except ValueError:
        return 0.0


class MassParams(_Params):
    """The atomic masses (amu) ph.x must use, by element."""

    pw_file: str = Field(description="The pw.x ground-state input in the submission, e.g. scf.in")
    masses: dict[str, float] = Field(min_length=1, description="Element symbol -> mass in amu")
    rel_tol: float = Field(default=1e-3, gt=0, description="Relative tolerance of each mass")


@register("phx.masses", params=MassParams, needs_reference=False)
def masses(ctx: CheckContext[MassParams]) -> Outcome:
    """The masses of the dynamical matrix: ph.x's amass(i) where positive, else the pw.x ATOMIC_SPECIES masses."""
    try:
        ph = _read(ctx)
        species = pw_species(ctx.submission.read_text(ctx.params.pw_file))
    except (PhInputError, SubmissionError) as exc:
        return Outcome(False, str(exc))
    amass = ph.values.get("amass", {})
    if not isinstance(amass, dict):
        amass = {}
    used, problems = [], []
    for i, (label, mass) in enumerate(species, start=1):
        element = label_element(label)
        override = amass.get(i)
        if override is not None and override > 0:
            eff, origin = override, "ph.x amass"
        elif mass > 0:
            eff, origin = mass, "ATOMIC_SPECIES"
        else:  # pw.x replaces a mass <= 0 by the standard atomic weight, and ph.x reads that
            eff, origin = _standard_weight(element), "standard weight (mass <= 0 in ATOMIC_SPECIES)"
        used.append(f"{label} {eff:g} ({origin})")
        want = ctx.params.masses.get(element)
        if want is None:
            problems.append(f"species {label!r}: no mass required for element {element or '?'}")
        elif abs(eff - want) > ctx.params.rel_tol * want:
            problems.append(f"{label}: {eff:g} amu ({origin}) instead of {want:g}")
    missing = sorted(set(ctx.params.masses) - {label_element(lab) for lab, _ in species})
    if missing:
        problems.append(f"no species of {missing}")
    if problems:
        return Outcome(False, "masses of the dynamical matrix: " + "; ".join(problems), actual=used)
    return Outcome(True, "masses of the dynamical matrix: " + ", ".join(used), actual=used)
