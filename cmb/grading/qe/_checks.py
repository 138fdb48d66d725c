"""Check types of the `qe` family: qe.valid, qe.param, qe.kpoints, qe.species, qe.structure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cmb.grading._compare import compare_number
from cmb.grading._registry import CheckContext, GraderConfigError, Outcome, register
from cmb.grading._structure import StructureParams, compare_structures, read_reference_structure
from cmb.grading._submission import SubmissionError, is_finite_number
from cmb.grading.qe._cell import (
    functional_family,
    is_element,
    label_element,
    pseudo_element,
    pseudo_functional,
    pw_cell,
    pw_structure,
)
from cmb.grading.qe._defaults import TABLE_FILE
from cmb.grading.qe._evaluator import Evaluator, PwValue, effective_value, fatal_problems, fmt
from cmb.grading.qe._input import KPoints, PwInput
from cmb.grading.qe._reader import parse_pw_input, read_pw_input
from cmb.grading.qe._targets import SettingRef, canonical_expected, resolve_setting
from cmb.grading.settings import Origin

if TYPE_CHECKING:
    from pymatgen.core.structure import Structure


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ValidParams(_Params):
    """Parameters of qe.valid."""

    strict: bool = Field(
        default=False, description="Also fail on what pw.x only warns about (ignored lines, deprecated forms)"
    )


@register("qe.valid", params=ValidParams, needs_reference=False)
def valid(ctx: CheckContext[ValidParams]) -> Outcome:
    """pw.x 6.7 would accept the input: namelists, variables, values, cards and cell all readable."""
    pw = read_pw_input(ctx)
    problems = [p.text() for p in [*pw.problems, *fatal_problems(pw)]]
    if not problems and pw.values.get("system.ibrav") is not None:
        try:
            pw_cell(pw)
        except SubmissionError as exc:
            problems.append(str(exc).removeprefix(f"{pw.name}: "))
    notes = list(pw.notes)
    if problems:
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        return Outcome(False, f"{pw.name}: pw.x 6.7 would stop: " + "; ".join(problems[:5]) + more, None, problems[:20])
    if notes and ctx.params.strict:
        return Outcome(False, f"{pw.name}: pw.x 6.7 warns: " + "; ".join(notes[:5]), None, notes[:20])
    tail = f" (warnings: {'; '.join(notes[:3])})" if notes else ""
    return Outcome(True, f"{pw.name}: pw.x 6.7 would read this input{tail}", None, pw.namelists)


class RatioTo(_Params):
    """Bounds on this setting divided by another one."""

    setting: str = Field(description="The other setting, e.g. system.ecutwfc")
    min: float | None = Field(default=None, description="value / other must be at least this")
    max: float | None = Field(default=None, description="value / other must be at most this")


class ParamParams(_Params):
    """Parameters of qe.param (with or without a reference value)."""

    any_of: list[Any] | None = Field(default=None, min_length=1, description="Acceptable values (aliases allowed)")
    not_: list[Any] | None = Field(default=None, alias="not", min_length=1, description="Unacceptable values")
    min: float | None = Field(default=None, description="Lowest acceptable value")
    max: float | None = Field(default=None, description="Highest acceptable value")
    ratio_to: RatioTo | None = Field(default=None, description="Bounds on value / another setting")
    explicit: bool = Field(default=False, description="The input must write the setting (a default does not count)")


def _equal(ref: SettingRef, actual: Any, expected: Any, ctx: CheckContext[Any]) -> Outcome:
    if ref.vtype == "float":
        return compare_number(actual, expected, ctx.check.effective_tolerance, _unit(ref, ctx))
    ok = actual == expected
    return Outcome(ok, f"{'matches' if ok else 'differs from'} {fmt(expected)}", expected, actual, 0.0 if ok else None)


def _unit(ref: SettingRef, ctx: CheckContext[Any]) -> str | None:
    return ctx.check.unit or (ref.spec.unit if ref.spec is not None else None)


@dataclass(frozen=True)
class _Wanted:
    """A qe.param check's requirements, resolved against the table before any submission is read."""

    ref: SettingRef
    expected: Any = None  # canonical reference value, when the check names one
    has_expected: bool = False
    options: tuple[Any, ...] | None = None
    banned: tuple[Any, ...] | None = None
    ratio_ref: SettingRef | None = None


