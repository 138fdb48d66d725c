"""A model provider that fails is the harness's failure, never the agent's: the record says `infrastructure`
(exit `upstream-failed`) and the sweep retries it.

Every agent family (codeact, react, an external program configured in YAML) meets every kind of upstream fault
(connection refused, a 5xx after the gateway's retries, a reply that never comes, a connection reset before the
reply or in the middle of a stream) through the whole attempt lifecycle, on the runner tests' FakeSandbox (host
subprocesses) and on the docker backend.
"""

from __future__ import annotations

import json
import socket
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import cmb.agents._llm  # noqa: F401  (registers codeact and react)
from cmb.agents import AGENTS, get_agent, load_user_agents
from cmb.catalog import Catalog
from cmb.gateway import sandbox_hosts
from cmb.models import AttemptOptions, Condition, ExitReason, FailureClass, RunKey, RunRecord, SweepSpec
from cmb.runner import RunOptions, run_attempt
from cmb.sandbox import get_backend
from cmb.scheduler import run_sweep
from cmb.settings import CmbSettings
from cmb.store import ParquetStore
from tests.agents.builtin_scripts import CLIENT, FIT_CODE, REPO, TASK, codeact_replies, react_replies
from tests.gateway.helpers import KEY_ENV, UPSTREAM_KEY, make_gateway
from tests.gateway.scripted_upstream import ScriptedUpstream
from tests.runner.fake_sandbox import FakeSandbox

MODEL = "test/gpt-4o-mini"
TRIES = 4  # make_gateway retries 3 times: four tries per request
EXTERNAL = "upstream-probe"


@pytest.fixture(scope="module")
def external_agent(tmp_path_factory: pytest.TempPathFactory) -> str:
    spec = tmp_path_factory.mktemp("agents") / "agents.yaml"
    doc = {
        "agents": {
            EXTERNAL: {
                "install": "-",
                "api": "openai-chat",
                "command": 'python3 -c "$CMB_CLIENT"',
                "env": {"CMB_CLIENT": CLIENT},
                "default_model": MODEL,
            }
        }
    }
    spec.write_text(json.dumps(doc))
    assert load_user_agents([spec]) == [EXTERNAL]
    yield EXTERNAL
    AGENTS.pop(EXTERNAL, None)


def _solving_replies(agent: str) -> list[dict[str, Any]]:
    if agent == "codeact":
        return codeact_replies()
    if agent == "react":
        return react_replies()
    return [{"content": FIT_CODE}]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# fault name -> (scripted replies that fail every try, agent options, gateway upstream options)
FAULTS: dict[str, tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]] = {
    "refused": ([], {}, {}),
    "status-503": ([{"status": 503}] * TRIES, {}, {}),
    "hang": ([{"hang": 3.0, "content": "late"}] * TRIES, {}, {"timeout_s": 0.5}),
    "reset": ([{"reset": True, "content": "cut"}] * TRIES, {}, {}),
    "reset-mid-stream": ([{"reset": True, "content": "a reply cut in the middle"}], {"stream": True}, {}),
}


def _attempt(
    tmp_path: Path, agent: str, replies: list[dict[str, Any]], backend: Any, *, refused: bool = False,
    agent_options: dict[str, Any] | None = None, upstream_options: dict[str, Any] | None = None,
) -> RunRecord:  # fmt: skip
    entry = Catalog.load(REPO).get(TASK)
    key = RunKey(sweep=f"up-{tmp_path.name}"[:40], agent=agent, task=TASK, condition=Condition.SF, trial=0)
    docker = backend is not FakeSandbox
    with ScriptedUpstream(replies, key=UPSTREAM_KEY) as up:
        url = f"http://127.0.0.1:{_closed_port()}/v1" if refused else up.base_url
        gw = make_gateway(url, tmp_path / "gateway", hosts=sandbox_hosts() if docker else None,
                          **(upstream_options or {}))  # fmt: skip
        try:
            options = RunOptions(
                home=tmp_path / "home",
                gateway=gw.access(key, MODEL),
                usage_meter=gw.meter,
                check_network=docker,
                time_limit_s=300,
                **({"image": _image(), "cpus": 1, "memory_gib": 1} if docker else {}),
            )
            return run_attempt(key, entry, get_agent(agent, model=MODEL, **(agent_options or {})), backend, options)
        finally:
            gw.stop()


