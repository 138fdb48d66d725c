"""Check family `structure`: crystal structures compared as crystals, collinear magnetic order included.

Two structures match when they describe the same crystal whatever the cell setting (primitive or supercell,
shifted origin, permuted atoms): same composition, the same volume per atom and primitive lattice within
tight tolerances, and equivalent atomic positions (pymatgen's StructureMatcher with `scale=False`; its
defaults would accept a 10% volume error and ignore magnetic order). When the reference carries a `magmom`
site property, the sign pattern of the moments must match too, up to a global spin flip: every site is
decorated with the sign of its moment and the decorated structures are matched again, so a ferromagnetic
answer to an antiferromagnetic reference fails, and so does a cell too small to hold the reference order.

`compare_structures` and `parse_structure` are reused by other families (vasp.poscar).
"""

from __future__ import annotations

import io
import math
import warnings
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from cmb.grading._compare import compare_number
from cmb.grading._registry import CheckContext, GraderConfigError, Outcome, register
from cmb.grading._submission import SubmissionError

if TYPE_CHECKING:  # pymatgen is imported where a structure is built: a process that grades none never loads it
    from pymatgen.analysis.structure_matcher import StructureMatcher
    from pymatgen.core.lattice import Lattice
    from pymatgen.core.structure import Structure

# Matching cost grows quickly with cell size; a submission beyond this is refused rather than left to run long.
MAX_SITES = 1000
# Bounds the number of candidate lattice mappings examined (high-symmetry lattices have many).
_MAX_MAPPINGS = 2000
_COLLINEAR_COS = 0.99
# Distance tolerance (Å) for the translations that reduce a cell to its primitive one. Small, because the
# reduced vectors inherit errors of this size when they cannot be rebuilt exactly from the given lattice.
_REDUCE_SYMPREC = 0.01

StructureFormat = Literal["auto", "poscar", "cif", "extxyz"]
LATTICE_PARAMETERS = ("a", "b", "c", "alpha", "beta", "gamma")
_UNITS = {"a": " Å", "b": " Å", "c": " Å", "alpha": "°", "beta": "°", "gamma": "°"}


class StructureParams(BaseModel):
    """Tolerances of a structure comparison (tight by default; pymatgen's defaults are far looser)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    ltol: float = Field(default=0.02, gt=0, le=0.5, description="StructureMatcher fractional length tolerance")
    stol: float = Field(
        default=0.05, gt=0, le=1.0, description="StructureMatcher site tolerance, in units of (V/N)^(1/3)"
    )
    angle_tol: float = Field(default=1.0, gt=0, le=30, description="Angle tolerance in degrees")
    lattice_rel_tol: float = Field(
        default=0.01,
        gt=0,
        le=0.5,
        description="Relative tolerance on primitive lattice lengths and on the volume per atom, checked apart",
    )
    magnetic: bool = Field(
        default=True, description="Compare the collinear magnetic order when the reference has magnetic moments"
    )
    magmom_threshold: float = Field(
        default=0.5, ge=0, description="Moments at or below this (μB) count as non-magnetic"
    )


class StructureMatchParams(StructureParams):
    """Parameters of structure.match."""

    reference_file: str = Field(description="Hidden reference structure file beside reference.yaml")
    reference_magmom: list[float] | None = Field(
        default=None, description="Magnetic moments of the reference sites, when its file cannot carry them"
    )
    format: StructureFormat = Field(default="auto", description="Submission file format; auto = by file name")


class LatticeParams(BaseModel):
    """Parameters of structure.lattice."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    reference_file: str | None = Field(
        default=None, description="Reference structure file; used when the check names no reference value"
    )
    parameters: list[Literal["a", "b", "c", "alpha", "beta", "gamma"]] = Field(
        default=["a", "b", "c", "alpha", "beta", "gamma"],
        min_length=1,
        description="Which conventional-cell parameters to compare",
    )
    symprec: float = Field(default=0.01, gt=0, le=0.5, description="spglib distance tolerance (Å)")
    format: StructureFormat = Field(default="auto", description="Submission file format; auto = by file name")


# --------------------------------------------------------------------------------------------------
# Parsing: always from text, never from a path in the submission.


def structure_format(name: str, fmt: StructureFormat = "auto") -> StructureFormat:
    """The format of a structure file, from its name when `fmt` is auto."""
    if fmt != "auto":
        return fmt
    lower = PurePosixPath(name).name.lower()
    if lower.endswith((".cif", ".mcif")):
        return "cif"
    if lower.endswith((".xyz", ".extxyz")):
        return "extxyz"
    return "poscar"


