"""Prove each task gradeable end to end: its oracle passes, an empty submission and the recall baseline fail."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from cmb.catalog._bundle import stage_bundle
from cmb.catalog._load import TaskEntry
from cmb.catalog._solution import assemble_solution
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
    recall: GradeReport | None = None  # None when the task has no recall.yaml yet
    recall_audited: bool = False  # the task requires a code, so the audit voids a recall submission anyway

    @property
    def recall_fails(self) -> bool:
        """The recall baseline fails on the gated score: its submission fails, or the code audit voids it."""
        return self.recall is None or not self.recall.passed or self.recall_audited

    @property
    def ok(self) -> bool:
        """The oracle passes; the empty submission and the recall baseline fail."""
        oracle_ok = self.error is None and self.oracle is not None and self.oracle.passed
        return oracle_ok and not self.null.passed and self.recall_fails


def run_solution(entry: TaskEntry, workdir: Path, timeout_s: float) -> subprocess.CompletedProcess[str]:
    """Run the task's trusted oracle script in `workdir` (a staged bundle), from its assembled solution folder."""
    with tempfile.TemporaryDirectory(prefix=f"cmb-solution-{entry.id}-") as tmp:
        solution = assemble_solution(entry, Path(tmp) / "solution")
        env = {**os.environ, "CMB_SOLUTION_DIR": str(solution), "OMP_NUM_THREADS": "1"}
        return subprocess.run(
            ["bash", str(solution / "solve.sh")],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )


def _grade_recall(entry: TaskEntry, folder: Path) -> GradeReport | None:
    if not (entry.reference_dir / "recall.yaml").is_file():
        return None
    folder.mkdir()
    for name, text in entry.recall().submission().items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return grade(entry.grader(), entry.reference(), folder, entry.reference_dir)


def verify_entry(entry: TaskEntry, condition: Condition, timeout_s: float = 1800) -> Verification:
    """Stage the bundle, run the oracle into it, grade it; grade an empty folder and the recall submission too."""
    grader, reference = entry.grader(), entry.reference()
    start = time.monotonic()
    audited = bool(entry.spec.required_codes)
    with tempfile.TemporaryDirectory(prefix=f"cmb-verify-{entry.id}-") as tmp:
        work, empty = Path(tmp) / "work", Path(tmp) / "empty"
        empty.mkdir()
        stage_bundle(entry, condition, work)
        null = grade(grader, reference, empty, entry.reference_dir)
        recall = _grade_recall(entry, Path(tmp) / "recall")
        try:
            proc = run_solution(entry, work, timeout_s)
        except subprocess.TimeoutExpired:
            return Verification(
                entry.id, condition, None, null, time.monotonic() - start, "oracle timed out", recall, audited
            )
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout)[-800:]
            error = f"oracle exited {proc.returncode}: {tail}"
            return Verification(entry.id, condition, None, null, time.monotonic() - start, error, recall, audited)
        oracle = grade(grader, reference, work, entry.reference_dir)
    return Verification(entry.id, condition, oracle, null, time.monotonic() - start, None, recall, audited)
