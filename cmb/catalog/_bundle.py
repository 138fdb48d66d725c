"""The agent-visible bundle of a task for one condition: prompt and workspace files, nothing else."""

from __future__ import annotations

import shutil
from pathlib import Path

from cmb.catalog._load import TaskEntry
from cmb.models import Condition

PROMPT_NAME = "PROMPT.md"


def stage_bundle(entry: TaskEntry, condition: Condition, dest: Path) -> list[Path]:
    """Copy the condition's prompt and the staged workspace files into `dest`; return what was written."""
    dest.mkdir(parents=True, exist_ok=True)
    written = [dest / PROMPT_NAME]
    written[0].write_text(entry.prompt(condition), encoding="utf-8")
    for rel in entry.spec.workspace:
        src = entry.workspace_dir / rel
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)  # copyfile never carries links or permissions of the source tree
        written.append(target)
    return written