def parse_structure(text: str, name: str, fmt: StructureFormat = "auto", species: list[str] | None = None) -> Structure:
    """Parse POSCAR/CONTCAR, CIF or extended-XYZ text; any problem is a SubmissionError naming the file.

    `species` names the atom types of a VASP-4 POSCAR, which has no species line (VASP takes them from the
    POTCAR); without it such a file is refused rather than given invented element names.
    """
    kind = structure_format(name, fmt)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            structure = _PARSERS[kind](text, name, species)
    except SubmissionError:
        raise
    except Exception as exc:  # parsers of three libraries raise many types on malformed text
        raise SubmissionError(f"{name}: not a readable {kind} structure ({type(exc).__name__}: {exc})"[:400]) from None
    if len(structure) == 0:
        raise SubmissionError(f"{name}: the structure has no atoms")
    if len(structure) > MAX_SITES:
        raise SubmissionError(f"{name}: {len(structure)} sites is over the {MAX_SITES}-site limit of this grader")
    problem = unusable_cell(structure)
    if problem is not None:
        raise SubmissionError(f"{name}: {problem}")
    return structure


def unusable_cell(structure: Structure) -> str | None:
    """Why a cell cannot be compared (spglib crashes the process on non-finite numbers), or None."""
    if not np.all(np.isfinite(structure.lattice.matrix)) or not np.all(np.isfinite(structure.frac_coords)):
        return "non-finite numbers in the cell or positions"
    if not math.isfinite(structure.volume) or structure.volume < 1e-3:
        return "the cell has no volume (degenerate lattice vectors)"
    return None


def _parse_poscar(text: str, name: str, species: list[str] | None) -> Structure:
    from pymatgen.core.structure import Structure
    from pymatgen.io.vasp.inputs import Poscar

    lines = text.splitlines()
    if len(lines) < 7:
        raise SubmissionError(f"{name}: too short for a POSCAR ({len(lines)} lines)")
    # Line 6 holds the species names (VASP 5+) or, in the VASP 4 format, the atom counts.
    tokens = lines[5].split()
    vasp4 = bool(tokens) and all(t.lstrip("+").isdigit() for t in tokens)
    if vasp4 and species is None:
        raise SubmissionError(
            f"{name}: no species line (VASP 4 format) and no POTCAR or POTCAR.spec naming the species"
        )
    if vasp4 and species is not None and len(species) != len(tokens):
        raise SubmissionError(f"{name}: {len(tokens)} atom types but the POTCAR names {len(species)}")
    if not vasp4:
        counts = lines[6].split()
        if not counts or not all(t.lstrip("+").isdigit() and len(t) < 7 for t in counts):
            raise SubmissionError(f"{name}: line 7 should hold the number of atoms of each species")
        if sum(int(t) for t in counts) > MAX_SITES:
            raise SubmissionError(f"{name}: more than {MAX_SITES} atoms")
        # VASP 6 may write 'Ni_pv/<hash>' style names; the element is what counts.
        lines[5] = " ".join(t.split("/")[0].split("_")[0] for t in tokens)
        text = "\n".join(lines)
    s = Poscar.from_str(text, default_names=species if vasp4 else None, read_velocities=False).structure
    return Structure(s.lattice, s.species, s.frac_coords)  # drops selective dynamics and velocities


def _parse_cif(text: str, name: str, species: list[str] | None) -> Structure:
    from pymatgen.core.structure import Structure
    from pymatgen.io.cif import CifParser

    structures = CifParser(io.StringIO(text)).parse_structures(primitive=False)
    if not structures:
        raise SubmissionError(f"{name}: the CIF holds no structure")
    s = structures[0]
    props: dict[str, Any] = {}
    if "magmom" in s.site_properties:
        props["magmom"] = [_moment_vector(m) for m in s.site_properties["magmom"]]
    return Structure(s.lattice, s.species, s.frac_coords, site_properties=props)