def _wanted(ctx: CheckContext[ParamParams]) -> _Wanted:
    """Grader mistakes surface here, whatever the submission holds."""
    p = ctx.params
    ref = resolve_setting(ctx.check.target.setting)
    has_rule = any(x is not None for x in (p.any_of, p.not_, p.min, p.max, p.ratio_to)) or p.explicit
    if ctx.check.reference is None and not has_rule:
        raise GraderConfigError(f"check {ctx.check.id!r}: give a reference or any_of/not/min/max/ratio_to/explicit")
    if ref.spec is None and not p.explicit:
        raise GraderConfigError(
            f"check {ctx.check.id!r}: {ref.base} has no curated QE 6.7 default in {TABLE_FILE}; add one or set "
            "params.explicit: true"
        )
    if ref.vtype not in ("int", "float") and (p.min is not None or p.max is not None or p.ratio_to is not None):
        raise GraderConfigError(f"check {ctx.check.id!r}: min/max/ratio_to need a numeric setting")
    ratio_ref = None
    if p.ratio_to is not None:
        ratio_ref = resolve_setting(p.ratio_to.setting)
        if ratio_ref.index is not None or ratio_ref.vtype not in ("int", "float") or ratio_ref.spec is None:
            raise GraderConfigError(f"ratio_to.setting {p.ratio_to.setting!r}: a curated numeric scalar is needed")
    has_expected = ctx.check.reference is not None
    return _Wanted(
        ref=ref,
        expected=canonical_expected(ref, ctx.expected()) if has_expected else None,
        has_expected=has_expected,
        options=tuple(canonical_expected(ref, v) for v in p.any_of) if p.any_of is not None else None,
        banned=tuple(canonical_expected(ref, v) for v in p.not_) if p.not_ is not None else None,
        ratio_ref=ratio_ref,
    )


def _judge(want: _Wanted, eff: PwValue, pw: PwInput, ctx: CheckContext[ParamParams]) -> Outcome:
    """One concrete setting against the check's reference and constraints."""
    p, ref = ctx.params, want.ref
    shown = eff.describe(_unit(ref, ctx))
    if not eff.known:
        return Outcome(False, f": {shown}", want.expected, None)
    if p.explicit and eff.origin is not Origin.SET and eff.written is None:
        return Outcome(False, f": not written in the input ({shown}); the check requires it", None, eff.value)
    value = eff.value
    failures: list[str] = []
    passes: list[str] = []
    deviation: float | None = None
    if want.has_expected:
        out = _equal(ref, value, want.expected, ctx)
        deviation = out.deviation
        (passes if out.passed else failures).append(f"reference: {out.message}")
    if want.options is not None:
        hit = any(_equal(ref, value, o, ctx).passed for o in want.options)
        (passes if hit else failures).append(f"{'one' if hit else 'none'} of {', '.join(map(fmt, want.options))}")
    if want.banned is not None:
        hit = any(_equal(ref, value, o, ctx).passed for o in want.banned)
        excluded = ", ".join(map(fmt, want.banned))
        (failures if hit else passes).append(f"{'one' if hit else 'none'} of the excluded {excluded}")
    for bound, name, op in ((p.min, "min", float.__ge__), (p.max, "max", float.__le__)):
        if bound is None:
            continue
        ok = is_finite_number(value) and op(float(value), float(bound))
        (passes if ok else failures).append(f"{name} {bound:g}")
    if p.ratio_to is not None and want.ratio_ref is not None:
        outcome = _ratio(want.ratio_ref, value, pw, p.ratio_to)
        (passes if outcome.passed else failures).append(outcome.message)
    verdict = "; ".join(failures) if failures else "; ".join(passes)
    return Outcome(
        not failures, f" = {shown}: {'fails ' if failures else ''}{verdict}", want.expected, value, deviation
    )


def _ratio(other_ref: SettingRef, value: Any, pw: PwInput, ratio: RatioTo) -> Outcome:
    other = effective_value(pw, other_ref.base)
    if not other.known or not is_finite_number(other.value) or other.value == 0 or not is_finite_number(value):
        return Outcome(False, f"ratio to {other_ref.base} cannot be computed ({other.describe()})")
    r = float(value) / float(other.value)
    ok = (ratio.min is None or r >= ratio.min) and (ratio.max is None or r <= ratio.max)
    bounds = " and ".join(
        s
        for s in (
            f">= {ratio.min:g}" if ratio.min is not None else "",
            f"<= {ratio.max:g}" if ratio.max is not None else "",
        )
        if s
    )
    return Outcome(ok, f"{r:.4g} × {other_ref.base} ({fmt(other.value)}), required {bounds}")


