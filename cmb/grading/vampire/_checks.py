"""Check family `vampire`: a VAMPIRE deck (input, material and unit-cell files) graded on what VAMPIRE would do.

vampire.deck         the three files read as VAMPIRE reads them, with the errors VAMPIRE would stop on
vampire.setting      the effective value of a main-input setting (defaults and units applied)
vampire.material     the effective value of a material setting on every material that owns atoms
vampire.cell         the crystal VAMPIRE builds: the reference cell (or a supercell, axis relabelling or origin shift)
vampire.sublattices  the magnetic order VAMPIRE starts from: materials per atom (unit-cell categories applied),
                     their initial spins, the parallel/antiparallel neighbours of every atom shell by shell
vampire.exchange     the exchange each atom feels from each neighbour class, summed, in joules
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from cmb.grading._registry import CheckContext, GraderConfigError, Outcome, register
from cmb.grading.vampire._reader import (
    Deck,
    Effective,
    UnitCell,
    VampireInputError,
    defaults,
    neighbours,
    read_deck,
)

Scalar = str | float | int | bool


def _deck(ctx: CheckContext[Any]) -> Deck:
    return read_deck(ctx.submission.read_text, ctx.check.target.file)


def _fail(exc: VampireInputError) -> Outcome:
    return Outcome(False, str(exc))


def _within(actual: float, expected: float, ctx: CheckContext[Any]) -> tuple[bool, float]:
    tol = ctx.check.effective_tolerance
    width = tol.width * abs(expected) if tol.is_relative else tol.width
    dev = abs(actual - expected) / width if width > 0 else (0.0 if actual == expected else math.inf)
    return dev <= 1.0 + 1e-12, dev


# ------------------------------------------------------------------------------------------------ vampire.deck


class DeckParams(BaseModel):
    """Parameters of vampire.deck."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    require_unit_cell_file: bool = Field(default=True, description="A unit-cell file must be named and readable")


@register("vampire.deck", params=DeckParams, needs_reference=False)
def deck(ctx: CheckContext[DeckParams]) -> Outcome:
    """The input, material and unit-cell files exist and VAMPIRE would read them without stopping."""
    try:
        d = _deck(ctx)
        if d.material_name is None:
            return Outcome(False, f"{ctx.check.target.file}: no material:file, so VAMPIRE has no materials")
        if d.ucf is None:
            if ctx.params.require_unit_cell_file:
                return Outcome(False, f"{ctx.check.target.file}: no material:unit-cell-file")
            return Outcome(True, f"{d.num_materials} materials; built-in crystal")
        shape = d.ucf.shape
        if not np.allclose(np.abs(shape), np.eye(3), atol=1e-4):
            return Outcome(
                False,
                f"{d.ucf_name}: non-orthogonal shape vectors; VAMPIRE builds the crystal from the three cell sizes "
                "along x, y and z only, so this cell would be built wrongly",
            )
        for m in range(1, d.num_materials + 1):  # units and ranges of every material value used below
            d.material(m, "atomic-spin-moment")
            d.material(m, "initial-spin-direction")
        d.spins()
    except VampireInputError as exc:
        return _fail(exc)
    return Outcome(
        True,
        f"{d.input_name}, {d.material_name} ({d.num_materials} materials) and {d.ucf_name} "
        f"({len(d.ucf.atoms)} atoms, {len(d.ucf.interactions)} {d.ucf.exchange_type} interactions) are readable",
    )


# ------------------------------------------------------------------------------------------------ vampire.setting


