"""Check types of the `lammps` family: lammps.setting, lammps.pair_coeff, lammps.fix, lammps.no_fix."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cmb.grading._compare import show
from cmb.grading._registry import CheckContext, GraderConfigError, Outcome, register
from cmb.grading.lammps._compare import compare, display, first_unknown
from cmb.grading.lammps._defaults import base_style, default_settings, tables
from cmb.grading.lammps._interpreter import interpret
from cmb.grading.lammps._lookup import (
    ElementMap,
    active_fixes,
    damping,
    effective,
    element_map,
    fix_keyword,
    fix_value,
    lookup,
    select_fixes,
)
from cmb.grading.lammps._state import Absent, Fix, Script, Stage, Stop, Unknown, parse_number
from cmb.grading.settings import Effective, Origin
from cmb.models import Tolerance


class _ScriptParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    at: Literal["last", "every", "any"] = Field(
        default="last",
        description="Which stage (run/minimize) to read: the last one where the setting is defined, every such "
        "stage, or any of them. A script with no run or minimize is read at its end.",
    )
    variables: dict[str, str] = Field(
        default_factory=dict, description="Variables the task passes on the LAMMPS command line (-var NAME VALUE)"
    )


def _absence(value: Any) -> str | None:
    """Why a probed value is not there at a stage; None when it is."""
    if isinstance(value, Effective):
        return value.note if value.origin is Origin.ABSENT else None
    return value.reason if isinstance(value, Absent) else None


def _stages(script: Script, probe: Callable[[Stage], Any], at: str) -> list[tuple[Stage, Any]] | Outcome:
    """The stages a check reads, with the probed value at each; a failed Outcome when none defines it."""
    try:
        probed = [(stage, probe(stage)) for stage in script.stages]
    except Stop as exc:  # met only when the check reads a stored command (a pair_coeff type of 1e-999)
        return Outcome(False, f"{exc.prefix}{exc.message}")
    present = [(s, v) for s, v in probed if _absence(v) is None]
    if not present:
        reason = _absence(probed[-1][1])
        drift = f"; note: {script.drift}" if script.drift else ""
        where = "at any run or minimize" if script.stages[-1].kind != "end" else "in the script"
        return Outcome(False, f"{reason} {where}{drift}")
    return [present[-1]] if at == "last" else present


def _combine(results: list[tuple[Stage, Outcome]], at: str) -> Outcome:
    if at == "any":
        passing = [(s, o) for s, o in results if o.passed]
        stage, out = passing[0] if passing else results[-1]
    else:
        failing = [(s, o) for s, o in results if not o.passed]
        stage, out = failing[0] if failing else results[-1]
    return Outcome(out.passed, f"{stage.label()}: {out.message}", out.expected, out.actual, out.deviation)


class SettingParams(_ScriptParams):
    """Parameters of lammps.setting."""

    any_of: list[Any] | None = Field(default=None, description="Accepted values; the setting must match one")
    not_: list[Any] | None = Field(default=None, alias="not", description="Values the setting must not match")
    min: float | None = Field(default=None, description="Smallest accepted number (inclusive)")
    max: float | None = Field(default=None, description="Largest accepted number (inclusive)")


def _judge(value: Any, expected: Any, has_ref: bool, p: SettingParams, tol: Tolerance, unit: str | None) -> Outcome:
    blocker = first_unknown(value)
    if isinstance(value, Unknown | Absent) and blocker is not None:
        return Outcome(False, blocker.reason, expected, display(value))
    notes: list[str] = []
    deviation: float | None = None
    if has_ref:
        out = compare(value, expected, tol, unit)
        if not out.passed:
            return out
        notes.append(out.message)
        deviation = out.deviation
    if p.any_of is not None:
        if not any(compare(value, option, tol, unit).passed for option in p.any_of):
            return Outcome(False, f"{show(display(value))!r} is not one of {p.any_of}", p.any_of, display(value))
        notes.append(f"one of {p.any_of}")
    if p.not_ is not None:
        hit = next((option for option in p.not_ if compare(value, option, tol, unit).passed), None)
        if hit is not None:
            return Outcome(False, f"{show(display(value))!r} matches the excluded value {hit!r}", expected,
                           display(value))  # fmt: skip
        notes.append(f"not any of {p.not_}")
    if p.min is not None or p.max is not None:
        number = parse_number(value)
        if number is None or not math.isfinite(number):
            return Outcome(False, f"{show(display(value))!r} is not a finite number", expected, display(value))
        low = -math.inf if p.min is None else p.min
        high = math.inf if p.max is None else p.max
        if not low <= number <= high:
            return Outcome(False, f"{number:g} is outside [{low:g}, {high:g}]", [p.min, p.max], number)
        notes.append(f"{number:g} within [{low:g}, {high:g}]")
    shown = display(value)
    return Outcome(True, f"{show(shown)!r}: " + "; ".join(notes), expected if has_ref else None, shown, deviation)


@register("lammps.setting", params=SettingParams, needs_reference=False, numeric=True, thresholds=("min", "max"))
def setting(ctx: CheckContext[SettingParams]) -> Outcome:
    """The effective value of a LAMMPS setting (defaults included) vs the reference, a choice or a range."""
    p = ctx.params
    path = ctx.check.target.setting
    if not path:
        raise GraderConfigError(f"check {ctx.check.id!r}: lammps.setting needs target.setting (e.g. timestep)")
    lookup(path, default_settings())  # an unknown path is a grader bug: raise before reading the submission
    has_ref = ctx.check.reference is not None
    if not has_ref and p.any_of is None and p.not_ is None and p.min is None and p.max is None:
        raise GraderConfigError(f"check {ctx.check.id!r}: give a reference, any_of, not, min or max")
    expected = ctx.expected() if has_ref else None
    script = interpret(ctx.submission, ctx.check.target.file, p.variables)
    if script.stop:
        return Outcome(False, script.stop, expected)
    chosen = _stages(script, lambda s: effective(path, s), p.at)
    if isinstance(chosen, Outcome):
        return Outcome(False, f"{path}: {chosen.message}", expected)
    tol = ctx.check.effective_tolerance
    results = [(s, _judge(eff.value, expected, has_ref, p, tol, ctx.check.unit)) for s, eff in chosen]
    out = _combine(results, p.at)
    return Outcome(out.passed, f"{path} {out.message}", out.expected, out.actual, out.deviation)


class PairCoeffParams(_ScriptParams):
    """Parameters of lammps.pair_coeff."""

    allowed_files: list[str] | None = Field(
        default=None, description="Accepted potential files, by basename (Si.sw); None accepts any"
    )
    match: Literal["per_type", "set"] = Field(
        default="per_type",
        description="per_type: element of each atom type equals the reference list; set: the same elements "
        "in any order/multiplicity (types may repeat an element)",
    )
    file_elements: dict[str, str] = Field(
        default_factory=dict,
        description="Element of each single-element funcfl EAM file (Cu_u3.eam: Cu); without it the file "
        "basename stands for the element",
    )


@register("lammps.pair_coeff", params=PairCoeffParams, needs_reference=True)
def pair_coeff(ctx: CheckContext[PairCoeffParams]) -> Outcome:
    """Many-body pair_coeff: one element per atom type, equal to the reference, from an allowed file."""
    p = ctx.params
    expected = ctx.expected()
    if not isinstance(expected, list) or not all(isinstance(e, str) for e in expected):
        raise GraderConfigError(f"check {ctx.check.id!r}: reference must be a list of element names")
    script = interpret(ctx.submission, ctx.check.target.file, p.variables)
    if script.stop:
        return Outcome(False, script.stop, expected)
    chosen = _stages(script, lambda s: element_map(s.values, p.file_elements), p.at)
    if isinstance(chosen, Outcome):
        return Outcome(False, chosen.message, expected)

    def judge(stage: Stage, mapping: Any) -> Outcome:
        if not isinstance(mapping, ElementMap):
            return Outcome(False, mapping.reason, expected)
        got = mapping.elements
        n = stage.values.get("ntypes")
        if len(got) != n:
            return Outcome(False, f"{len(got)} elements for {n} atom types", expected, got)
        if p.match == "per_type":
            ok = got == expected
            text = f"elements per atom type {got} {'==' if ok else '!='} {expected}"
        else:
            named = {e for e in got if e != "NULL"}
            ok = named == set(expected)
            text = f"elements {sorted(named)} {'==' if ok else '!='} {sorted(set(expected))}"
        if not ok:
            return Outcome(False, f"pair_style {mapping.style}: {text}", expected, got)
        if p.allowed_files is not None:
            bad = [f for f in mapping.files if f not in p.allowed_files]
            if bad:
                return Outcome(False, f"potential file(s) {bad} not among {p.allowed_files}", expected, got)
        return Outcome(True, f"pair_style {mapping.style} with {mapping.files}: {text}", expected, got)

    return _combine([(s, judge(s, m)) for s, m in chosen], p.at)


class Range(BaseModel):
    """An inclusive numeric range; an open end is None."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    min: float | None = Field(default=None, description="Smallest accepted value")
    max: float | None = Field(default=None, description="Largest accepted value")


