"""Check types of the `vasp` family: VASP input files graded on the values VASP would use, without running VASP."""

from __future__ import annotations

import math
import operator
from pathlib import PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from cmb.grading._compare import show
from cmb.grading._registry import CheckContext, GraderConfigError, Outcome, register
from cmb.grading._structure import (
    StructureParams,
    collinear_moments,
    compare_structures,
    read_reference_structure,
)
from cmb.grading._submission import SubmissionError, is_finite_number
from cmb.grading.settings import Condition, Scalar
from cmb.grading.vasp._defaults import TagSpec
from cmb.grading.vasp._files import InputFiles, reference_side
from cmb.grading.vasp._kpoints import kpoint_set, mesh_str, reciprocal_lengths
from cmb.grading.vasp._resolver import IncarResolver, magnetic_moments
from cmb.grading.vasp._values import coerce, equals, fmt

# --------------------------------------------------------------------------------------------------- vasp.incar


class IncarParams(BaseModel):
    """Parameters of vasp.incar. Every rule given must hold; the reference value (if named) must match."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    any_of: list[Scalar | None] | None = Field(default=None, description="Allowed effective values (null = not set)")
    not_: list[Scalar | None] | None = Field(default=None, alias="not", description="Forbidden effective values")
    min: float | None = Field(default=None, description="Inclusive lower bound on a numeric value")
    max: float | None = Field(default=None, description="Inclusive upper bound on a numeric value")
    when: Condition | None = Field(
        default=None, description="Apply the check only when these conditions on other tags hold"
    )
    reference_incar: str | None = Field(
        default=None, description="Hidden reference INCAR whose effective value is the expected one"
    )
    reference_poscar: str = Field(default="POSCAR", description="Reference POSCAR (ions for per-ion defaults)")
    poscar: str = Field(default="POSCAR", description="POSCAR beside the INCAR (ion count for MAGMOM)")
    potcar: str | None = Field(default=None, description="POTCAR beside the INCAR; default: first found")

    @field_validator("not_", "any_of", mode="before")
    @classmethod
    def _listify(cls, v: Any) -> Any:
        return v if v is None or isinstance(v, list) else [v]

    @field_validator("when")
    @classmethod
    def _upper(cls, v: Condition | None) -> Condition | None:
        return None if v is None else {k.upper(): ops for k, ops in v.items()}


@register("vasp.incar", params=IncarParams, needs_reference=False, numeric=True, thresholds=("min", "max"))
def incar(ctx: CheckContext[IncarParams]) -> Outcome:
    """The effective value of an INCAR tag (VASP's defaults applied) against the reference and/or rules."""
    p, tag = ctx.params, (ctx.check.target.setting or "").upper()
    if not tag:
        raise GraderConfigError(f"check {ctx.check.id!r}: vasp.incar needs target.setting (the INCAR tag)")
    has_rule = p.any_of is not None or p.not_ is not None or p.min is not None or p.max is not None
    if not has_rule and ctx.check.reference is None and p.reference_incar is None:
        raise GraderConfigError(f"check {ctx.check.id!r}: give a reference, reference_incar, or a rule")
    files = InputFiles.of_submission(ctx.submission, ctx.check.target.file)
    name = PurePosixPath(ctx.check.target.file).name
    resolver = files.resolver(name, p.poscar, p.potcar)
    spec = resolver.spec(tag)

    if p.when:
        holds = resolver.matches(p.when)
        cond = ", ".join(resolver.effective(t).describe() for t in p.when)
        if holds is None:
            return Outcome(False, f"cannot tell whether the rule for {tag} applies: {cond}")
        if not holds:
            return Outcome(True, f"not applicable: the condition on {', '.join(p.when)} does not hold ({cond})")

    eff = resolver.effective(tag)
    if not eff.known:
        return Outcome(False, eff.describe(), None, None)
    if eff.value is None and spec is None:
        return Outcome(False, f"{eff.describe()}: cannot be verified; set {tag} explicitly", None, None)

    problems: list[str] = []
    passes: list[str] = []
    deviation: float | None = None
    wanted: dict[str, Any] = {}
    expected = _expected_incar_value(ctx, tag, spec)
    tol = ctx.check.effective_tolerance
    if expected is not _NO_VALUE:
        wanted["reference"] = expected
        out = equals(spec, eff.value, expected, tol)
        deviation = out.deviation
        (passes if out.passed else problems).append(
            out.message
            if out.deviation is not None
            else f"{'matches' if out.passed else 'differs from'} the reference {fmt(expected)}"
        )
    if p.any_of is not None:
        allowed = [coerce(spec, v) for v in p.any_of]
        wanted["any_of"] = allowed
        ok = any(equals(spec, eff.value, a, tol).passed for a in allowed)
        (passes if ok else problems).append(f"{'is' if ok else 'is not'} one of {{{', '.join(map(fmt, allowed))}}}")
    if p.not_ is not None:
        forbidden = [coerce(spec, v) for v in p.not_]
        wanted["not"] = forbidden
        hits = [f for f in forbidden if equals(spec, eff.value, f, tol).passed]
        ok = not hits
        (passes if ok else problems).append(
            f"avoids {{{', '.join(map(fmt, forbidden))}}}" if ok else f"must not be {fmt(hits[0])}"
        )
    for bound, name_, cmp in ((p.min, "at least", operator.ge), (p.max, "at most", operator.le)):
        if bound is None:
            continue
        wanted["min" if name_ == "at least" else "max"] = bound
        v = eff.value
        ok = is_finite_number(v) and cmp(float(v), bound)
        (passes if ok else problems).append(f"{'is' if ok else 'is not'} {name_} {bound:g}")
    verdict = "; ".join(problems) if problems else "; ".join(passes)
    shown = wanted["reference"] if list(wanted) == ["reference"] else wanted
    return Outcome(not problems, f"{eff.describe()}: {verdict}", shown, show(eff.value), deviation)


_NO_VALUE: Any = object()


def _expected_incar_value(ctx: CheckContext[IncarParams], tag: str, spec: TagSpec | None) -> Any:
    if ctx.check.reference is not None:
        value = ctx.expected()
        return coerce(spec, value) if spec is not None else value
    if ctx.params.reference_incar is None:
        return _NO_VALUE
    ref = InputFiles.of_reference(ctx)
    eff = reference_side(
        ctx, lambda: ref.resolver(ctx.params.reference_incar or "INCAR", ctx.params.reference_poscar).effective(tag)
    )
    if not eff.known:
        raise GraderConfigError(f"check {ctx.check.id!r}: reference INCAR: {eff.describe()}")
    return eff.value


# --------------------------------------------------------------------------------------------------- vasp.kpoints


class KpointsParams(BaseModel):
    """Parameters of vasp.kpoints; at least one criterion (or a reference mesh) is needed."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    mesh: list[int] | None = Field(default=None, min_length=3, max_length=3, description="Exact subdivisions")
    gamma_centered: bool | None = Field(
        default=None, description="True: the mesh must contain Γ (needed for hexagonal cells)"
    )
    min_kppra: float | None = Field(
        default=None, gt=0, description="Minimum k points per reciprocal atom (N1·N2·N3 × ions)"
    )
    max_spacing: float | None = Field(
        default=None, gt=0, description="Maximum spacing |b_i|·2π/N_i between k points, in 1/Å"
    )
    incar: str = Field(default="INCAR", description="INCAR beside KPOINTS (KSPACING when KPOINTS is absent)")
    poscar: str = Field(default="POSCAR", description="POSCAR beside KPOINTS (lattice and ion count)")


@register("vasp.kpoints", params=KpointsParams, needs_reference=False, thresholds=("min_kppra", "max_spacing"))
def kpoints(ctx: CheckContext[KpointsParams]) -> Outcome:
    """The k-point sampling VASP would use (KPOINTS, or KSPACING without one): mesh, centring and density."""
    p = ctx.params
    want_mesh = list(p.mesh) if p.mesh is not None else None
    if ctx.check.reference is not None:
        ref = ctx.expected()
        if not (isinstance(ref, list) and len(ref) == 3 and all(isinstance(n, int) for n in ref)):
            raise GraderConfigError(f"check {ctx.check.id!r}: reference mesh must be three integers")
        want_mesh = ref
    if want_mesh is None and p.gamma_centered is None and p.min_kppra is None and p.max_spacing is None:
        raise GraderConfigError(f"check {ctx.check.id!r}: give a mesh, gamma_centered, min_kppra or max_spacing")
    files = InputFiles.of_submission(ctx.submission, ctx.check.target.file)
    kset, structure = kpoint_set(files, PurePosixPath(ctx.check.target.file).name, p.incar, p.poscar)
    problems: list[str] = []
    notes: list[str] = []
    needs_mesh = want_mesh is not None or p.min_kppra is not None or p.max_spacing is not None
    if needs_mesh and kset.mesh is None:
        problems.append(f"{kset.description} has no regular mesh to measure; use an automatic mesh")
    if p.gamma_centered is not None:
        if kset.gamma_included is None:
            problems.append("Γ-centring cannot be judged for a band-structure path")
        elif kset.gamma_included != p.gamma_centered:
            problems.append("the mesh does not contain Γ" if p.gamma_centered else "the mesh contains Γ")
        else:
            notes.append("contains Γ" if kset.gamma_included else "avoids Γ")
    if kset.mesh is not None:
        mesh = kset.mesh
        if want_mesh is not None:
            if list(mesh) != want_mesh:
                problems.append(f"mesh {mesh_str(mesh)} differs from the reference {mesh_str(tuple(want_mesh))}")
            else:
                notes.append("mesh matches")
        if p.min_kppra is not None or p.max_spacing is not None:
            if structure is None:
                structure = files.structure(p.poscar)
            if p.min_kppra is not None:
                kppra = mesh[0] * mesh[1] * mesh[2] * len(structure)
                ok = kppra >= p.min_kppra
                (notes if ok else problems).append(
                    f"{kppra} k points per reciprocal atom ({'≥' if ok else '<'} {p.min_kppra:g})"
                )
            if p.max_spacing is not None:
                spacing = max(
                    b * 2 * math.pi / n for b, n in zip(reciprocal_lengths(structure.lattice), mesh, strict=True)
                )
                ok = spacing <= p.max_spacing + 1e-9
                (notes if ok else problems).append(
                    f"largest spacing {spacing:.4g} 1/Å ({'≤' if ok else '>'} {p.max_spacing:g})"
                )
    detail = "; ".join(problems) if problems else "; ".join(notes)
    expected = {
        "mesh": want_mesh,
        "gamma_centered": p.gamma_centered,
        "min_kppra": p.min_kppra,
        "max_spacing": p.max_spacing,
    }
    return Outcome(
        not problems,
        f"{kset.description}: {detail}",
        {k: v for k, v in expected.items() if v is not None},
        list(kset.mesh) if kset.mesh else kset.description,
    )


# --------------------------------------------------------------------------------------------------- vasp.poscar


class PoscarParams(StructureParams):
    """Parameters of vasp.poscar: structure tolerances plus where the magnetic moments come from."""

    reference_file: str = Field(description="Hidden reference POSCAR (or CIF / extended XYZ)")
    reference_incar: str | None = Field(
        default=None, description="Hidden reference INCAR whose effective MAGMOM/ISPIN give the reference order"
    )
    reference_magmom: list[float] | None = Field(
        default=None, description="Reference moments per site (instead of reference_incar)"
    )
    incar: str = Field(default="INCAR", description="INCAR beside the POSCAR (effective MAGMOM and ISPIN)")


@register("vasp.poscar", params=PoscarParams, needs_reference=False)
def poscar(ctx: CheckContext[PoscarParams]) -> Outcome:
    """POSCAR is the reference crystal, with the magnetic order of the effective INCAR MAGMOM."""
    p = ctx.params
    expected = read_reference_structure(ctx, p.reference_file)
    if p.reference_magmom is not None:
        if len(p.reference_magmom) != len(expected):
            raise GraderConfigError(f"check {ctx.check.id!r}: reference_magmom length != reference sites")
        expected = expected.copy(site_properties={"magmom": list(p.reference_magmom)})
    elif p.reference_incar is not None:
        ref = InputFiles.of_reference(ctx)
        ref_incar = p.reference_incar
        resolver = reference_side(
            ctx, lambda: IncarResolver(ref.incar(ref_incar), nions=lambda: len(expected), potcar=lambda: None)
        )
        moments = reference_side(ctx, lambda: magnetic_moments(resolver))
        expected = expected.copy(site_properties={"magmom": moments})
    files = InputFiles.of_submission(ctx.submission, ctx.check.target.file)
    name = PurePosixPath(ctx.check.target.file).name
    actual = files.structure(name)
    try:
        reference_moments = collinear_moments(list(expected.site_properties.get("magmom") or []))
    except ValueError as exc:
        raise GraderConfigError(f"check {ctx.check.id!r}: reference moments: {exc}") from None
    needs_moments = p.magnetic and any(abs(m) > p.magmom_threshold for m in reference_moments)
    note = ""
    if needs_moments:
        resolver = files.resolver(p.incar, name)
        moments = magnetic_moments(resolver)
        actual = actual.copy(site_properties={"magmom": moments})
        note = f" [{resolver.effective('ISPIN').describe()}; MAGMOM from {resolver.effective('MAGMOM').note}]"
    out = compare_structures(actual, expected, p)
    return Outcome(out.passed, out.message + note, out.expected, out.actual, out.deviation)


# --------------------------------------------------------------------------------------------------- vasp.potcar


class PotcarParams(BaseModel):
    """Parameters of vasp.potcar: exact symbols (or the reference value), and/or allowed symbols per element."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    symbols: list[str] | None = Field(default=None, description="Expected symbols in POSCAR species order")
    allowed: dict[str, list[str]] | None = Field(
        default=None, description="Element -> acceptable POTCAR symbols, e.g. {Ni: [Ni_pv, Ni_sv]}"
    )
    poscar: str = Field(default="POSCAR", description="POSCAR beside the POTCAR (species order)")


@register("vasp.potcar", params=PotcarParams, needs_reference=False)
def potcar(ctx: CheckContext[PotcarParams]) -> Outcome:
    """POTCAR datasets by symbol (from POTCAR headers, POTCAR.spec or potcar.json), in POSCAR species order."""
    p = ctx.params
    want = p.symbols
    if ctx.check.reference is not None:
        ref = ctx.expected()
        if not (isinstance(ref, list) and all(isinstance(s, str) for s in ref)):
            raise GraderConfigError(f"check {ctx.check.id!r}: reference must be a list of POTCAR symbols")
        want = ref
    if want is None and p.allowed is None:
        raise GraderConfigError(f"check {ctx.check.id!r}: give symbols, allowed, or a reference list")
    files = InputFiles.of_submission(ctx.submission, ctx.check.target.file)
    target = PurePosixPath(ctx.check.target.file).name
    names = [target, *(n for n in InputFiles.POTCAR_NAMES if n != target)]
    info = next((files.potcar(n) for n in names if files.exists(n)), None)
    if info is None:
        raise SubmissionError(f"no {' / '.join(files.path(n) for n in names)} in the submission")
    got = info.symbols
    species = files.poscar_species(p.poscar)
    problems = []
    if species is not None and info.elements != species:
        problems.append(f"datasets for {' '.join(info.elements)} do not follow the POSCAR species {' '.join(species)}")
    if want is not None and [s.lower() for s in got] != [s.lower() for s in want]:
        problems.append(f"symbols differ from the reference {' '.join(want)}")
    if p.allowed is not None:
        for sym, el in zip(got, info.elements, strict=True):
            options = p.allowed.get(el)
            if options is not None and sym.lower() not in {o.lower() for o in options}:
                problems.append(f"{sym} is not an accepted {el} dataset ({', '.join(options)})")
    summary = f"{info.source}: {' '.join(got)}"
    if problems:
        return Outcome(False, f"{summary}: {'; '.join(problems)}", want or p.allowed, got)
    return Outcome(True, f"{summary}: in POSCAR species order and accepted", want or p.allowed, got)