class SettingParams(BaseModel):
    """Parameters of vampire.setting: every rule given must hold on the effective value."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    any_of: list[Scalar] | None = Field(default=None, description="Allowed effective values")
    min: float | None = Field(default=None, description="Inclusive lower bound (in `unit`)")
    max: float | None = Field(default=None, description="Inclusive upper bound (in `unit`)")
    unit: str = Field(default="", description="Unit the bounds are in (a VAMPIRE unit of the setting's type)")


def _in_unit(eff: Effective, unit: str, unit_type: str) -> float:
    table = defaults()["units"].get(unit_type, {"": 1.0})
    if unit not in table:
        raise GraderConfigError(f"unit {unit!r} is not a VAMPIRE {unit_type} unit")
    return float(eff.value) / float(table[unit])


def _judge(eff: Effective, p: SettingParams, unit_type: str) -> tuple[bool, str, Any]:
    problems: list[str] = []
    passes: list[str] = []
    if p.any_of is not None:
        ok = eff.value in p.any_of or (
            isinstance(eff.value, str) and eff.value.lower() in [str(a).lower() for a in p.any_of]
        )
        (passes if ok else problems).append(f"{'is' if ok else 'is not'} one of {p.any_of}")
    shown: Any = eff.value
    for bound, text, sign in ((p.min, "at least", 1), (p.max, "at most", -1)):
        if bound is None:
            continue
        if isinstance(eff.value, bool) or not isinstance(eff.value, int | float):
            problems.append(f"is not a number, so not {text} {bound:g}")
            continue
        value = _in_unit(eff, p.unit, unit_type)
        shown = value
        ok = sign * (value - bound) >= -1e-12 * max(1.0, abs(bound))
        (passes if ok else problems).append(f"{value:g} {p.unit} is {'' if ok else 'not '}{text} {bound:g}")
    return not problems, "; ".join(problems or passes), shown


@register("vampire.setting", params=SettingParams, needs_reference=False, numeric=True, thresholds=("min", "max"))
def setting(ctx: CheckContext[SettingParams]) -> Outcome:
    """The effective value of a main-input setting (the last statement, or VAMPIRE's default) meets the rules."""
    name = ctx.check.target.setting
    if not name:
        raise GraderConfigError(f"check {ctx.check.id!r}: vampire.setting needs target.setting (keyword:subkeyword)")
    p = ctx.params
    if p.any_of is None and p.min is None and p.max is None:
        raise GraderConfigError(f"check {ctx.check.id!r}: give any_of, min or max")
    try:
        eff = _deck(ctx).setting(name)
    except VampireInputError as exc:
        return _fail(exc)
    unit_type = defaults()["input"].get(name, {}).get("unit_type", "none")
    ok, verdict, shown = _judge(eff, p, unit_type)
    return Outcome(ok, f"{eff.describe()}: {verdict}", {k: v for k, v in p.model_dump().items() if v}, shown)


# ------------------------------------------------------------------------------------------------ vampire.material


class MaterialParams(SettingParams):
    """Parameters of vampire.material: the rules (or the reference value) hold on every material with atoms."""

    reference_unit: str = Field(default="", description="Unit of the reference value (a VAMPIRE unit)")


@register("vampire.material", params=MaterialParams, numeric=True, needs_reference=False, thresholds=("min", "max"))
def material(ctx: CheckContext[MaterialParams]) -> Outcome:
    """A material setting on every material that owns atoms of the crystal, against rules or the reference."""
    word = ctx.check.target.setting
    if not word:
        raise GraderConfigError(f"check {ctx.check.id!r}: vampire.material needs target.setting (a material keyword)")
    p = ctx.params
    try:
        d = _deck(ctx)
        _, mats, _ = d.spins()
        effs = [d.material(m, word) for m in sorted(set(mats))]
    except VampireInputError as exc:
        return _fail(exc)
    unit_type = defaults()["material"].get(word, {}).get("unit_type", "none")
    bad, shown = [], []
    for eff in effs:
        if ctx.check.reference is not None:
            expected = float(ctx.expected())
            value = _in_unit(eff, p.reference_unit, unit_type)
            ok, dev = _within(value, expected, ctx)
            shown.append(value)
            if not ok:
                bad.append(f"{eff.name} = {value:g} {p.reference_unit} ({eff.origin}), reference {expected:g}")
        if p.any_of is not None or p.min is not None or p.max is not None:
            ok, verdict, value = _judge(eff, p, unit_type)
            if ctx.check.reference is None:
                shown.append(value)
            if not ok:
                bad.append(f"{eff.describe()}: {verdict}")
    if ctx.check.reference is None and p.any_of is None and p.min is None and p.max is None:
        raise GraderConfigError(f"check {ctx.check.id!r}: give a reference or a rule")
    names = ", ".join(e.name for e in effs)
    if bad:
        return Outcome(False, "; ".join(bad), None, shown)
    return Outcome(True, f"{names}: all within the rules", None, shown)


# ------------------------------------------------------------------------------------------------ vampire.cell


class CellParams(BaseModel):
    """Parameters of vampire.cell: the reference is the three cell lengths (angstrom) of the reference cell."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    positions: list[tuple[float, float, float]] = Field(
        min_length=1, description="Fractional positions of the atoms of the reference cell"
    )
    position_tol: float = Field(default=0.05, gt=0, description="Largest misplacement of an atom, in angstrom")


def _same_sites(cell: UnitCell, perm: tuple[int, ...], reps: np.ndarray, p: CellParams) -> bool:
    """Every unit-cell atom sits on a reference site (after one common shift), and the counts match."""
    ref = np.asarray(p.positions)[:, list(perm)]  # reference sites in the submission's axis order
    sites = np.array([(ref + offset) / reps for offset in itertools.product(*(range(int(n)) for n in reps))])
    sites = sites.reshape(-1, 3)
    got = np.array([a.frac for a in cell.atoms])
    if len(got) != len(sites):
        return False
    size = np.asarray(cell.size)
    for shift in got[0] - sites:
        d = (got[:, None, :] - sites[None, :, :] - shift + 0.5) % 1.0 - 0.5
        dist = np.linalg.norm(d * size, axis=2)
        if (dist.min(axis=1) <= p.position_tol).all() and len(set(dist.argmin(axis=1))) == len(got):
            return True
    return False


@register("vampire.cell", params=CellParams, numeric=True)
def crystal(ctx: CheckContext[CellParams]) -> Outcome:
    """The unit cell is the reference crystal: its lengths (or integer multiples), atoms on the reference sites.

    Any relabelling of the axes, supercell or origin shift of the same crystal passes.
    """
    expected = ctx.expected()
    if not isinstance(expected, list) or len(expected) != 3:
        raise GraderConfigError(f"check {ctx.check.id!r}: the reference needs the three cell lengths")
    try:
        d = _deck(ctx)
    except VampireInputError as exc:
        return _fail(exc)
    if d.ucf is None:
        return Outcome(False, f"{ctx.check.target.file}: no unit-cell file, so not the reference crystal")
    size = np.asarray(d.ucf.size)
    worst, near = math.inf, ""
    for perm in itertools.permutations(range(3)):
        lengths = np.asarray(expected, dtype=float)[list(perm)]
        reps = np.maximum(np.rint(size / lengths), 1)
        devs = [_within(float(s), float(n * ref), ctx)[1] for s, n, ref in zip(size, reps, lengths, strict=True)]
        multiple = f"{'x'.join(str(int(n)) for n in reps)} of the reference cell"
        if max(devs) < worst:
            worst, near = max(devs), multiple
        if max(devs) <= 1.0 + 1e-12 and _same_sites(d.ucf, perm, reps, ctx.params):
            return Outcome(
                True, f"{d.ucf_name}: {multiple}, every atom on a reference site", expected, list(size), worst
            )
    if worst <= 1.0 + 1e-12:
        return Outcome(
            False,
            f"{d.ucf_name}: the cell lengths fit ({near}) but the atoms are not on the reference sites",
            expected,
            list(size),
            worst,
        )
    return Outcome(
        False,
        f"{d.ucf_name}: cell {size.round(4).tolist()} A is not the reference cell (nearest: {near})",
        expected,
        list(size),
        worst,
    )


# ------------------------------------------------------------------------------------------------ vampire.sublattices


class Shell(BaseModel):
    """One neighbour shell of the reference order: its distance and how many neighbours are (anti)parallel."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    r: float = Field(gt=0, description="Shell radius in angstrom")
    parallel: int = Field(ge=0, description="Neighbours with the same spin")
    antiparallel: int = Field(ge=0, description="Neighbours with the opposite spin")


class SublatticeParams(BaseModel):
    """Parameters of vampire.sublattices."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    shells: list[Shell] = Field(min_length=1, description="The reference order, shell by shell")
    r_tol: float = Field(default=0.04, gt=0, lt=0.5, description="Relative width of a shell")


def _classify(d: Deck, p: SublatticeParams) -> tuple[list[np.ndarray], list[int], str, dict[tuple[int, int], int]]:
    spins, mats, note = d.spins()
    assert d.ucf is not None
    axis = spins[0]
    for k, s in enumerate(spins):
        if abs(abs(float(np.dot(s, axis))) - 1.0) > 1e-3:
            raise VampireInputError(f"atom {k} starts non-collinear with atom 0: only collinear orders are graded")
    r_max = max(s.r for s in p.shells) * (1 + p.r_tol)
    counts: dict[tuple[int, int], int] = {}
    for pair in neighbours(d.ucf, r_max):
        shell = next((k for k, s in enumerate(p.shells) if abs(pair.r - s.r) <= p.r_tol * s.r), None)
        if shell is None:
            continue
        same = float(np.dot(spins[pair.i], spins[pair.j])) > 0
        key = (pair.i, 2 * shell + (0 if same else 1))
        counts[key] = counts.get(key, 0) + 1
    return spins, mats, note, counts


@register("vampire.sublattices", params=SublatticeParams, needs_reference=False)
def sublattices(ctx: CheckContext[SublatticeParams]) -> Outcome:
    """Every atom starts with the reference's (anti)parallel neighbours shell by shell; no material mixes spins.

    Each sublattice needs its own material, so that its magnetisation can be followed.
    """
    p = ctx.params
    try:
        d = _deck(ctx)
        spins, mats, note, counts = _classify(d, p)
    except VampireInputError as exc:
        return _fail(exc)
    assert d.ucf is not None
    axis = spins[0]
    signs = [1 if float(np.dot(s, axis)) > 0 else -1 for s in spins]
    mixed = sorted({m for m in mats if {signs[k] for k in range(len(mats)) if mats[k] == m} == {1, -1}})
    want = [(s.parallel, s.antiparallel) for s in p.shells]
    wrong = []
    for atom in range(len(d.ucf.atoms)):
        got = [(counts.get((atom, 2 * k), 0), counts.get((atom, 2 * k + 1), 0)) for k in range(len(p.shells))]
        if got != want:
            wrong.append((atom, got))
    ups = sum(1 for s in signs if s > 0)
    summary = f"{ups} up / {len(signs) - ups} down on {len(set(mats))} material(s); {note}"
    if wrong:
        atom, got = wrong[0]
        detail = ", ".join(
            f"shell {s.r:g} A: {g[0]} parallel / {g[1]} antiparallel (reference {s.parallel} / {s.antiparallel})"
            for s, g in zip(p.shells, got, strict=True)
        )
        return Outcome(False, f"{summary}; atom {atom}: {detail}", want, got)
    if mixed:
        return Outcome(
            False,
            f"{summary}; material(s) {mixed} hold both spin directions, so their magnetisation vanishes in the "
            "ordered state: each sublattice needs its own material",
            want,
            want,
        )
    return Outcome(True, f"{summary}; every atom has the reference neighbours shell by shell", want, want)


# ------------------------------------------------------------------------------------------------ vampire.exchange


class ExchangeParams(SublatticeParams):
    """Parameters of vampire.exchange: the reference is one sum per shell and spin relation, in joules."""


@register("vampire.exchange", params=ExchangeParams, numeric=True)
def exchange(ctx: CheckContext[ExchangeParams]) -> Outcome:
    """Per atom, the exchange summed over its parallel and its antiparallel neighbours of each shell.

    VAMPIRE's sign (positive is ferromagnetic) and unit (joules); the sums, averaged over the atoms, are
    compared with the reference.
    """
    p = ctx.params
    expected = ctx.expected()
    if not isinstance(expected, list) or len(expected) != 2 * len(p.shells):
        raise GraderConfigError(f"check {ctx.check.id!r}: the reference needs two sums per shell")
    try:
        d = _deck(ctx)
        spins, mats, _, _ = _classify(d, p)
    except VampireInputError as exc:
        return _fail(exc)
    assert d.ucf is not None
    cell = d.ucf
    n = len(cell.atoms)
    sums = np.zeros((n, 2 * len(p.shells)))
    stray = 0
    normalised = cell.exchange_type.startswith("normalised-")
    try:
        for x in cell.interactions:
            r = float(np.linalg.norm(cell.cart(cell.atoms[x.j], x.cell) - cell.cart(cell.atoms[x.i])))
            shell = next((k for k, s in enumerate(p.shells) if abs(r - s.r) <= p.r_tol * s.r), None)
            if shell is None:
                stray += 1
                continue
            value = x.isotropic
            if normalised:
                value *= d.exchange_matrix(mats[x.i], mats[x.j])
            same = float(np.dot(spins[x.i], spins[x.j])) > 0
            sums[x.i, 2 * shell + (0 if same else 1)] += value
    except VampireInputError as exc:
        return _fail(exc)
    mean = sums.mean(axis=0)
    spread = np.abs(sums - mean).max(axis=0)
    problems, worst = [], 0.0
    labels = [f"{s.r:g} A {rel}" for s in p.shells for rel in ("parallel", "antiparallel")]
    for k, (got, ref) in enumerate(zip(mean, expected, strict=True)):
        ok, dev = _within(float(got), float(ref), ctx)
        worst = max(worst, dev)
        if not ok:
            problems.append(f"{labels[k]}: {got:.4g} J vs reference {ref:.4g} J")
        if spread[k] > 0.02 * max(abs(float(ref)), 1e-30):
            problems.append(f"{labels[k]}: the atoms differ by up to {spread[k]:.3g} J (missing or uneven pairs)")
    extra = f"; {stray} interactions beyond the graded shells (not graded)" if stray else ""
    actual = [float(v) for v in mean]
    if problems:
        return Outcome(False, "; ".join(problems) + extra, expected, actual, worst)
    return Outcome(True, f"every shell and spin relation within tolerance{extra}", expected, actual, worst)
