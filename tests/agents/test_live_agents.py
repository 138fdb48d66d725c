"""Each external agent that installs here, run for real against the scripted test server (not a model).

They run on the in-test sandbox (host processes: the local backend has no route to a server on the host, and
these tests are about the adapter, not isolation), with a hard time limit enforced by the supervisor."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from cmb.agents import GatewayAccess, get_agent
from cmb.catalog import Catalog
from cmb.models import Condition, RunKey, RunRecord
from cmb.runner import RunOptions, artifacts_path, run_attempt
from tests.agents.scripted_llm_server import USAGE_IN, USAGE_OUT, Script, ScriptedLLMServer, bash_call
from tests.runner.fake_sandbox import FakeSandbox

REPO = Path(__file__).resolve().parents[2]
MINI_VENV = Path(os.environ.get("CMB_MINI_VENV", "/opt/cmb-mini"))
RUN_KEY = "per-run-key-7f3a"


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    srv = ScriptedLLMServer()
    yield srv
    srv.close()


def _attempt(tmp_path: Path, agent_name: str, server: ScriptedLLMServer, limit: int = 90) -> RunRecord:
    entry = Catalog.load(REPO).get("si-eos-analysis")
    opts = RunOptions(
        home=tmp_path / "home",
        check_network=False,  # the in-test sandbox has the host's network, by design here
        time_limit_s=limit,
        gateway=GatewayAccess(base_url=server.base_url, api_key=RUN_KEY, model="test-model"),
    )
    key = RunKey(sweep="live", agent=agent_name, task=entry.id, condition=Condition.SF, trial=0)
    return run_attempt(key, entry, get_agent(agent_name, model="test-model"), FakeSandbox, opts)


def _keyed(server: ScriptedLLMServer, suffix: str) -> list[str]:
    return [r.auth or "" for r in server.requests if r.path.split("?")[0].endswith(suffix)]


@pytest.mark.slow
def test_mini_swe_agent_runs_commands_from_scripted_replies(
    tmp_path: Path, server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not (MINI_VENV / "bin" / "mini").exists():
        pytest.skip(f"mini-swe-agent not installed in {MINI_VENV}")
    monkeypatch.setenv("PATH", f"{MINI_VENV / 'bin'}{os.pathsep}{os.environ['PATH']}")
    server.script = Script(
        chat=[
            bash_call('printf \'{"a0_angstrom": 5.4, "B0_GPa": 1, "V0_per_atom_A3": 2}\' > answer.json'),
            bash_call("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "call_2"),
        ]
    )
    record = _attempt(tmp_path, "mini-swe-agent", server)
    auths = _keyed(server, "/v1/chat/completions")
    assert auths and all(a == f"Bearer {RUN_KEY}" for a in auths), [r.path for r in server.requests]
    assert record.submitted_files == ["answer.json"]  # the scripted command ran in the working folder
    usage = record.agent_reported_usage
    assert usage is not None and usage["input_tokens"] == USAGE_IN * usage["requests"] and usage["requests"] >= 2
    assert record.usage.source == "agent-report" and record.usage.model_cost_usd is None
    assert (artifacts_path(tmp_path / "home", record.key) / "agent" / "trajectory.json").is_file()


@pytest.mark.slow
def test_codex_calls_the_responses_api_with_the_run_key(tmp_path: Path, server: ScriptedLLMServer) -> None:
    if shutil.which("codex") is None:
        pytest.skip("codex not installed (npm i -g @openai/codex)")
    record = _attempt(tmp_path, "codex", server, limit=60)
    auths = _keyed(server, "/v1/responses")
    assert auths and all(a == f"Bearer {RUN_KEY}" for a in auths), [(r.path, r.auth) for r in server.requests]
    usage = record.agent_reported_usage
    assert usage is not None and usage["input_tokens"] == USAGE_IN and usage["output_tokens"] == USAGE_OUT, (
        artifacts_path(tmp_path / "home", record.key) / "stderr.txt"
    ).read_text()[-2000:]
    assert record.exit_reason == "completed"
    assert (artifacts_path(tmp_path / "home", record.key) / "agent" / "events.jsonl").is_file()


@pytest.mark.slow
def test_claude_code_calls_the_messages_api_with_the_run_key(tmp_path: Path, server: ScriptedLLMServer) -> None:
    if shutil.which("claude") is None:
        pytest.skip("claude not installed (npm i -g @anthropic-ai/claude-code)")
    record = _attempt(tmp_path, "claude-code", server, limit=60)
    keys = _keyed(server, "/v1/messages")
    assert keys and all(RUN_KEY in k for k in keys), [(r.path, r.auth) for r in server.requests]
    usage = record.agent_reported_usage
    stderr = (artifacts_path(tmp_path / "home", record.key) / "stderr.txt").read_text()[-2000:]
    assert usage is not None and usage["output_tokens"] >= USAGE_OUT, stderr
    assert record.usage.model_cost_usd is None  # its own cost figure is never taken