def _parse_extxyz(text: str, name: str, species: list[str] | None) -> Structure:
    from ase.io import read
    from pymatgen.core.lattice import Lattice
    from pymatgen.core.structure import Structure

    frames = read(io.StringIO(text), format="extxyz", index=":")
    if not isinstance(frames, list) or not frames:
        raise SubmissionError(f"{name}: no frame in the extended XYZ file")
    atoms: Any = frames[-1]  # ase is untyped
    if not all(atoms.pbc) or atoms.cell.rank != 3:
        raise SubmissionError(f"{name}: the extended XYZ frame has no 3D periodic Lattice")
    props: dict[str, Any] = {}
    if atoms.has("initial_magmoms"):
        props["magmom"] = [_moment_vector(m) for m in atoms.get_initial_magnetic_moments()]
    elif atoms.calc is not None and "magmoms" in getattr(atoms.calc, "results", {}):
        props["magmom"] = [_moment_vector(m) for m in atoms.calc.results["magmoms"]]
    return Structure(
        Lattice(np.array(atoms.cell)),
        atoms.get_chemical_symbols(),
        atoms.get_positions(),
        coords_are_cartesian=True,
        site_properties=props,
    )


_PARSERS = {"poscar": _parse_poscar, "cif": _parse_cif, "extxyz": _parse_extxyz}


def read_reference_structure(ctx: CheckContext[Any], name: str, fmt: StructureFormat = "auto") -> Structure:
    """A hidden reference structure; a broken reference file is the grader's fault."""
    path = ctx.reference_file(name)
    try:
        return parse_structure(path.read_text(), name, fmt)
    except SubmissionError as exc:
        raise GraderConfigError(f"check {ctx.check.id!r}: reference structure: {exc}") from None


# --------------------------------------------------------------------------------------------------
# Magnetic moments


def _moment_vector(m: Any) -> list[float]:
    """A moment as a 3-vector (a scalar moment lies along z)."""
    arr = np.asarray(getattr(m, "moment", m), dtype=float).ravel()
    if arr.size == 1:
        return [0.0, 0.0, float(arr[0])]
    if arr.size == 3:
        return [float(x) for x in arr]
    raise ValueError(f"a magnetic moment has {arr.size} components")


def collinear_moments(moments: list[Any]) -> list[float]:
    """Signed collinear moments from scalars or 3-vectors (projected on the axis of the first moment).

    Raises ValueError when the vectors are not collinear: this family compares collinear order only.
    """
    vectors = np.array([_moment_vector(m) for m in moments], dtype=float).reshape(-1, 3)
    if not np.all(np.isfinite(vectors)):
        raise ValueError("non-finite magnetic moment")
    norms = np.linalg.norm(vectors, axis=1)
    if not np.any(norms > 1e-8):
        return [0.0] * len(vectors)
    axis = vectors[int(np.argmax(norms > 1e-8))]
    axis = axis / np.linalg.norm(axis)
    projected = vectors @ axis
    big = norms > 1e-8
    if np.any(np.abs(projected[big]) < _COLLINEAR_COS * norms[big]):
        raise ValueError("magnetic moments are not collinear")
    return [float(x) for x in projected]


def _signs(structure: Structure, threshold: float) -> list[int]:
    moments = collinear_moments(list(structure.site_properties["magmom"]))
    return [0 if abs(m) <= threshold else (1 if m > 0 else -1) for m in moments]


def _decorated(structure: Structure, signs: list[int]) -> Structure:
    """The structure with each site's species tagged by its spin sign (so the matcher compares order)."""
    from pymatgen.core.periodic_table import Species
    from pymatgen.core.structure import Structure

    species = [Species(site.specie.symbol, None, spin=s) for site, s in zip(structure, signs, strict=True)]
    return Structure(structure.lattice, species, structure.frac_coords)


def _fractions(structure: Structure, signs: list[int]) -> dict[str, tuple[float, float]]:
    """Per element: the fractions of its sites with up and with down moments."""
    counts: dict[str, list[int]] = {}
    for site, s in zip(structure, signs, strict=True):
        c = counts.setdefault(site.specie.symbol, [0, 0, 0])
        c[s + 1] += 1
    return {el: (round(c[2] / sum(c), 6), round(c[0] / sum(c), 6)) for el, c in counts.items()}


def _order_summary(structure: Structure, signs: list[int]) -> str:
    per: dict[str, list[int]] = {}
    for site, s in zip(structure, signs, strict=True):
        per.setdefault(site.specie.symbol, [0, 0, 0])[s + 1] += 1
    parts = []
    for el, (down, zero, up) in per.items():
        if up or down:
            parts.append(f"{el}: {up} up / {down} down" + (f" / {zero} zero" if zero else ""))
    return ", ".join(parts) if parts else "non-magnetic"


# --------------------------------------------------------------------------------------------------
# Comparison


