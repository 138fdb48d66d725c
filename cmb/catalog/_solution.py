"""The oracle's solution folder as it is staged: self-contained, never reaching outside itself.

A workflow chains the steps of its study, so its solution uses the solutions of those steps: they are staged
inside it, under `steps/<task id>/`, and its solve.sh refers to them there (`$CMB_SOLUTION_DIR/steps/...`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from cmb.catalog._load import TaskEntry
from cmb.models import WorkflowSpec

SOLUTION_DIR = "solution"
SOLUTION_SCRIPT = f"{SOLUTION_DIR}/solve.sh"
STEPS_DIR = "steps"


def _copy(src: Path, dest: Path) -> None:
    # copytree follows no link out of the tree: a link in a solution folder is copied as the link it is
    shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))


def assemble_solution(entry: TaskEntry, dest: Path) -> Path:
    """Copy the entry's solution/ into `dest` (and, for a workflow, each step's under steps/<id>/); return dest."""
    own = entry.reference_dir / SOLUTION_DIR
    if not own.is_dir():
        raise FileNotFoundError(f"{entry.id} has no {SOLUTION_DIR}/ folder under {entry.reference_dir}")
    _copy(own, dest)
    if isinstance(entry.spec, WorkflowSpec):
        for step in entry.spec.steps:
            step_solution = entry.root / "references" / step / SOLUTION_DIR
            if not step_solution.is_dir():
                raise FileNotFoundError(f"workflow {entry.id}: step {step} has no {SOLUTION_DIR}/ folder")
            _copy(step_solution, dest / STEPS_DIR / step)
    return dest
