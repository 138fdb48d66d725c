"""Model invariants."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from cmb.models import DEFAULT_PROFILES, Check, Condition, GraderSpec, RunKey, RunRecord, SweepSpec, Tolerance


def test_run_key_round_trip_and_slug_is_a_valid_k8s_name():
    key = RunKey(sweep="s1", agent="codeact@gpt", task="si-eos-analysis", condition=Condition.SR, trial=2)
    assert str(key) == "s1/codeact@gpt/si-eos-analysis/SR/2"
    assert RunKey.parse(str(key)) == key
    assert len(key.slug) <= 63 and key.slug == key.slug.lower()
    assert key.slug != RunKey(**{**key.model_dump(), "trial": 3}).slug


def test_run_key_rejects_separators():
    with pytest.raises(ValidationError):
        RunKey(sweep="a/b", agent="x", task="t", condition="SF", trial=0)


def test_tolerance_is_either_relative_or_absolute():
    assert Tolerance().describe() == "10% rel"
    with pytest.raises(ValidationError, match="either"):
        Tolerance(rel=0.1, abs=0.1)
    with pytest.raises(ValidationError):
        Tolerance(rel=-0.1)


def test_grader_check_ids_unique():
    check = {"id": "a", "type": "numeric.scalar", "category": "scientific", "target": {"file": "a.json"}}
    with pytest.raises(ValidationError, match="duplicate check id"):
        GraderSpec(task="t", checks=[check, check])


def test_target_may_not_leave_submission():
    with pytest.raises(ValidationError, match="relative path"):
        Check(id="a", type="numeric.scalar", category="format", target={"file": "../x.json"})


def test_run_record_passed_has_no_failure_class():
    now = datetime.now(UTC)
    base = dict(
        key=RunKey(sweep="s", agent="a", task="t1", condition="SF", trial=0),
        study="s",
        kind="output-analysis",
        started_at=now,
        finished_at=now,
        exit_reason="completed",
        resources=DEFAULT_PROFILES["single"],
        raw_score=1.0,
        gated_score=1.0,
        task_hash="x",
        grader_hash="y",
        harness_version="0.1.0",
    )
    RunRecord(**base, passed=True)
    with pytest.raises(ValidationError, match="no failure class"):
        RunRecord(**base, passed=True, failure_class="scientific")


def test_sweep_hash_ignores_concurrency_only():
    a = SweepSpec(name="s", agents=["oracle"])
    assert a.spec_hash() == SweepSpec(name="s", agents=["oracle"], max_concurrency=8).spec_hash()
    assert a.spec_hash() != SweepSpec(name="s", agents=["oracle"], trials=3).spec_hash()


def test_conditions():
    assert Condition.SR.reduced and not Condition.SR.workflow
    assert Condition.WF.workflow and not Condition.WF.reduced
