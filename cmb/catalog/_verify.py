"""Prove each task gradeable end to end: its oracle solution passes and an empty submission fails."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from cmb.catalog._bundle import stage_bundle
from cmb.catalog._load import TaskEntry
from cmb.catalog._validate import SOLUTION_SCRIPT
from cmb.grading import grade
from cmb.models import Condition, GradeReport


@dataclass(frozen=True)
class Verification:
    """Outcome of verifying one task under one condition."""

    task_id: str
    condition: Condition
    oracle: GradeReport | None
    null: GradeReport
    seconds: float
    error: str | None = None

    @property
    def ok(self) -> bool:
        """The oracle passes and the empty submission fails."""
        return self.error is None and self.oracle is not None and self.oracle.passed and not self.null.passed


def run_solution(entry: TaskEntry, workdir: Path, timeout_s: float) -> subprocess.CompletedProcess[str]:
    """Run the task's trusted oracle script in `workdir` (a staged bundle)."""
    solution_dir = entry.reference_dir / "solution"
    env = {**os.environ, "CMB_SOLUTION_DIR": str(solution_dir), "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        ["bash", str(entry.reference_dir / SOLUTION_SCRIPT)],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )


def verify_entry(entry: TaskEntry, condition: Condition, timeout_s: float = 1800) -> Verification:
    """Stage the bundle, run the oracle into it, grade it; grade an empty folder too."""
    grader, reference = entry.grader(), entry.reference()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"cmb-verify-{entry.id}-") as tmp:
        work, empty = Path(tmp) / "work", Path(tmp) / "empty"
        empty.mkdir()
        stage_bundle(entry, condition, work)
        null = grade(grader, reference, empty, entry.reference_dir)
        try:
            proc = run_solution(entry, work, timeout_s)
        except subprocess.TimeoutExpired:
            return Verification(entry.id, condition, None, null, time.monotonic() - start, "oracle timed out")
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout)[-800:]
            error = f"oracle exited {proc.returncode}: {tail}"
            return Verification(entry.id, condition, None, null, time.monotonic() - start, error)
        oracle = grade(grader, reference, work, entry.reference_dir)
    return Verification(entry.id, condition, oracle, null, time.monotonic() - start)