@register("qe.param", params=ParamParams, needs_reference=False, numeric=True, thresholds=("min", "max", "ratio_to"))
def param(ctx: CheckContext[ParamParams]) -> Outcome:
    """The value pw.x 6.7 will use for one setting (defaults and rules applied) meets the reference/bounds."""
    want = _wanted(ctx)
    pw = read_pw_input(ctx)
    outcomes = [(desc, _judge(want, effective_value(pw, key), pw, ctx)) for key, desc in want.ref.keys(pw)]
    if len(outcomes) == 1:
        desc, out = outcomes[0]
        return Outcome(out.passed, f"{desc}{out.message}", out.expected, out.actual, out.deviation)
    passed = all(o.passed for _, o in outcomes)
    devs = [o.deviation for _, o in outcomes if o.deviation is not None]
    return Outcome(
        passed,
        "; ".join(f"{d}{o.message}" for d, o in outcomes),
        want.expected,
        [o.actual for _, o in outcomes],
        max(devs) if devs and passed else None,
    )


class KPointsParams(_Params):
    """Parameters of qe.kpoints. Without any, a reference value gives the expected mesh ([8, 8, 8] or 'gamma')."""

    kind: Literal["automatic", "gamma", "list"] | None = Field(
        default=None, description="Required card type; list = explicit tpiba/crystal points"
    )
    mesh: tuple[int, int, int] | None = Field(default=None, description="Exact automatic mesh")
    min_mesh: tuple[int, int, int] | None = Field(default=None, description="Each mesh dimension at least this")
    max_mesh: tuple[int, int, int] | None = Field(default=None, description="Each mesh dimension at most this")
    shift: tuple[int, int, int] | None = Field(default=None, description="Offsets as pw.x writes them (0 or 1 each)")
    max_spacing: float | None = Field(
        default=None, gt=0, description="Largest |b_i|/n_i in Å⁻¹, 2π included (the VASP KSPACING convention)"
    )
    gamma_as_mesh: bool = Field(
        default=True, description="Count K_POINTS gamma as an unshifted 1×1×1 mesh in mesh checks"
    )