class FixParams(_ScriptParams):
    """Parameters of lammps.fix."""

    style: str = Field(description="Fix style, e.g. npt, nvt, langevin (accelerator suffixes ignored)")
    group: str | None = Field(default="all", description="Group the fix must act on; None accepts any group")
    keywords: dict[str, Any] = Field(
        default_factory=dict,
        description="Keyword -> expected values, null = any (temp: [300, 300, null]); 'pressure' means "
        "whichever of iso/aniso/tri the fix uses",
    )
    temp_damp_steps: Range | None = Field(
        default=None, description="Accepted thermostat damping in timesteps (Tdamp / dt); ~100 is the usual advice"
    )
    pressure_damp_steps: Range | None = Field(
        default=None, description="Accepted barostat damping in timesteps (Pdamp / dt); ~1000 is the usual advice"
    )


def _judge_fix(fix: Fix, values: Mapping[str, Any], wanted: Mapping[str, Any], p: FixParams, tol: Tolerance,
               unit: str | None) -> Outcome:  # fmt: skip
    notes: list[str] = []
    worst = 0.0
    for key, expected in wanted.items():
        actual = fix_value(fix, [key], values)
        out = compare(actual, expected, tol, unit)
        if not out.passed:
            return Outcome(False, f"{fix.describe()}: {key}: {out.message}", dict(wanted), display(actual))
        worst = max(worst, out.deviation or 0.0)
        notes.append(f"{key} {display(actual)}")
    time_unit = tables().time_unit.get(str(values.get("units")), "time units")
    for key, rng in (("temp", p.temp_damp_steps), ("pressure", p.pressure_damp_steps)):
        if rng is None:
            continue
        name, words = fix_keyword(fix, key)
        if words is None:
            return Outcome(False, f"{fix.describe()} sets no {key}", dict(wanted))
        damp = damping(fix, name, words, values)
        if isinstance(damp, Unknown | Absent):
            return Outcome(False, f"{fix.describe()}: {damp.reason}", dict(wanted))
        low = -math.inf if rng.min is None else rng.min
        high = math.inf if rng.max is None else rng.max
        text = f"{key} damping {damp[0]:g} {time_unit} = {damp[1]:.4g} steps of {values.get('dt')} {time_unit}"
        if not low <= damp[1] <= high:
            return Outcome(False, f"{fix.describe()}: {text}, outside [{low:g}, {high:g}] steps "
                           "(damping is a time, not a number of steps)", dict(wanted), damp[1])  # fmt: skip
        notes.append(text)
    return Outcome(True, f"{fix.describe()}: " + ("; ".join(notes) or "present"), dict(wanted), None, worst)


