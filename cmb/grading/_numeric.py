"""Check family `numeric`: scalars, arrays, integers, booleans, choices, sets and orderings from answer files.

Values are read from JSON (dotted field path), CSV (column) or HDF5 (dataset) answer files, chosen by suffix.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from cmb.grading._compare import compare_array, compare_number, show
from cmb.grading._registry import CheckContext, GraderConfigError, NoParams, Outcome, register
from cmb.grading._submission import Submission, SubmissionError, get_field, is_finite_number


def _read_json_field(sub: Submission, file: str, field: str | None) -> Any:
    doc = sub.read_json(file)
    return doc if field is None else get_field(doc, field)


def _read_csv_field(sub: Submission, file: str, field: str | None) -> Any:
    if field is None:
        raise GraderConfigError(f"a CSV target ({file}) needs a column name in target.field")
    return sub.read_csv_column(file, field)


def _read_hdf5_field(sub: Submission, file: str, field: str | None) -> Any:
    if field is None:
        raise GraderConfigError(f"an HDF5 target ({file}) needs a dataset path in target.field")
    return sub.read_hdf5_dataset(file, field)


def _read_text_field(sub: Submission, file: str, field: str | None) -> Any:
    text = sub.read_text(file).strip()
    try:
        return float(text)
    except ValueError:
        raise SubmissionError(f"{file}: expected a single number, found {show(text)!r}") from None


READERS: dict[str, Callable[[Submission, str, str | None], Any]] = {
    ".json": _read_json_field,
    ".csv": _read_csv_field,
    ".h5": _read_hdf5_field,
    ".hdf5": _read_hdf5_field,
    ".txt": _read_text_field,
    ".dat": _read_text_field,
}


def read_target(ctx: CheckContext[Any]) -> Any:
    """The submitted value a check targets, by file suffix."""
    target = ctx.check.target
    suffix = "." + target.file.rsplit(".", 1)[-1].lower() if "." in target.file else ""
    reader = READERS.get(suffix)
    if reader is None:
        raise GraderConfigError(f"no reader for answer file {target.file!r}; known: {sorted(READERS)}")
    return reader(ctx.submission, target.file, target.field)


class ScalarParams(BaseModel):
    """Parameters of numeric.scalar."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    absolute_value: bool = Field(default=False, description="Compare |value| (sign conventions differ)")


@register("numeric.scalar", params=ScalarParams, numeric=True)
def scalar(ctx: CheckContext[ScalarParams]) -> Outcome:
    """A real number within the check's tolerance of the reference."""
    actual = read_target(ctx)
    expected = ctx.expected()
    if ctx.params.absolute_value and is_finite_number(actual):
        actual, expected = abs(actual), abs(expected)
    return compare_number(actual, expected, ctx.check.effective_tolerance, ctx.check.unit)


@register("numeric.array", numeric=True)
def array(ctx: CheckContext[NoParams]) -> Outcome:
    """An array of the reference's shape, every element within the tolerance."""
    expected = ctx.expected()
    if not isinstance(expected, list):
        raise GraderConfigError(f"check {ctx.check.id!r}: reference value is not a list")
    return compare_array(read_target(ctx), expected, ctx.check.effective_tolerance, ctx.check.unit)


@register("numeric.integer")
def integer(ctx: CheckContext[NoParams]) -> Outcome:
    """An integer equal to the reference (a float with an integral value is accepted, 3.0 == 3)."""
    actual, expected = read_target(ctx), ctx.expected()
    if isinstance(actual, bool) or not is_finite_number(actual) or float(actual) != int(actual):
        return Outcome(False, f"{show(actual)!r} is not an integer", expected, show(actual))
    ok = int(actual) == int(expected)
    return Outcome(ok, f"{int(actual)} {'==' if ok else '!='} reference {expected}", expected, actual)