def _image() -> str:
    from tests.sandbox._support import build_image

    return build_image("slim")


def _assert_upstream_failure(record: RunRecord) -> None:
    assert not record.passed and record.gated_score == 0.0
    assert record.failure_class is FailureClass.INFRASTRUCTURE, (record.exit_reason, record.error)
    assert record.exit_reason is ExitReason.UPSTREAM_FAILED
    assert record.usage.upstream_failures >= 1
    assert "model provider failed" in (record.error or "")
    assert any(m.startswith("upstream:") for m in record.audit_messages)


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("agent", ["codeact", "react", EXTERNAL])
def test_upstream_fault_is_infrastructure_for_every_agent(tmp_path, monkeypatch, external_agent, agent, fault):
    monkeypatch.setenv(KEY_ENV, UPSTREAM_KEY)
    replies, agent_options, upstream_options = FAULTS[fault]
    if agent == EXTERNAL:
        if agent_options.get("stream"):
            pytest.skip("the external probe does not stream")
        agent_options = {}
    record = _attempt(tmp_path, agent, list(replies), FakeSandbox, refused=fault == "refused",
                      agent_options=agent_options, upstream_options=upstream_options)  # fmt: skip
    _assert_upstream_failure(record)


def test_a_pass_after_a_recovered_upstream_fault_stays_a_pass(tmp_path, monkeypatch):
    """Faults the gateway's retries absorb are not failures at all; the agent's pass is kept."""
    monkeypatch.setenv(KEY_ENV, UPSTREAM_KEY)
    replies = [{"status": 503}, {"status": 502}, *react_replies()]
    record = _attempt(tmp_path, "react", replies, FakeSandbox)
    assert record.passed and record.failure_class is None and record.usage.upstream_failures == 0


def test_an_agent_failure_without_upstream_fault_is_still_the_agents(tmp_path, monkeypatch, external_agent):
    monkeypatch.setenv(KEY_ENV, UPSTREAM_KEY)
    record = _attempt(tmp_path, EXTERNAL, [{"content": "raise SystemExit('I give up')"}], FakeSandbox)
    assert record.failure_class is not FailureClass.INFRASTRUCTURE and record.exit_reason is ExitReason.AGENT_ERROR


def test_a_gateway_that_cannot_report_usage_is_infrastructure(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, UPSTREAM_KEY)
    entry = Catalog.load(REPO).get(TASK)
    key = RunKey(sweep="up-meter", agent="react", task=TASK, condition=Condition.SF, trial=0)

    def dead_meter(_: RunKey) -> None:
        raise ConnectionRefusedError("gateway admin port closed")

    with ScriptedUpstream(react_replies(), key=UPSTREAM_KEY) as up:
        gw = make_gateway(up.base_url, tmp_path / "gateway")
        try:
            options = RunOptions(home=tmp_path / "home", gateway=gw.access(key, MODEL), usage_meter=dead_meter,
                                 check_network=False, time_limit_s=300)  # fmt: skip
            record = run_attempt(key, entry, get_agent("react", model=MODEL), FakeSandbox, options)
        finally:
            gw.stop()
    assert record.failure_class is FailureClass.INFRASTRUCTURE and not record.passed
    assert "could not report the attempt's usage" in (record.error or "")