@register(
    "lammps.fix",
    params=FixParams,
    needs_reference=False,
    numeric=True,
    thresholds=("temp_damp_steps", "pressure_damp_steps"),
)
def fix(ctx: CheckContext[FixParams]) -> Outcome:
    """A fix of a style on a group, in effect at a run, with keyword values and damping in range."""
    p = ctx.params
    wanted: dict[str, Any] = dict(p.keywords)
    if ctx.check.reference is not None:
        ref = ctx.expected()
        if not isinstance(ref, dict):
            raise GraderConfigError(f"check {ctx.check.id!r}: lammps.fix reference must map keywords to values")
        wanted.update(ref)
    script = interpret(ctx.submission, ctx.check.target.file, p.variables)
    if script.stop:
        return Outcome(False, script.stop, wanted)
    chosen = _stages(script, lambda s: select_fixes(s.values, p.style, p.group, by_id=False), p.at)
    if isinstance(chosen, Outcome):
        return Outcome(False, chosen.message, wanted)
    tol = ctx.check.effective_tolerance

    def judge(stage: Stage, fixes: Any) -> Outcome:
        outcomes = [_judge_fix(f, stage.values, wanted, p, tol, ctx.check.unit) for f in fixes]
        return next((o for o in outcomes if o.passed), outcomes[0])

    return _combine([(s, judge(s, f)) for s, f in chosen], p.at)


class NoFixParams(_ScriptParams):
    """Parameters of lammps.no_fix."""

    styles: list[str] = Field(min_length=1, description="Fix styles that must not be in effect (suffixes ignored)")
    group: str | None = Field(default=None, description="Only fixes on this group count; None: fixes on any group")


@register("lammps.no_fix", params=NoFixParams, needs_reference=False)
def no_fix(ctx: CheckContext[NoFixParams]) -> Outcome:
    """None of the given fix styles is in effect at the run(s) read.

    For a second time integrator (an extra `fix nve` beside `fix npt` moves every atom twice per step) or a
    second thermostat.
    """
    p = ctx.params
    script = interpret(ctx.submission, ctx.check.target.file, p.variables)
    if script.stop:
        return Outcome(False, script.stop)
    banned = {base_style(s) for s in p.styles}

    def judge(stage: Stage) -> Outcome:
        fixes, unknown = active_fixes(stage.values)
        hits = [f for f in fixes if base_style(f.style) in banned and p.group in (None, f.group)]
        if hits:
            return Outcome(False, f"{hits[0].describe()} is in effect; none of {sorted(banned)} may be", None,
                           hits[0].style)  # fmt: skip
        if unknown:
            return Outcome(False, f"cannot rule out {sorted(banned)}: fixes not statically known: {'; '.join(unknown)}")
        return Outcome(True, f"none of {sorted(banned)} in effect")

    stages = script.stages[-1:] if p.at == "last" else script.stages
    return _combine([(s, judge(s)) for s in stages], p.at)
