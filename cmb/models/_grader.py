"""Grader specifications: a list of fixed-rule checks per task."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Any

from pydantic import Field, model_validator

from cmb.models._base import SCHEMA_VERSION, CmbModel


class Category(StrEnum):
    """What a failing check says about the agent: used to classify failures."""

    FORMAT = "format"
    SOFTWARE = "software"
    SCIENTIFIC = "scientific"


class Tolerance(CmbModel):
    """Relative (default 10%) or absolute tolerance of a numeric comparison."""

    rel: float | None = Field(default=None, ge=0, description="Relative tolerance, |a-e| <= rel*|e|")
    abs: float | None = Field(default=None, ge=0, description="Absolute tolerance, |a-e| <= abs")

    @model_validator(mode="after")
    def _one_of(self) -> Tolerance:
        if self.rel is not None and self.abs is not None:
            raise ValueError("give either 'rel' or 'abs', not both")
        for v in (self.rel, self.abs):
            if v is not None and not math.isfinite(v):
                raise ValueError("tolerance must be finite")
        return self

    @property
    def is_relative(self) -> bool:
        """Whether the tolerance scales with the expected value."""
        return self.abs is None

    @property
    def width(self) -> float:
        """The tolerance number itself (relative fraction or absolute amount)."""
        if self.abs is not None:
            return self.abs
        return 0.1 if self.rel is None else self.rel

    def describe(self) -> str:
        """Human-readable form, e.g. '10% rel' or '±0.01 abs'."""
        if self.abs is not None:
            return f"±{self.abs:g} abs"
        return f"{self.width * 100:g}% rel"


class PartialCredit(CmbModel):
    """Full credit within a fraction of the tolerance, decaying linearly to zero at the tolerance."""

    full_within: float = Field(gt=0, lt=1, description="Fraction of the tolerance that still earns full credit")


class Target(CmbModel):
    """Where in the submission a check looks."""

    file: str = Field(description="File in the submission, relative to its root")
    field: str | None = Field(
        default=None, description="Field inside the file: dotted JSON path (a.b[0]), CSV column, HDF5 dataset"
    )
    setting: str | None = Field(default=None, description="Input setting (INCAR tag, namelist.key, LAMMPS item)")

    @model_validator(mode="after")
    def _relative(self) -> Target:
        parts = self.file.replace("\\", "/").split("/")
        if self.file.startswith("/") or ".." in parts or not self.file.strip():
            raise ValueError(f"target file {self.file!r} must be a relative path inside the submission")
        return self


class Check(CmbModel):
    """One fixed-rule comparison. Its `params` are validated by the check type's own model."""

    id: str = Field(min_length=1, description="Check id, unique within the grader")
    type: str = Field(description="Registered check type, e.g. numeric.scalar or vasp.incar")
    category: Category = Field(description="format, software or scientific")
    target: Target = Field(description="Where the check looks")
    reference: str | None = Field(default=None, description="Key of the reference value in reference.yaml")
    tolerance: Tolerance | None = Field(default=None, description="Numeric tolerance (relative 10% by default)")
    partial: PartialCredit | None = Field(default=None, description="Optional partial-credit rule")
    unit: str | None = Field(default=None, description="Unit the answer is expected in")
    params: dict[str, Any] = Field(default_factory=dict, description="Type-specific parameters")
    description: str | None = Field(default=None, description="What an expert checks here, and why")
    states: list[str] = Field(
        default_factory=list,
        description=(
            "Sentences (verbatim, whitespace-insensitive) of the prompt that state the target this check enforces; "
            "both prompts must contain each, so reduced guidance never drops a checked target"
        ),
    )

    @property
    def effective_tolerance(self) -> Tolerance:
        """The check's tolerance, or 10% relative."""
        return self.tolerance or Tolerance(rel=0.1)


class GraderSpec(CmbModel):
    """`graders/<task>.yaml`."""

    version: int = Field(default=SCHEMA_VERSION, description="Schema version of this file")
    task: str = Field(description="Task or workflow id graded")
    checks: list[Check] = Field(min_length=1, description="The checks; the task passes only if all pass")

    @model_validator(mode="after")
    def _unique_ids(self) -> GraderSpec:
        seen: set[str] = set()
        for c in self.checks:
            if c.id in seen:
                raise ValueError(f"duplicate check id {c.id!r}")
            seen.add(c.id)
        return self