@register("qe.kpoints", params=KPointsParams, needs_reference=False, thresholds=("min_mesh", "max_mesh", "max_spacing"))
def kpoints(ctx: CheckContext[KPointsParams]) -> Outcome:
    """The K_POINTS card: type, Monkhorst-Pack mesh and shift, or a maximum spacing."""
    p = ctx.params
    expected_mesh = p.mesh
    expected_kind = p.kind
    if ctx.check.reference is not None:
        value = ctx.expected()
        if value == "gamma":
            expected_kind = "gamma"
        elif isinstance(value, list) and len(value) == 3 and all(isinstance(v, int) for v in value):
            expected_mesh = (value[0], value[1], value[2])
        else:
            raise GraderConfigError(f"check {ctx.check.id!r}: reference must be [n1, n2, n3] or 'gamma'")
    if all(x is None for x in (expected_kind, expected_mesh, p.min_mesh, p.max_mesh, p.shift, p.max_spacing)):
        raise GraderConfigError(f"check {ctx.check.id!r}: give a reference or kind/mesh/min_mesh/max_spacing")
    pw = read_pw_input(ctx)
    card_problems = [x.text() for x in pw.problems if "K_POINTS" in x.involves]
    if card_problems:
        return Outcome(False, f"{pw.name}: K_POINTS: " + "; ".join(card_problems[:3]))
    kp = pw.kpoints or KPoints("gamma", absent=True)
    kind = "list" if kp.kind not in ("automatic", "gamma") else kp.kind
    what = (
        "no K_POINTS card (pw.x uses the Γ point only)"
        if kp.absent
        else "K_POINTS gamma (Γ only, gamma tricks)"
        if kp.kind == "gamma"
        else f"K_POINTS automatic {' '.join(map(str, kp.mesh or ()))} {' '.join(map(str, kp.shift or ()))}"
        if kp.kind == "automatic"
        else f"K_POINTS {kp.kind} with {len(kp.points)} explicit points"
    )
    mesh, shift = kp.mesh, kp.shift
    if kp.kind == "gamma" and p.gamma_as_mesh:
        mesh, shift = (1, 1, 1), (0, 0, 0)
    failures: list[str] = []
    if expected_kind is not None and kind != expected_kind:
        failures.append(f"card type {kind}, required {expected_kind}")
    needs_mesh = any(x is not None for x in (expected_mesh, p.min_mesh, p.max_mesh, p.shift, p.max_spacing))
    if needs_mesh and mesh is None:
        failures.append("no Monkhorst-Pack mesh to compare")
    if mesh is not None:
        if expected_mesh is not None and tuple(mesh) != tuple(expected_mesh):
            failures.append(f"mesh {list(mesh)} differs from {list(expected_mesh)}")
        if p.min_mesh is not None and any(n < m for n, m in zip(mesh, p.min_mesh, strict=True)):
            failures.append(f"mesh {list(mesh)} coarser than the minimum {list(p.min_mesh)}")
        if p.max_mesh is not None and any(n > m for n, m in zip(mesh, p.max_mesh, strict=True)):
            failures.append(f"mesh {list(mesh)} finer than the maximum {list(p.max_mesh)}")
        if p.shift is not None and shift is not None and tuple(shift) != tuple(p.shift):
            failures.append(f"shift {list(shift)} differs from {list(p.shift)}")
        if p.max_spacing is not None:
            from pymatgen.core.lattice import Lattice

            recip = Lattice(pw_cell(pw)).reciprocal_lattice.abc
            spacing = [b / n for b, n in zip(recip, mesh, strict=True)]
            if max(spacing) > p.max_spacing:
                failures.append(
                    f"spacing {max(spacing):.3g} Å⁻¹ (|b|/n = {[round(s, 3) for s in spacing]}) "
                    f"exceeds {p.max_spacing:g}"
                )
    actual = {
        "kind": kp.kind,
        "mesh": list(kp.mesh) if kp.mesh else None,
        "shift": list(kp.shift) if kp.shift else None,
    }
    if failures:
        return Outcome(False, f"{what}: " + "; ".join(failures), expected_mesh or expected_kind, actual)
    return Outcome(True, f"{what}: meets the requirements", expected_mesh or expected_kind, actual)


class SpeciesParams(_Params):
    """Parameters of qe.species; a reference value, when named, is the list of elements."""

    elements: list[str] | None = Field(default=None, description="The set of elements the species must cover")
    functional: str | None = Field(
        default=None, description="Functional family every pseudopotential must be for (pbe, pbesol, lda ...)"
    )
    mass_rel_tol: float | None = Field(
        default=None, gt=0, description="Masses within this relative tolerance of the standard atomic weight"
    )
    pseudo_element_must_match: bool = Field(
        default=True, description="A pseudopotential file named for another element than its label fails"
    )


def _element_set(values: list[Any], where: str) -> set[str]:
    out = set()
    for v in values:
        if not isinstance(v, str) or not is_element(v.strip().capitalize()):
            raise GraderConfigError(f"{where}: {v!r} is not an element symbol")
        out.add(v.strip().capitalize())
    return out