@register("numeric.boolean")
def boolean(ctx: CheckContext[NoParams]) -> Outcome:
    """A JSON true/false equal to the reference (strings like "yes" are not booleans)."""
    actual, expected = read_target(ctx), ctx.expected()
    if not isinstance(actual, bool):
        return Outcome(False, f"{show(actual)!r} is not a boolean", expected, show(actual))
    ok = actual is bool(expected)
    return Outcome(ok, f"{actual} {'matches' if ok else 'differs from'} reference {expected}", expected, actual)


class ChoiceParams(BaseModel):
    """Parameters of numeric.choice."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    choices: list[str] | None = Field(default=None, description="Valid answers; others fail as format errors")
    case_sensitive: bool = Field(default=False, description="Whether letter case matters")


@register("numeric.choice", params=ChoiceParams)
def choice(ctx: CheckContext[ChoiceParams]) -> Outcome:
    """One label out of a set of choices, equal to the reference label."""
    actual, expected = read_target(ctx), str(ctx.expected())
    if not isinstance(actual, str):
        return Outcome(False, f"{show(actual)!r} is not a string label", expected, show(actual))

    def norm(s: str) -> str:
        return s.strip() if ctx.params.case_sensitive else s.strip().lower()

    if ctx.params.choices is not None and norm(actual) not in {norm(c) for c in ctx.params.choices}:
        return Outcome(False, f"{show(actual)!r} is not one of {ctx.params.choices}", expected, show(actual))
    ok = norm(actual) == norm(expected)
    return Outcome(
        ok, f"{show(actual)!r} {'matches' if ok else 'differs from'} reference {expected!r}", expected, show(actual)
    )


def _normalise_item(item: Any, case_sensitive: bool) -> Any:
    if isinstance(item, str):
        return item.strip() if case_sensitive else item.strip().lower()
    if isinstance(item, bool) or item is None:
        return item
    if is_finite_number(item) and float(item) == int(item):
        return int(item)
    if isinstance(item, list | dict):
        raise SubmissionError(f"set/ordering items must be strings or numbers, found {show(item)!r}")
    return item


class CollectionParams(BaseModel):
    """Parameters of numeric.set and numeric.ordering."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    case_sensitive: bool = Field(default=False, description="Whether letter case matters for strings")


@register("numeric.set", params=CollectionParams)
def unordered_set(ctx: CheckContext[CollectionParams]) -> Outcome:
    """The same items as the reference, in any order, without duplicates counting."""
    actual, expected = read_target(ctx), ctx.expected()
    if not isinstance(actual, list):
        return Outcome(False, f"{show(actual)!r} is not a list", expected, show(actual))
    cs = ctx.params.case_sensitive
    got = {_normalise_item(x, cs) for x in actual}
    want = {_normalise_item(x, cs) for x in expected}
    missing, extra = want - got, got - want
    if not missing and not extra:
        return Outcome(True, f"same {len(want)} items as the reference", expected, show(actual))
    return Outcome(
        False, f"missing {sorted(map(str, missing))}, unexpected {sorted(map(str, extra))}", expected, show(actual)
    )


@register("numeric.ordering", params=CollectionParams)
def ordering(ctx: CheckContext[CollectionParams]) -> Outcome:
    """The reference's items in the reference's order (e.g. phases ranked by energy)."""
    actual, expected = read_target(ctx), ctx.expected()
    if not isinstance(actual, list):
        return Outcome(False, f"{show(actual)!r} is not a list", expected, show(actual))
    cs = ctx.params.case_sensitive
    got = [_normalise_item(x, cs) for x in actual]
    want = [_normalise_item(x, cs) for x in expected]
    if got == want:
        return Outcome(True, "same order as the reference", expected, show(actual))
    if sorted(map(str, got)) == sorted(map(str, want)):
        first = next(i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b)
        return Outcome(False, f"right items, wrong order from position {first}", expected, show(actual))
    return Outcome(False, "items differ from the reference", expected, show(actual))