def _plain(structure: Structure) -> Structure:
    """Elements only: no oxidation states, spins or site properties."""
    from pymatgen.core.structure import Structure

    return Structure(structure.lattice, [site.specie.symbol for site in structure], structure.frac_coords)


def _primitive(structure: Structure) -> Structure:
    """The primitive cell (spglib, positions not idealised; pymatgen's own search is far slower on big cells).

    Species are told apart by equality, so spin-decorated species give the magnetic cell. When no smaller cell
    is found within the tolerance (a noisy supercell), the cell is kept as it is.
    """
    import spglib
    from pymatgen.core.structure import Structure

    kinds = list(dict.fromkeys(structure.species))
    numbers = [kinds.index(sp) for sp in structure.species]
    cell = (structure.lattice.matrix.tolist(), structure.frac_coords.tolist(), numbers)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reduced = spglib.standardize_cell(cell, to_primitive=True, no_idealize=True, symprec=_REDUCE_SYMPREC)
    except Exception:  # spglib raises its own error types on degenerate cells
        reduced = None
    if reduced is None or len(reduced[2]) > len(structure) or len(structure) % len(reduced[2]):
        return structure.get_reduced_structure()
    lattice, positions, found = (np.asarray(x, dtype=float) for x in reduced)
    # spglib builds the vectors from (noisy) atom translations; rebuild them exactly from the given lattice,
    # whose vectors are integer combinations of the primitive ones (so the inverse has entries k / index).
    index = len(structure) // len(found)
    original = structure.lattice.matrix
    transform = lattice @ np.linalg.inv(original)
    exact = np.round(transform * index) / index
    clean = exact @ original if np.max(np.abs(transform - exact)) < 0.25 / index else lattice
    frac = positions @ lattice @ np.linalg.inv(clean)
    return Structure(clean, [kinds[int(n)] for n in found], frac).get_reduced_structure()


def _lattice_errors(ref: Lattice, act: Lattice, ltol: float, atol: float) -> tuple[float, float] | None:
    """Smallest (max relative length error, max angle error) over unimodular mappings of `act` onto `ref`."""
    best: tuple[float, float] | None = None
    mappings = ref.find_all_mappings(act, ltol=ltol * 1.05, atol=atol * 1.05, skip_rotation_matrix=True)
    for n, (aligned, _, scale) in enumerate(mappings):
        if n >= _MAX_MAPPINGS:
            break
        if abs(round(float(np.linalg.det(scale)))) != 1:
            continue
        len_err = float(np.max(np.abs(np.array(aligned.lengths) - act.lengths) / np.array(aligned.lengths)))
        ang_err = float(np.max(np.abs(np.array(aligned.angles) - act.angles)))
        if best is None or (len_err, ang_err) < best:
            best = (len_err, ang_err)
    return best


def _check_lattice(prim_e: Structure, prim_a: Structure, params: StructureParams) -> str | None:
    """None when the primitive lattices agree; else why not. Skipped when the primitive cells differ in size."""
    if len(prim_e) != len(prim_a):
        return None  # not reducible to the same cell here; the structure matcher decides
    tight = _lattice_errors(prim_e.lattice, prim_a.lattice, params.lattice_rel_tol, params.angle_tol)
    if tight is not None and tight[0] <= params.lattice_rel_tol and tight[1] <= params.angle_tol:
        return None
    wide = _lattice_errors(prim_e.lattice, prim_a.lattice, 0.3, 20.0)
    if wide is None:
        return "the primitive lattices are not related by any small distortion"
    return (
        f"primitive lattice differs: lengths off by up to {wide[0] * 100:.2g}% and angles by up to "
        f"{wide[1]:.2g}° (tolerance {params.lattice_rel_tol * 100:g}% and {params.angle_tol:g}°)"
    )


