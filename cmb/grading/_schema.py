"""Check family `schema`: required answer files, fields and their types, CSV layout."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from cmb.grading._compare import show
from cmb.grading._registry import CheckContext, Outcome, register
from cmb.grading._submission import SubmissionError, get_field, is_finite_number


def _is_number_array(v: Any) -> bool:
    if not isinstance(v, list):
        return False
    return all(_is_number_array(x) if isinstance(x, list) else is_finite_number(x) for x in v)


# JSON type names usable in a grader, each with its predicate.
TYPES: dict[str, Callable[[Any], bool]] = {
    "number": is_finite_number,
    "integer": lambda v: is_finite_number(v) and float(v) == int(v),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "number-array": _is_number_array,
    "string-array": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "object": lambda v: isinstance(v, dict),
}


class FileParams(BaseModel):
    """Parameters of schema.file."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    format: str = Field(default="auto", description="json, text, csv, hdf5 or auto (by suffix)")


_SUFFIX_FORMAT = {"json": "json", "csv": "csv", "h5": "hdf5", "hdf5": "hdf5"}


@register("schema.file", params=FileParams, needs_reference=False)
def file_present(ctx: CheckContext[FileParams]) -> Outcome:
    """The answer file exists, is a regular file inside the submission, and parses in its format."""
    rel = ctx.check.target.file
    fmt = ctx.params.format
    if fmt == "auto":
        fmt = _SUFFIX_FORMAT.get(rel.rsplit(".", 1)[-1].lower(), "text")
    sub = ctx.submission
    if fmt == "json":
        sub.read_json(rel)
    elif fmt == "hdf5":
        sub.read_bytes(rel)
    else:
        sub.read_text(rel)
    return Outcome(True, f"{rel} present and readable as {fmt}")


class FieldsParams(BaseModel):
    """Parameters of schema.fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    fields: dict[str, str] = Field(description="Field path -> type name (number, integer, string, ...)")
    allow_extra: bool = Field(default=True, description="Whether top-level fields beyond these are accepted")


@register("schema.fields", params=FieldsParams, needs_reference=False)
def json_fields(ctx: CheckContext[FieldsParams]) -> Outcome:
    """A JSON answer has every required field with the right type."""
    rel = ctx.check.target.file
    doc = ctx.submission.read_json(rel)
    if not isinstance(doc, dict):
        return Outcome(False, f"{rel}: top level must be a JSON object, found {type(doc).__name__}")
    problems: list[str] = []
    for path, type_name in ctx.params.fields.items():
        predicate = TYPES.get(type_name)
        if predicate is None:
            from cmb.grading._registry import GraderConfigError

            raise GraderConfigError(f"unknown field type {type_name!r}; known: {sorted(TYPES)}")
        try:
            value = get_field(doc, path)
        except SubmissionError:
            problems.append(f"missing {path}")
            continue
        if not predicate(value):
            problems.append(f"{path} should be {type_name}, found {show(value)!r}")
    if not ctx.params.allow_extra:
        top = {p.split(".")[0].split("[")[0] for p in ctx.params.fields}
        problems += [f"unexpected field {k!r}" for k in doc if k not in top]
    if problems:
        return Outcome(False, f"{rel}: " + "; ".join(problems[:10]))
    return Outcome(True, f"{rel}: all {len(ctx.params.fields)} required fields present with the right types")


class CsvParams(BaseModel):
    """Parameters of schema.csv."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    columns: list[str] = Field(min_length=1, description="Columns that must be present, all numeric")
    min_rows: int = Field(default=1, ge=0, description="Minimum number of data rows")


@register("schema.csv", params=CsvParams, needs_reference=False, thresholds=("min_rows",))
def csv_layout(ctx: CheckContext[CsvParams]) -> Outcome:
    """A CSV answer has the required numeric columns and enough rows."""
    rel = ctx.check.target.file
    n = 0
    for col in ctx.params.columns:
        n = len(ctx.submission.read_csv_column(rel, col))
    if n < ctx.params.min_rows:
        return Outcome(False, f"{rel}: {n} rows, at least {ctx.params.min_rows} required")
    return Outcome(True, f"{rel}: columns {ctx.params.columns} present with {n} numeric rows")
