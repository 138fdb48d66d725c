"""The outcome of grading one submission."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from cmb.models._base import SCHEMA_VERSION, CmbModel
from cmb.models._grader import Category


class CheckResult(CmbModel):
    """The outcome of one check."""

    id: str = Field(description="Check id")
    type: str = Field(description="Check type")
    category: Category = Field(description="format, software or scientific")
    passed: bool = Field(description="Whether the check passed")
    credit: float = Field(ge=0, le=1, description="1/0, or partial credit where the check has a rule")
    expected: Any = Field(default=None, description="Reference value, JSON-safe")
    actual: Any = Field(default=None, description="What the submission gave, JSON-safe and truncated")
    unit: str | None = Field(default=None, description="Unit of expected and actual")
    tolerance: str | None = Field(default=None, description="Tolerance applied, human-readable")
    message: str = Field(description="Why the check passed or failed")


class GradeReport(CmbModel):
    """Grade of one submission for one task."""

    version: int = Field(default=SCHEMA_VERSION, description="Schema version")
    task_id: str = Field(description="Task or workflow id")
    passed: bool = Field(description="True only when every check passed")
    score: float = Field(ge=0, le=1, description="Fraction of checks passed")
    partial_score: float = Field(ge=0, le=1, description="Mean credit over checks (partial credit applied)")
    failure_category: Category | None = Field(
        default=None, description="Category of the first failing check, by priority format > software > scientific"
    )
    grader_hash: str = Field(description="Hash of the grader spec and reference")
    checks: list[CheckResult] = Field(description="One result per check, in grader order")
