"""The whole task suite: counts, validation (leakage included), and every oracle through the grader."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from click.testing import CliRunner

from cmb.catalog import validate, verify_entry
from cmb.cli import cli
from tests.tasks._helpers import CATALOG

ENTRIES = sorted(CATALOG.entries.values(), key=lambda e: e.id)


def test_suite_counts_meet_the_benchmark_design():
    rows = json.loads(CliRunner().invoke(cli, ["tasks", "list", "--json"]).output)
    singles = [r for r in rows if r["kind"] != "workflow"]
    kinds = Counter(r["kind"] for r in singles)
    assert len(singles) >= 30
    assert len({r["study"] for r in singles}) >= 7
    assert min(kinds[k] for k in ("input-preparation", "output-analysis", "run-and-analyze")) >= 8, kinds
    assert len({c for r in singles for c in r["codes"]}) >= 4
    assert sum(r["kind"] == "workflow" for r in rows) >= 3
    assert sum(r["has_reduced"] for r in singles) * 2 >= len(singles)


def test_every_entry_validates_with_no_leak():
    problems = validate(CATALOG)
    assert problems == [], "\n".join(map(str, problems))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("entry", "condition"),
    [(e, c) for e in ENTRIES for c in e.conditions()],
    ids=[f"{e.id}-{c.value}" for e in ENTRIES for c in e.conditions()],
)
def test_oracle_passes_and_empty_submission_fails(entry, condition):
    result = verify_entry(entry, condition, timeout_s=600)
    assert result.error is None, result.error
    assert result.oracle is not None
    failing = [f"{c.id}: {c.message}" for c in result.oracle.checks if not c.passed]
    assert result.oracle.passed, failing
    assert not result.null.passed
    assert result.null.score < 1.0