def test_a_gateway_restarted_during_the_attempt_is_infrastructure(tmp_path, monkeypatch):
    """The restarted gateway refuses the token issued before, and cannot meter the attempt: not the agent's fault."""
    monkeypatch.setenv(KEY_ENV, UPSTREAM_KEY)
    entry = Catalog.load(REPO).get(TASK)
    key = RunKey(sweep="up-restart", agent="react", task=TASK, condition=Condition.SF, trial=0)
    with ScriptedUpstream(react_replies(), key=UPSTREAM_KEY) as up:
        before = make_gateway(up.base_url, tmp_path / "gateway")
        issued = before.access(key, MODEL)
        before.stop()
        after = make_gateway(up.base_url, tmp_path / "gateway")  # a fresh process: its token registry is empty
        try:
            access = issued.model_copy(update={"base_url": after.base_url})
            options = RunOptions(home=tmp_path / "home", gateway=access, usage_meter=after.meter,
                                 check_network=False, time_limit_s=300)  # fmt: skip
            record = run_attempt(key, entry, get_agent("react", model=MODEL), FakeSandbox, options)
        finally:
            after.stop()
    assert up.remaining == len(react_replies())  # the provider was never reached
    assert record.failure_class is FailureClass.INFRASTRUCTURE and not record.passed
    assert "no longer knows the attempt" in (record.error or "")


# -- the sweep retries it ------------------------------------------------------------------------------------------


def test_the_sweep_retries_an_upstream_failure_and_records_the_pass(tmp_path, monkeypatch, external_agent):
    """First launch: the provider answers 503 to every try; the retry gets a working provider and passes."""
    monkeypatch.setenv(KEY_ENV, UPSTREAM_KEY)
    launches: Counter[str] = Counter()
    with ScriptedUpstream([{"status": 503}] * TRIES + [{"content": FIT_CODE}], key=UPSTREAM_KEY) as up:
        gw = make_gateway(up.base_url, tmp_path / "gateway")

        def attempt_fn(key: RunKey, entry: Any, ctx: Any) -> RunRecord:
            launches[str(key)] += 1
            options = RunOptions(home=tmp_path / "home", gateway=gw.access(key, MODEL), usage_meter=gw.meter,
                                 check_network=False, time_limit_s=300, retries=ctx.retry)  # fmt: skip
            return run_attempt(key, entry, get_agent(EXTERNAL, model=MODEL), FakeSandbox, options)

        try:
            spec = SweepSpec.model_validate({"name": "upstream-retry", "agents": [EXTERNAL], "tasks": [TASK],
                                             "conditions": ["SF"], "trials": 1, "max_retries": 2,
                                             "retry_backoff_s": 0.0})  # fmt: skip
            settings = CmbSettings(root=REPO, store={"home": tmp_path / "home"})
            summary = run_sweep(spec, settings=settings, attempt_fn=attempt_fn, executor="threads",
                                options=AttemptOptions(), progress=False, mlflow_uri="none")  # fmt: skip
        finally:
            gw.stop()
    assert list(launches.values()) == [2] and summary.retries == 1 and summary.infrastructure == 0
    (row,) = ParquetStore(tmp_path / "home" / "results").runs("upstream-retry").iter_rows(named=True)
    assert row["passed"] and row["retries"] == 1 and row["failure_class"] is None


# -- the docker backend --------------------------------------------------------------------------------------------


@pytest.mark.docker
@pytest.mark.parametrize(("agent", "fault"), [("react", "reset-mid-stream"), ("codeact", "status-503"),
                                              (EXTERNAL, "refused"), (EXTERNAL, "hang")])  # fmt: skip
def test_upstream_fault_is_infrastructure_in_docker(tmp_path, monkeypatch, external_agent, agent, fault):
    from tests.sandbox._support import require_backend

    require_backend("docker")
    monkeypatch.setenv(KEY_ENV, UPSTREAM_KEY)
    replies, agent_options, upstream_options = FAULTS[fault]
    record = _attempt(tmp_path, agent, list(replies), get_backend("docker"), refused=fault == "refused",
                      agent_options=agent_options, upstream_options=upstream_options)  # fmt: skip
    _assert_upstream_failure(record)