@register("qe.species", params=SpeciesParams, needs_reference=False)
def species(ctx: CheckContext[SpeciesParams]) -> Outcome:
    """ATOMIC_SPECIES: elements, one pseudopotential per species, functional family, masses."""
    from pymatgen.core.periodic_table import Element

    p = ctx.params
    want = None
    if ctx.check.reference is not None:
        ref_value = ctx.expected()
        if not isinstance(ref_value, list):
            raise GraderConfigError(f"check {ctx.check.id!r}: reference must be a list of element symbols")
        want = _element_set(ref_value, f"check {ctx.check.id!r} reference")
    if p.elements is not None:
        want = _element_set(p.elements, f"check {ctx.check.id!r} elements")
    required_family = None
    if p.functional is not None:
        required_family = functional_family(p.functional)
        if required_family is None:
            raise GraderConfigError(f"check {ctx.check.id!r}: unknown functional {p.functional!r}")
    pw = read_pw_input(ctx)
    card_problems = [x.text() for x in pw.problems if "ATOMIC_SPECIES" in x.involves]
    if card_problems:
        return Outcome(False, f"{pw.name}: ATOMIC_SPECIES: " + "; ".join(card_problems[:3]))
    if not pw.species:
        return Outcome(False, f"{pw.name}: no species")
    failures: list[str] = []
    got: set[str] = set()
    described = []
    for sp in pw.species:
        by_label, by_pseudo = label_element(sp.label), pseudo_element(sp.pseudo)
        element = by_pseudo or by_label
        described.append(f"{sp.label}: {sp.pseudo}")
        if element is None:
            failures.append(f"species {sp.label!r}: no element from its label or pseudopotential {sp.pseudo!r}")
            continue
        got.add(element)
        if p.pseudo_element_must_match and by_label and by_pseudo and by_label != by_pseudo:
            failures.append(f"species {sp.label!r} ({by_label}) uses pseudopotential {sp.pseudo!r} of {by_pseudo}")
        standard = float(Element(element).atomic_mass)
        mass = sp.mass if sp.mass > 0 else standard  # pw.x replaces a mass <= 0 by the standard weight
        if p.mass_rel_tol is not None and abs(mass - standard) > p.mass_rel_tol * standard:
            failures.append(f"species {sp.label!r}: mass {mass:g} is not {element}'s {standard:.4g}")
    if want is not None and got != want:
        failures.append(f"elements {sorted(got)} differ from {sorted(want)}")
    if required_family is not None:
        failures.extend(_functional_failures(pw, required_family))
    summary = ", ".join(described)
    if failures:
        return Outcome(False, f"{summary}: " + "; ".join(failures), sorted(want) if want else None, sorted(got))
    return Outcome(True, f"{summary}: as required", sorted(want) if want else None, sorted(got))


def _functional_failures(pw: PwInput, family: str) -> list[str]:
    dft = Evaluator(pw.values).effective("system.input_dft")
    if dft.origin is Origin.SET:
        actual = functional_family(str(dft.value))
        if actual != family:
            return [f"input_dft = {dft.value!r} overrides the pseudopotentials and is not {family}"]
        return []
    failures = []
    for sp in pw.species:
        found = pseudo_functional(sp.pseudo)
        if found is None:
            failures.append(f"{sp.pseudo!r}: the file name does not say which functional it was made for")
        elif found != family:
            failures.append(f"{sp.pseudo!r} is a {found} pseudopotential, not {family}")
    return failures


class QeStructureParams(StructureParams):
    """Parameters of qe.structure: the structure tolerances plus the hidden reference."""

    reference_file: str = Field(description="Hidden reference beside reference.yaml: a pw.x input or structure file")
    reference_format: Literal["auto", "pw", "poscar", "cif", "extxyz"] = Field(
        default="auto", description="auto = pw.x input when the name ends in .in/.pwi, else by the structure family"
    )
    reference_magmom: list[float] | None = Field(
        default=None, description="Magnetic moments of the reference sites, when its file cannot carry them"
    )


def _reference_structure(ctx: CheckContext[QeStructureParams]) -> Structure:
    p = ctx.params
    kind = p.reference_format
    if kind == "auto":
        kind = "pw" if p.reference_file.lower().endswith((".in", ".pwi", ".pw")) else "auto"
    if kind == "pw":
        path = ctx.reference_file(p.reference_file)
        try:
            structure = pw_structure(parse_pw_input(path.read_text(encoding="utf-8"), p.reference_file))
        except SubmissionError as exc:
            raise GraderConfigError(f"check {ctx.check.id!r}: reference pw.x input: {exc}") from None
    else:
        structure = read_reference_structure(ctx, p.reference_file, kind)
    if p.reference_magmom is not None:
        if len(p.reference_magmom) != len(structure):
            raise GraderConfigError(
                f"check {ctx.check.id!r}: reference_magmom has {len(p.reference_magmom)} values for "
                f"{len(structure)} reference sites"
            )
        structure = structure.copy(site_properties={"magmom": list(p.reference_magmom)})
    return structure


@register("qe.structure", params=QeStructureParams, needs_reference=False)
def structure(ctx: CheckContext[QeStructureParams]) -> Outcome:
    """Cell and positions (ibrav/celldm in bohr or A in Å) and magnetic order match the reference crystal."""
    expected = _reference_structure(ctx)
    actual = pw_structure(read_pw_input(ctx))
    return compare_structures(actual, expected, ctx.params)
