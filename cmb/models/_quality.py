"""What keeps a task honest beyond its grader: the recall baseline's answer and the fairness record.

`references/<task>/recall.yaml` holds what a well-read researcher would write without running anything (values
quoted from experiment, from a potential's or a method's publication, from textbooks; input files written from
habit), each with its source. The `recall` baseline agent submits exactly that; every task must fail it.

`references/<task>/fairness.yaml` holds submissions that probe the grader: alternative valid routes that must
pass and common errors that must fail, each derived from the oracle's own submission by small edits.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator, model_validator

from cmb.models._base import SCHEMA_VERSION, CmbModel


def _relative(path: str) -> str:
    parts = path.replace("\\", "/").split("/")
    if path.startswith("/") or ".." in parts or not path.strip():
        raise ValueError(f"{path!r} must be a relative path inside the submission")
    return path


class RecallValue(CmbModel):
    """One requested quantity as recalled from the literature."""

    file: str = Field(default="answer.json", description="Answer file the value goes in (JSON)")
    field: str = Field(min_length=1, description="Dotted JSON path of the answer field")
    value: Any = Field(description="The recalled value, in the answer's units")
    source: str = Field(min_length=5, description="Where a well-read researcher has it from")

    _rel = field_validator("file")(_relative)


class RecallFile(CmbModel):
    """A whole answer file written from habit (an input deck as one usually writes it, a table from memory)."""

    path: str = Field(description="Answer file, relative to the working folder")
    text: str = Field(description="Its content")
    source: str = Field(min_length=5, description="Where the habit or the numbers come from")

    _rel = field_validator("path")(_relative)


class RecallSpec(CmbModel):
    """`references/<task>/recall.yaml`: the recall baseline's submission."""

    version: int = Field(default=SCHEMA_VERSION, description="Schema version of this file")
    task: str = Field(description="Task or workflow id")
    values: list[RecallValue] = Field(default_factory=list, description="Recalled answer values")
    files: list[RecallFile] = Field(default_factory=list, description="Whole files written from habit or memory")
    note: str | None = Field(default=None, description="Why recall cannot pass here (what only the step produces)")

    @model_validator(mode="after")
    def _something(self) -> RecallSpec:
        if not self.values and not self.files:
            raise ValueError("a recall submission needs at least one value or file")
        json_files = {v.file for v in self.values}
        clash = sorted(json_files & {f.path for f in self.files})
        if clash:
            raise ValueError(f"files both assembled from values and given whole: {clash}")
        return self

    def submission(self) -> dict[str, str]:
        """The files the recall baseline writes: JSON files assembled from the values, whole files as given."""
        docs: dict[str, dict[str, Any]] = {}
        for v in self.values:
            doc = docs.setdefault(v.file, {})
            *parents, last = v.field.split(".")
            for key in parents:
                doc = doc.setdefault(key, {})
            doc[last] = v.value
        out = {name: json.dumps(doc, indent=2) + "\n" for name, doc in docs.items()}
        out.update({f.path: f.text for f in self.files})
        return out


class Expect(StrEnum):
    """What a fairness case must do."""

    PASS = "pass"  # an alternative valid route: the whole task passes
    FAIL = "fail"  # a common error: at least the checks it covers fail


class TextEdit(CmbModel):
    """Replace text in one file of the base submission; the old text must occur."""

    file: str = Field(description="File in the submission")
    old: str = Field(min_length=1, description="Text that must occur in the file")
    new: str = Field(description="Its replacement")
    count: int = Field(default=1, ge=0, description="Occurrences replaced (0 = all)")

    _rel = field_validator("file")(_relative)


class FairnessCase(CmbModel):
    """One submission that probes the grader, made from the oracle's submission by small edits."""

    id: str = Field(min_length=2, description="Case id, unique within the task")
    expect: Expect = Field(description="pass (alternative valid route) or fail (common error)")
    what: str = Field(min_length=10, description="The alternative route, or the error, in a researcher's words")
    covers: list[str] = Field(
        min_length=1,
        description="Check ids the case exercises: for 'fail', the checks that must fail; for 'pass', the checks "
        "whose target the alternative changes",
    )
    answer: dict[str, Any] = Field(default_factory=dict, description="Dotted fields set in the answer JSON file")
    answer_file: str = Field(default="answer.json", description="JSON file `answer` edits")
    edits: list[TextEdit] = Field(default_factory=list, description="Text replacements in files")
    files: dict[str, str] = Field(default_factory=dict, description="Files written whole (name -> text)")
    remove: list[str] = Field(default_factory=list, description="Files removed from the submission")
    source: str | None = Field(default=None, description="How the values of the case were obtained")

    _rel = field_validator("answer_file")(_relative)

    @model_validator(mode="after")
    def _changes_something(self) -> FairnessCase:
        if not (self.answer or self.edits or self.files or self.remove):
            raise ValueError(f"case {self.id!r} changes nothing in the oracle's submission")
        for name in [*self.files, *self.remove]:
            _relative(name)
        return self


class FairnessSpec(CmbModel):
    """`references/<task>/fairness.yaml`: alternatives that must pass and errors that must fail."""

    version: int = Field(default=SCHEMA_VERSION, description="Schema version of this file")
    task: str = Field(description="Task or workflow id")
    cases: list[FairnessCase] = Field(min_length=2, description="At least one alternative and one error")

    @model_validator(mode="after")
    def _cases(self) -> FairnessSpec:
        ids = [c.id for c in self.cases]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"duplicate case ids {dup}")
        return self

    def covering(self, check_id: str, expect: Expect) -> list[FairnessCase]:
        """Cases of one kind that cover a check."""
        return [c for c in self.cases if c.expect is expect and check_id in c.covers]
