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


def test_agent_ref_round_trips_through_the_attempt_key():
    from cmb.models import AgentRef

    ref = AgentRef(name="codeact", model="test/Qwen/Qwen3-8B")
    assert ref.key == "codeact@test:Qwen%2FQwen3-8B"  # no '/' in a key part
    assert AgentRef.parse(ref.key) == AgentRef(name="codeact", model="test:Qwen%2FQwen3-8B")
    assert AgentRef.parse(AgentRef.parse(ref.key).key).key == ref.key
    assert AgentRef.parse("oracle") == AgentRef(name="oracle") and AgentRef.parse("oracle").key == "oracle"
    assert AgentRef.parse("react").with_model("openai/gpt-4o").key == "react@openai:gpt-4o"
    assert AgentRef.parse("react@a:b").with_model("openai/gpt-4o").key == "react@a:b"  # its own model stays


def test_exit_reasons_are_the_runners_and_serialise_as_before():
    from cmb.models import ExitReason

    assert {r.value for r in ExitReason} == {
        "completed", "agent-error", "time-limit", "memory-limit", "disk-limit", "audit-failed", "infrastructure",
        "grader-error", "sandbox-not-isolated", "upstream-failed",
    }  # fmt: skip
    assert ExitReason.TIME_LIMIT == "time-limit"


def test_a_version_1_record_is_upgraded_on_read():
    from cmb.models import RUN_RECORD_VERSION, AuditFlags, ExitReason, Kind

    now = datetime.now(UTC).isoformat()
    old = {
        "version": 1, "key": {"sweep": "s", "agent": "a", "task": "t1", "condition": "SF", "trial": 0},
        "study": "s", "kind": "run-and-analyze", "started_at": now, "finished_at": now, "exit_reason": "node lost",
        "resources": DEFAULT_PROFILES["single"].model_dump(), "raw_score": 0.0, "gated_score": 0.0, "passed": False,
        "failure_class": "infrastructure", "task_hash": "x", "grader_hash": "y", "harness_version": "0.1.0",
        "audit_flags": {"log_intact": True, "network_isolated": True},
    }  # fmt: skip
    record = RunRecord.model_validate(old)
    assert record.version == RUN_RECORD_VERSION and record.kind is Kind.RUN_AND_ANALYZE
    assert record.exit_reason is ExitReason.INFRASTRUCTURE
    assert record.audit_flags == AuditFlags(
        log_intact=True, code_invoked=False, job_done=False, wallclock_ok=False, network_isolated=True
    )  # a flag the old record lacks did not hold
    assert RunRecord.model_validate({**old, "audit_flags": {}}).audit_flags is None
    with pytest.raises(ValidationError):
        RunRecord.model_validate({**old, "version": RUN_RECORD_VERSION})  # a current record names a real reason


def test_attempt_options_are_typed_and_versioned():
    import pickle

    from cmb.models import ATTEMPT_OPTIONS_VERSION, AttemptOptions, GatewayEndpoint

    options = AttemptOptions(backend="docker", gateway=GatewayEndpoint(url="http://gw:1", admin_key="s3cret-admin"))
    assert options.version == ATTEMPT_OPTIONS_VERSION and options.image is None
    assert "s3cret-admin" not in options.model_dump_json() + repr(options)  # a secret is never printed ...
    again = pickle.loads(pickle.dumps(options))  # ... but it reaches the launchers
    assert again.gateway.admin_key is not None and again.gateway.admin_key.get_secret_value() == "s3cret-admin"
    with pytest.raises(ValidationError):
        AttemptOptions(time_limit_s=0)
    with pytest.raises(ValidationError):
        AttemptOptions(imgae="x")  # type: ignore[call-arg]
