"""The whole task suite: counts, validation (leakage included), and every oracle through the grader."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from click.testing import CliRunner

from cmb.catalog import PROMPT_NAME, validate, verify_entry
from cmb.cli import cli
from cmb.models import WorkflowSpec
from tests.tasks._helpers import CATALOG, grade_dir, run_oracle

ENTRIES = sorted(CATALOG.entries.values(), key=lambda e: e.id)


def test_suite_counts_meet_the_benchmark_design():
    """The breadth of the benchmark CompMat-Bench describes: 94 single tasks, 25 of each kind, 15 studies (8 or more
    of them following the 2025-2026 studies it drew from), 8 workflows of 3-4 steps, 10 codes."""
    rows = json.loads(CliRunner().invoke(cli, ["tasks", "list", "--json"]).output)
    singles = [r for r in rows if r["kind"] != "workflow"]
    kinds = Counter(r["kind"] for r in singles)
    assert len(singles) >= 94, len(singles)
    assert min(kinds[k] for k in ("input-preparation", "output-analysis", "run-and-analyze")) >= 25, kinds
    studies = {r["study"] for r in singles}
    assert len(studies) >= 15, sorted(studies)
    recent = {s for s in studies if (CATALOG.studies[s].spec.follows.year or 0) >= 2025}
    assert len(recent) >= 8, sorted(recent)
    assert len({c for r in singles for c in r["codes"]}) >= 10
    workflows = [e for e in ENTRIES if isinstance(e.spec, WorkflowSpec)]
    assert len(workflows) >= 8 and all(3 <= len(e.spec.steps) <= 4 for e in workflows), [
        (e.id, len(e.spec.steps)) for e in workflows
    ]
    assert sum(r["has_reduced"] for r in singles) * 2 >= len(singles)


def test_every_entry_validates_with_no_leak():
    problems = validate(CATALOG)
    assert problems == [], "\n".join(map(str, problems))


def test_no_oracle_reads_the_prompt():
    """The oracle's output is then the same under every condition, which lets the tests run it once per task."""
    readers = [
        f"{e.id}: {path.relative_to(e.reference_dir)}"
        for e in ENTRIES
        for path in sorted((e.reference_dir / "solution").rglob("*"))
        if path.is_file() and PROMPT_NAME.encode() in path.read_bytes()
    ]
    assert readers == []


# Tools that several solution folders hold (solution folders are self-contained, so each keeps its copy).
SHARED_TOOLS = ("agf.py", "bas_disorder.py", "bas_isotope.py", "hbn_path.py", "hgte_fermi.py", "lmp_forces.py",
                "ni_saddle.py", "transmission.py")  # fmt: skip


@pytest.mark.parametrize("tool", SHARED_TOOLS)
def test_every_copy_of_a_shared_solution_tool_is_the_same_file(tool):
    paths = {e.id: e.reference_dir / "solution" / tool for e in ENTRIES}
    copies = {task: path for task, path in paths.items() if path.is_file()}
    assert len(copies) >= 2, f"{tool} is no longer shared: drop it from SHARED_TOOLS"
    versions = {path.read_bytes() for path in copies.values()}
    assert len(versions) == 1, f"the copies of {tool} differ: {sorted(copies)}"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("entry", "condition"),
    [(e, c) for e in ENTRIES for c in e.conditions()],
    ids=[f"{e.id}-{c.value}" for e in ENTRIES for c in e.conditions()],
)
def test_oracle_passes_and_empty_submission_fails(entry, condition, tmp_path):
    oracle = grade_dir(entry.id, run_oracle(entry.id, tmp_path / "oracle", condition))
    failing = [f"{c.id}: {c.message}" for c in oracle.checks if not c.passed]
    assert oracle.passed, failing
    (tmp_path / "empty").mkdir()
    null = grade_dir(entry.id, tmp_path / "empty")
    assert not null.passed
    assert null.score < 1.0


def test_verify_entry_grades_the_oracle_the_empty_folder_and_the_recall_answer():
    """`cmb tasks verify`'s own path, on a task whose oracle takes a second."""
    e = CATALOG.get("si-pw-scf-inputs")
    result = verify_entry(e, e.conditions()[1], timeout_s=120)
    assert result.error is None, result.error
    assert result.oracle is not None and result.oracle.passed
    assert not result.null.passed
    assert result.recall is not None and not result.recall.passed
