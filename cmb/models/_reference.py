"""Hidden reference values of a task."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from cmb.models._base import SCHEMA_VERSION, CmbModel


class ReferenceValue(CmbModel):
    """One reference quantity with its unit and provenance."""

    value: Any = Field(description="Number, list, string, boolean or mapping")
    unit: str | None = Field(default=None, description="Unit of the value")
    note: str | None = Field(default=None, description="How the value was obtained")
    public: bool = Field(
        default=False, description="Given to the agent on purpose (e.g. stated in the prompt): not a leak"
    )


class Reference(CmbModel):
    """`references/<task>/reference.yaml`."""

    version: int = Field(default=SCHEMA_VERSION, description="Schema version of this file")
    task: str = Field(description="Task or workflow id")
    values: dict[str, ReferenceValue] = Field(default_factory=dict, description="Reference quantities by key")
    files: list[str] = Field(
        default_factory=list, description="Reference files (input sets, structures) beside reference.yaml"
    )
