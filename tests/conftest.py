"""Shared helpers: build checks, references and submissions in a few lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cmb.grading import run_check
from cmb.grading._submission import Submission
from cmb.models import Check, CheckResult, Reference, ReferenceValue


def make_check(type_: str, *, file: str = "answer.json", field: str | None = "x", **kw: Any) -> Check:
    kw.setdefault("category", "scientific")
    kw.setdefault("reference", "x" if "reference" not in kw else kw["reference"])
    return Check(id=kw.pop("id", "c1"), type=type_, target={"file": file, "field": field}, **kw)


def make_reference(task: str = "t", **values: Any) -> Reference:
    return Reference(task=task, values={k: ReferenceValue(value=v) for k, v in values.items()})


def write_files(root: Path, files: dict[str, Any]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content)
        else:
            path.write_text(json.dumps(content))
    return root


@pytest.fixture
def check_answer(tmp_path: Path):
    """check_answer(check, answer_doc, **reference_values) -> CheckResult, answer written to answer.json."""

    def run(check: Check, answer: Any, **values: Any) -> CheckResult:
        sub = write_files(tmp_path / "sub", {check.target.file: answer})
        return run_check(check, Submission(sub), make_reference(**values))

    return run
