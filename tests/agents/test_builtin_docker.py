"""codeact and react in a Docker sandbox on si-eos-analysis, through the gateway, against the scripted test server.

The sandbox's only network destination is the gateway (through the docker backend's relay); the gateway listens on
loopback and the docker bridge, and forwards to the scripted upstream on loopback with the provider key.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cmb.agents._llm  # noqa: F401  (registers codeact and react)
from cmb.agents import get_agent
from cmb.catalog import Catalog
from cmb.gateway import Budget, GatewayConfig, LocalGateway, RetryPolicy, UpstreamConfig, sandbox_hosts
from cmb.models import Condition, RunKey
from cmb.runner import RunOptions, artifacts_path, run_attempt
from cmb.sandbox import get_backend
from tests.agents.builtin_scripts import REPO, TASK, USAGE, codeact_replies, expected_cost, react_replies
from tests.gateway.helpers import KEY_ENV, UPSTREAM_KEY
from tests.gateway.scripted_upstream import ScriptedUpstream
from tests.sandbox._support import build_image, require_backend

pytestmark = pytest.mark.docker
MODEL = "test/gpt-4o-mini"


def _gateway(upstream_url: str, records: Path) -> LocalGateway:
    config = GatewayConfig(
        upstreams={"test": UpstreamConfig(base_url=upstream_url, key_env=KEY_ENV, price_provider="openai")},
        retry=RetryPolicy(max_retries=3, base_delay_s=0.05, max_delay_s=0.2),
        records_dir=records,
    )
    return LocalGateway(config, hosts=sandbox_hosts()).start()


def _attempt(tmp_path: Path, agent: str, replies: list[dict], budget: Budget | None = None, **agent_options):
    require_backend("docker")
    image = build_image("slim")
    entry = Catalog.load(REPO).get(TASK)
    # a sweep name per test: deterministic container names must not collide between tests
    key = RunKey(sweep=f"gw-{tmp_path.name}", agent=agent, task=TASK, condition=Condition.SF, trial=0)
    with ScriptedUpstream(replies, key=UPSTREAM_KEY) as up:
        gw = _gateway(up.base_url, tmp_path / "gateway")
        try:
            options = RunOptions(
                home=tmp_path / "home",
                image=image,
                gateway=gw.access(key, MODEL, budget),
                usage_meter=gw.meter,
                time_limit_s=300,
                cpus=1,
                memory_gib=1,
            )
            record = run_attempt(
                key, entry, get_agent(agent, model=MODEL, **agent_options), get_backend("docker"), options
            )
        finally:
            gw.stop()
    return record, up, key


@pytest.mark.parametrize(
    ("agent", "replies", "stream"), [("codeact", codeact_replies, False), ("react", react_replies, True)]
)
def test_agent_in_docker_passes_and_the_record_has_the_metered_usage(tmp_path, monkeypatch, agent, replies, stream):
    monkeypatch.setenv(KEY_ENV, UPSTREAM_KEY)
    record, up, key = _attempt(tmp_path, agent, replies(), stream=stream)
    assert record.passed, (record.error, record.audit_messages, record.exit_reason)
    assert record.backend == "docker" and record.audit_flags.network_isolated
    u = record.usage
    assert u.source == "gateway" and u.requests == 3 and up.remaining == 0
    assert all(bool(r.get("stream")) == stream for r in up.requests)
    assert u.input_tokens == sum(x["prompt"] for x in USAGE) and u.output_tokens == sum(x["completion"] for x in USAGE)
    assert u.cached_tokens == sum(x.get("cached", 0) for x in USAGE)
    assert u.model_cost_usd == pytest.approx(expected_cost(USAGE))
    art = artifacts_path(tmp_path / "home", key)
    assert json.loads((art / "submission" / "answer.json").read_text())["a0_angstrom"] > 5
    # the provider key never entered the sandbox: not in what the agent sent, saw or wrote
    assert UPSTREAM_KEY not in (art / "agent" / "trajectory.jsonl").read_text()
    assert UPSTREAM_KEY not in (art / "stdout.txt").read_text() + (art / "stderr.txt").read_text()


def test_budget_overrun_in_docker_ends_the_agent_and_is_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, UPSTREAM_KEY)
    record, up, key = _attempt(tmp_path, "codeact", codeact_replies(), Budget(max_requests=2))
    # the third call (the final answer) was refused: the agent stopped on the gateway's 429, and the answer it had
    # already written is graded as usual
    assert record.agent_exit_code == 5 and record.agent_reported_usage["end_reason"] == "budget"
    assert record.passed and record.exit_reason == "agent-error"
    assert record.usage.requests == 2 and len(up.requests) == 2
    lines = (artifacts_path(tmp_path / "home", key) / "agent" / "trajectory.jsonl").read_text().splitlines()
    assert "request budget exhausted" in json.loads(lines[-2])["message"]
