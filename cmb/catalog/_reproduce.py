"""`cmb tasks reproduce`: re-run a task's expensive step and compare with the committed reference.

Contract of `references/<id>/reproduce/reproduce.sh OUTDIR`: run the real code with pinned settings, one folder
per run under OUTDIR, and write `OUTDIR/values.json` with the reproduced reference values (keys of reference.yaml).
It may also write `OUTDIR/workspace/`, the files staged for the agent, which are compared number by number.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cmb.catalog._load import TaskEntry
from cmb.grading import compare_array, compare_number
from cmb.models import Tolerance

REPRODUCE_SCRIPT = "reproduce/reproduce.sh"
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eEdD][-+]?\d+)?")
# Lines that legitimately change between runs of the same calculation (timings, dates, memory, hosts).
_VOLATILE = re.compile(
    r"(?i)\b(cpu|wall|time|date|started|mb|gb|memory|version|host|pid|threads|processors|performance|"
    r"ns/day|hours/ns|timesteps/s|katom-step/s|pair|neigh|comm|output|modify|other|loop|starts|terminated)\b"
)


@dataclass(frozen=True)
class ValueComparison:
    """One reproduced reference value against the committed one."""

    key: str
    expected: Any
    reproduced: Any
    passed: bool
    message: str


@dataclass(frozen=True)
class FileComparison:
    """One regenerated workspace file against the committed one (numbers on non-volatile lines)."""

    name: str
    numbers: int
    max_rel_diff: float
    identical_layout: bool


@dataclass(frozen=True)
class Reproduction:
    """Outcome of re-running a task's expensive step."""

    task_id: str
    values: list[ValueComparison]
    files: list[FileComparison]
    seconds: float
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Every reference value reproduced within its tolerance."""
        return self.error is None and bool(self.values) and all(v.passed for v in self.values)


def _tolerances(entry: TaskEntry) -> dict[str, Tolerance]:
    """The tolerance the grader applies to each reference key (the tightest where several checks use one)."""
    out: dict[str, Tolerance] = {}
    for check in entry.grader().checks:
        if check.reference is None:
            continue
        tol = check.effective_tolerance
        if check.reference not in out or tol.width < out[check.reference].width:
            out[check.reference] = tol
    return out


def _stable_numbers(text: str) -> list[float]:
    numbers: list[float] = []
    for line in text.splitlines():
        if _VOLATILE.search(line):
            continue
        for token in _NUMBER.findall(line):
            try:
                numbers.append(float(token.replace("d", "e").replace("D", "e")))
            except ValueError:
                continue
    return numbers


def compare_files(committed: Path, regenerated: Path) -> FileComparison:
    """Compare the numbers of two text files, skipping lines about timing and environment."""
    a = _stable_numbers(committed.read_text(encoding="utf-8", errors="replace"))
    b = _stable_numbers(regenerated.read_text(encoding="utf-8", errors="replace"))
    same_layout = len(a) == len(b)
    diff = 0.0
    for x, y in zip(a, b, strict=False):
        scale = max(abs(x), abs(y), 1e-12)
        diff = max(diff, abs(x - y) / scale)
    return FileComparison(committed.name, len(a), diff if same_layout else math.inf, same_layout)


def _compare_value(key: str, expected: Any, reproduced: Any, tol: Tolerance) -> ValueComparison:
    if isinstance(expected, list) and all(isinstance(x, int | float) for x in expected):
        out = compare_array(reproduced, expected, tol)
    elif isinstance(expected, int | float) and not isinstance(expected, bool):
        out = compare_number(reproduced, expected, tol if expected != 0 else Tolerance(abs=1e-8))
    else:
        same = reproduced == expected
        return ValueComparison(key, expected, reproduced, same, "equal" if same else "differs")
    return ValueComparison(key, expected, reproduced, out.passed, out.message)


def reproduce_entry(entry: TaskEntry, workdir: Path | None = None, timeout_s: float = 3600) -> Reproduction:
    """Run the reproduce script in a fresh folder and compare what it produced with the committed reference."""
    import time

    script = entry.reference_dir / REPRODUCE_SCRIPT
    if not script.is_file():
        return Reproduction(entry.id, [], [], 0.0, f"{script} not found: this task has no expensive step to re-run")
    reference = entry.reference()
    tolerances = _tolerances(entry)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"cmb-reproduce-{entry.id}-") as tmp:
        out = Path(workdir) if workdir is not None else Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
        try:
            proc = subprocess.run(
                ["bash", str(script), str(out)],
                cwd=out,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return Reproduction(entry.id, [], [], time.monotonic() - start, f"timed out after {timeout_s:.0f} s")
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout)[-800:]
            return Reproduction(entry.id, [], [], time.monotonic() - start, f"exited {proc.returncode}: {tail}")
        values_file = out / "values.json"
        if not values_file.is_file():
            return Reproduction(entry.id, [], [], time.monotonic() - start, "reproduce.sh wrote no values.json")
        produced: dict[str, Any] = json.loads(values_file.read_text(encoding="utf-8"))
        values = [
            _compare_value(key, ref.value, produced.get(key), tolerances.get(key, Tolerance(rel=0.1)))
            for key, ref in reference.values.items()
            if key in produced or key in tolerances
        ]
        files = [
            compare_files(entry.workspace_dir / rel, out / "workspace" / rel)
            for rel in entry.spec.workspace
            if (out / "workspace" / rel).is_file()
        ]
    return Reproduction(entry.id, values, files, time.monotonic() - start)
