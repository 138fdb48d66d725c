"""codeact and react through the whole attempt lifecycle (run_attempt) with the gateway's meter as the usage source.

The sandbox here is the runner tests' FakeSandbox (host subprocesses, loopback reachable); the Docker version of
the same attempt is in test_builtin_docker.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cmb.agents._llm  # noqa: F401  (registers codeact and react)
from cmb.agents import get_agent
from cmb.catalog import Catalog
from cmb.models import Condition, RunKey
from cmb.runner import RunOptions, artifacts_path, run_attempt
from tests.agents.builtin_scripts import REPO, TASK, USAGE, codeact_replies, expected_cost, react_replies
from tests.gateway.helpers import KEY_ENV, UPSTREAM_KEY, make_gateway
from tests.gateway.scripted_upstream import ScriptedUpstream
from tests.harbor_atif import validate_atif
from tests.runner.fake_sandbox import FakeSandbox

MODEL = "test/gpt-4o-mini"


@pytest.mark.parametrize(("agent", "replies"), [("codeact", codeact_replies), ("react", react_replies)])
def test_attempt_record_carries_the_gateway_usage(tmp_path: Path, monkeypatch, agent, replies):
    monkeypatch.setenv(KEY_ENV, UPSTREAM_KEY)
    entry = Catalog.load(REPO).get(TASK)
    key = RunKey(sweep="gw-test", agent=agent, task=TASK, condition=Condition.SF, trial=0)
    with ScriptedUpstream(replies(), key=UPSTREAM_KEY) as up:
        gw = make_gateway(up.base_url, tmp_path / "gateway")
        try:
            options = RunOptions(
                home=tmp_path / "home",
                gateway=gw.access(key, MODEL),
                usage_meter=gw.meter,
                trajectory=gw.trajectory,
                check_network=False,
                time_limit_s=300,
            )
            record = run_attempt(key, entry, get_agent(agent, model=MODEL), FakeSandbox, options)
        finally:
            gw.stop()
    transcript = Path(gw.usage(key).transcript)
    assert record.passed, (record.error, record.audit_messages)
    u = record.usage
    assert u.source == "gateway" and u.model == MODEL and u.requests == 3
    assert (u.input_tokens, u.output_tokens) == (sum(x["prompt"] for x in USAGE), sum(x["completion"] for x in USAGE))
    assert u.cached_tokens == sum(x.get("cached", 0) for x in USAGE) and u.reasoning_tokens == 50
    assert u.model_cost_usd == pytest.approx(expected_cost(USAGE)) and u.price_table.startswith("genai-prices==")
    assert record.agent_steps == 3 and record.agent_exit_code == 0
    # the agent's own count is kept beside the metered one
    assert record.agent_reported_usage["input_tokens"] == u.input_tokens
    art = artifacts_path(tmp_path / "home", key)
    lines = [json.loads(x) for x in (art / "agent" / "trajectory.jsonl").read_text().splitlines()]
    assert lines[0]["type"] == "start" and "api_key" not in lines[0]["settings"] and lines[-1]["type"] == "end"

    # the model conversation in ATIF, beside the transcript and in the artifacts, with the record's token totals
    atif = art / "trajectory.atif.json"
    trajectory = json.loads(atif.read_text())
    assert json.loads((transcript.parent / "trajectory.atif.json").read_text()) == trajectory
    final = trajectory["final_metrics"]
    totals = (final["total_prompt_tokens"], final["total_completion_tokens"], final["total_cached_tokens"])
    assert totals == (u.input_tokens, u.output_tokens, u.cached_tokens)
    assert final["total_cost_usd"] == pytest.approx(u.model_cost_usd) and final["extra"]["reasoning_tokens"] == 50
    assert trajectory["session_id"] == str(key) and trajectory["agent"]["name"] == agent
    steps = trajectory["steps"]
    assert [s["source"] for s in steps[:3]] == ["system", "user", "agent"]
    assert sum(s["source"] == "agent" for s in steps) == u.requests
    if agent == "react":  # tool calls answered by the tool messages of the next request
        first = steps[2]
        assert first["tool_calls"][0]["function_name"] == "write_file"
        assert first["observation"]["results"][0]["source_call_id"] == first["tool_calls"][0]["tool_call_id"]
    else:  # codeact: what the code printed is the next user message
        assert steps[3]["source"] == "user" and "scf_" in steps[3]["message"]
    validate_atif(atif)


def test_an_attempt_that_calls_no_model_writes_no_trajectory(tmp_path: Path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, UPSTREAM_KEY)
    entry = Catalog.load(REPO).get(TASK)
    key = RunKey(sweep="gw-test", agent="null", task=TASK, condition=Condition.SF, trial=0)
    with ScriptedUpstream([], key=UPSTREAM_KEY) as up:
        gw = make_gateway(up.base_url, tmp_path / "gateway")
        try:
            options = RunOptions(
                home=tmp_path / "home",
                gateway=gw.access(key, MODEL),  # a shared gateway gives every attempt a token
                usage_meter=gw.meter,
                trajectory=gw.trajectory,
                check_network=False,
                time_limit_s=60,
            )
            record = run_attempt(key, entry, get_agent("null"), FakeSandbox, options)
        finally:
            gw.stop()
    assert record.usage.requests == 0 and not record.sandbox_warnings
    assert not (artifacts_path(tmp_path / "home", key) / "trajectory.atif.json").exists()
    assert not (Path(gw.usage(key).transcript).parent / "trajectory.atif.json").exists()


def test_attempt_without_a_gateway_is_an_infrastructure_failure(tmp_path: Path):
    entry = Catalog.load(REPO).get(TASK)
    key = RunKey(sweep="gw-test", agent="codeact", task=TASK, condition=Condition.SF, trial=0)
    options = RunOptions(home=tmp_path / "home", check_network=False, time_limit_s=60)
    record = run_attempt(key, entry, get_agent("codeact", model=MODEL), FakeSandbox, options)
    assert record.failure_class is not None and record.failure_class.value == "infrastructure"
    assert "needs a model gateway" in (record.error or "")


def test_agent_options_from_the_command_line_are_converted():
    agent = get_agent(
        "codeact", model=MODEL, max_steps="7", response_format="json_schema", extra_body='{"grammar": "root ::= x"}'
    )
    assert agent.config.max_steps == 7 and agent.config.extra_body == {"grammar": "root ::= x"}
    with pytest.raises(ValueError):
        get_agent("react", model=MODEL, max_steps="0")