def compare_structures(actual: Structure, expected: Structure, params: StructureParams) -> Outcome:
    """Whether `actual` is the crystal `expected` describes (any cell setting), magnetic order included."""
    if not expected.is_ordered:
        raise GraderConfigError("reference structure has partial occupancies")
    exp_desc = f"{expected.composition.reduced_formula} ({len(expected)} sites)"
    act_desc = f"{actual.composition.reduced_formula} ({len(actual)} sites)"

    def fail(msg: str) -> Outcome:
        return Outcome(False, msg, exp_desc, act_desc)

    problem = unusable_cell(actual)
    if problem is not None:  # structures built from an input's cards, not only parsed files, reach here
        return fail(f"the submitted structure: {problem}")
    if not actual.is_ordered:
        return fail("the submitted structure has partial occupancies")
    if len(actual) > MAX_SITES:
        return fail(f"{len(actual)} sites is over the {MAX_SITES}-site limit of this grader")
    plain_e, plain_a = _plain(expected), _plain(actual)
    comp_e, comp_a = plain_e.composition.reduced_composition, plain_a.composition.reduced_composition
    if comp_e != comp_a:
        return fail(f"composition {comp_a.formula} differs from the reference {comp_e.formula}")
    vpa_e, vpa_a = expected.volume / len(expected), actual.volume / len(actual)
    vol_err = abs(vpa_a - vpa_e) / vpa_e
    if vol_err > params.lattice_rel_tol:
        return fail(
            f"volume per atom {vpa_a:.4g} Å³ differs from the reference {vpa_e:.4g} Å³ by "
            f"{vol_err * 100:.3g}% (tolerance {params.lattice_rel_tol * 100:g}%)"
        )
    prim_e, prim_a = _primitive(plain_e), _primitive(plain_a)
    lattice_problem = _check_lattice(prim_e, prim_a, params)
    if lattice_problem is not None:
        return fail(lattice_problem)
    from pymatgen.analysis.structure_matcher import StructureMatcher

    # Cells are already reduced here; the matcher's own primitive search is slow on large cells.
    matcher = StructureMatcher(
        ltol=params.ltol,
        stol=params.stol,
        angle_tol=params.angle_tol,
        primitive_cell=False,
        scale=False,
        attempt_supercell=True,
    )
    if not matcher.fit(prim_e, prim_a):
        return fail(
            f"atomic arrangement does not match the reference within ltol={params.ltol:g}, "
            f"stol={params.stol:g}, angle_tol={params.angle_tol:g}°"
        )
    rms = matcher.get_rms_dist(prim_e, prim_a)  # type: ignore[no-untyped-call]
    rms_text = f"rms displacement {rms[0]:.3g}" if rms is not None else "matched"
    summary = f"same crystal as the reference ({rms_text}, volume per atom within {vol_err * 100:.2g}%)"
    if not params.magnetic or "magmom" not in expected.site_properties:
        return Outcome(True, summary, exp_desc, act_desc)
    return _compare_magnetic(actual, expected, params, matcher, summary, exp_desc, act_desc)


def _compare_magnetic(
    actual: Structure,
    expected: Structure,
    params: StructureParams,
    matcher: StructureMatcher,
    summary: str,
    exp_desc: str,
    act_desc: str,
) -> Outcome:
    try:
        signs_e = _signs(expected, params.magmom_threshold)
    except ValueError as exc:
        raise GraderConfigError(f"reference magnetic moments: {exc}") from None
    if not any(signs_e):
        return Outcome(True, summary + "; the reference is non-magnetic, so magnetic order is not compared")
    order_e = _order_summary(expected, signs_e)
    if "magmom" not in actual.site_properties:
        return Outcome(False, f"{summary}, but the submission gives no magnetic moments; reference order: {order_e}")
    try:
        signs_a = _signs(actual, params.magmom_threshold)
    except ValueError as exc:
        return Outcome(False, f"submitted magnetic moments: {exc}", order_e, act_desc)
    order_a = _order_summary(actual, signs_a)
    dec_e = _primitive(_decorated(expected, signs_e))
    for flip in (1, -1):
        if matcher.fit(dec_e, _primitive(_decorated(actual, [flip * s for s in signs_a]))):
            flipped = " (globally spin-flipped)" if flip == -1 else ""
            return Outcome(True, f"{summary}; collinear magnetic order matches{flipped}: {order_a}", order_e, order_a)
    hint = ""
    magnetic_cell = len(dec_e)
    if len(actual) % magnetic_cell:
        hint = (
            f"; the submitted cell ({len(actual)} sites) cannot hold the reference order, whose magnetic cell "
            f"has {magnetic_cell} sites"
        )
    elif _fractions(actual, signs_a) in (_fractions(expected, signs_e), _fractions(expected, [-s for s in signs_e])):
        hint = "; same numbers of up and down moments but a different arrangement (another magnetic order)"
    return Outcome(
        False,
        f"{summary}, but the collinear magnetic order differs: submission {order_a}, reference {order_e}{hint}",
        order_e,
        order_a,
    )


# --------------------------------------------------------------------------------------------------
# Check types


@register("structure.match", params=StructureMatchParams, needs_reference=False)
def match(ctx: CheckContext[StructureMatchParams]) -> Outcome:
    """The submitted structure file describes the reference crystal (any cell setting; magnetic order too)."""
    p = ctx.params
    expected = read_reference_structure(ctx, p.reference_file)
    if p.reference_magmom is not None:
        if len(p.reference_magmom) != len(expected):
            raise GraderConfigError(
                f"check {ctx.check.id!r}: reference_magmom has {len(p.reference_magmom)} values for "
                f"{len(expected)} reference sites"
            )
        expected = expected.copy(site_properties={"magmom": list(p.reference_magmom)})
    file = ctx.check.target.file
    actual = parse_structure(ctx.submission.read_text(file), file, p.format)
    return compare_structures(actual, expected, p)


def conventional_parameters(structure: Structure, symprec: float) -> tuple[dict[str, float], str]:
    """a, b, c, alpha, beta, gamma of the conventional standard cell, and the space-group symbol."""
    from pymatgen.symmetry.analyzer import SpacegroupAnalyzer

    problem = unusable_cell(structure)
    if problem is not None:
        raise SubmissionError(f"the structure: {problem}")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # spglib's deprecation notices about its own error handling
        analyzer = SpacegroupAnalyzer(_plain(structure), symprec=symprec)
        conv = analyzer.get_conventional_standard_structure()
    values = [*conv.lattice.abc, *conv.lattice.angles]
    return dict(zip(LATTICE_PARAMETERS, (float(v) for v in values), strict=True)), analyzer.get_space_group_symbol()


def _expected_parameters(ctx: CheckContext[LatticeParams]) -> tuple[dict[str, float], str | None]:
    if ctx.check.reference is not None:
        value = ctx.expected()
        if isinstance(value, list) and len(value) == 6:
            return dict(zip(LATTICE_PARAMETERS, (float(v) for v in value), strict=True)), None
        if isinstance(value, dict) and all(k in LATTICE_PARAMETERS for k in value):
            return {k: float(v) for k, v in value.items()}, None
        raise GraderConfigError(
            f"check {ctx.check.id!r}: reference must be [a, b, c, alpha, beta, gamma] or a mapping of them"
        )
    if ctx.params.reference_file is None:
        raise GraderConfigError(f"check {ctx.check.id!r}: give a reference value or params.reference_file")
    ref = read_reference_structure(ctx, ctx.params.reference_file)
    return conventional_parameters(ref, ctx.params.symprec)


@register("structure.lattice", params=LatticeParams, needs_reference=False, numeric=True)
def lattice(ctx: CheckContext[LatticeParams]) -> Outcome:
    """Conventional-cell lattice parameters of the submitted structure within the check's tolerance."""
    expected, ref_group = _expected_parameters(ctx)
    missing = [k for k in ctx.params.parameters if k not in expected]
    if missing:
        raise GraderConfigError(f"check {ctx.check.id!r}: reference gives no {', '.join(missing)}")
    file = ctx.check.target.file
    structure = parse_structure(ctx.submission.read_text(file), file, ctx.params.format)
    try:
        actual, group = conventional_parameters(structure, ctx.params.symprec)
    except Exception as exc:  # spglib fails on pathological cells
        raise SubmissionError(f"{file}: symmetry analysis failed ({type(exc).__name__})") from None
    tol = ctx.check.effective_tolerance
    outcomes = {k: compare_number(actual[k], expected[k], tol) for k in ctx.params.parameters}
    passed = all(o.passed for o in outcomes.values())
    deviation = max((o.deviation or 0.0) for o in outcomes.values())
    parts = [
        f"{k} {actual[k]:.5g}{_UNITS[k]} (ref {expected[k]:.5g}{'' if o.passed else ', outside'})"
        for k, o in outcomes.items()
    ]
    group_note = f"; space group {group}"
    if ref_group and ref_group != group:
        group_note += f" vs reference {ref_group}"
    verdict = "all within" if passed else "not all within"
    return Outcome(
        passed,
        f"conventional cell: {', '.join(parts)}: {verdict} {tol.describe()}{group_note}",
        {k: expected[k] for k in ctx.params.parameters},
        {k: actual[k] for k in ctx.params.parameters},
        deviation,
    )


__all__ = [
    "MAX_SITES",
    "LatticeParams",
    "StructureMatchParams",
    "StructureParams",
    "collinear_moments",
    "compare_structures",
    "conventional_parameters",
    "parse_structure",
    "read_reference_structure",
    "structure_format",
]
