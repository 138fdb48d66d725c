"""External agent adapters: the exact command line and environment each program gets, its usage parsed, YAML-only
additions; the agents that install here are run against a scripted OpenAI/Anthropic-compatible test server."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from cmb.agents import (
    AGENTS,
    USAGE_PARSERS,
    AgentContext,
    ExternalAgent,
    GatewayAccess,
    SandboxPaths,
    get_agent,
    load_user_agents,
)
from cmb.agents._external import AgentSetupError
from cmb.models import Condition, RunKey, TaskSpec
from cmb.sandbox import ExecResult

PATHS = SandboxPaths(
    root="/workspace",
    work="/workspace/work",
    home="/workspace/.agent",
    harness="/workspace/.cmb",
    prompt_file="/workspace/work/PROMPT.md",
)
GATEWAY = GatewayAccess(base_url="http://gateway:8080", api_key="run-key-123", model="test-model")


class StubContext(AgentContext):
    """Records what the agent asks to run; answers with canned results."""

    def __init__(self, gateway: GatewayAccess = GATEWAY, results: list[ExecResult] | None = None) -> None:
        task = TaskSpec(id="t-1", study="s-1", kind="output-analysis", codes=["qe"], title="toy", answer_files=["a"])
        super().__init__(
            key=RunKey(sweep="s", agent="a", task="t-1", condition=Condition.SF, trial=0),
            task=task, condition=Condition.SF, prompt="p", paths=PATHS, gateway=gateway, time_limit_s=600,
            base_env={}, artifacts_dir=Path("/nonexistent"),
        )  # fmt: skip
        self.calls: list[tuple[list[str], dict[str, str]]] = []
        self.results = list(results or [])

    def exec(self, argv, *, env=None, cwd=None, timeout_s=None):  # type: ignore[no-untyped-def]
        self.calls.append((argv, env or {}))
        return self.results.pop(0) if self.results else ExecResult(0, "", "", 0.1)

    def put_dir(self, src: Path, dest: str) -> None: ...

    def put_files(self, files: dict[str, str | bytes], dest: str) -> None: ...

    def fetch(self, src: str, dest: Path, max_bytes: int = 0) -> bool:
        return False

    def remaining_s(self) -> float:
        return 600.0


def _command(name: str) -> tuple[list[str], dict[str, str]]:
    agent = get_agent(name)
    assert isinstance(agent, ExternalAgent)
    return agent.command_line(StubContext())


def test_codex_command_line() -> None:
    argv, env = _command("codex")
    assert argv[:2] == ["/bin/sh", "-c"]
    words = shlex.split(argv[2])
    assert words[:4] == ["mkdir", "-p", "$CODEX_HOME", "&&"]  # codex refuses a CODEX_HOME that does not exist
    words = words[4:]
    assert words[:3] == ["codex", "exec", "--json"]
    for flag in ("--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"):
        assert flag in words
    assert words[words.index("--cd") + 1] == "/workspace/work"
    assert words[words.index("--model") + 1] == "gpt-5-codex"
    assert "model_provider=cmb" in words and "model_providers.cmb.wire_api=responses" in words
    assert 'model_providers.cmb.base_url="$CMB_BASE_URL/v1"' in words  # expanded by the shell from env
    assert "model_providers.cmb.env_key=CMB_API_KEY" in words
    assert words[-3:] == ["-", "<", "/workspace/work/PROMPT.md"]
    assert env["CMB_BASE_URL"] == "http://gateway:8080" and env["CMB_API_KEY"] == "run-key-123"
    assert env["CODEX_HOME"] == "/workspace/.agent/.codex"


def test_claude_code_command_line() -> None:
    argv, env = _command("claude-code")
    words = shlex.split(argv[2])
    assert words[:4] == ["claude", "-p", "--output-format", "json"]
    assert "--dangerously-skip-permissions" in words and words[-2:] == ["<", "/workspace/work/PROMPT.md"]
    assert env["ANTHROPIC_BASE_URL"] == "http://gateway:8080" and env["ANTHROPIC_API_KEY"] == "run-key-123"
    assert env["IS_SANDBOX"] == "1" and env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"


def test_mini_swe_agent_command_line() -> None:
    argv, env = _command("mini-swe-agent")
    words = shlex.split(argv[2])
    assert words[0] == "mini" and "--yolo" in words and "--exit-immediately" in words
    assert words[words.index("--model") + 1] == "openai/gpt-4.1-mini"
    assert words[words.index("--output") + 1] == "/workspace/.agent/trajectory.json"
    assert env["OPENAI_BASE_URL"] == "http://gateway:8080/v1" and env["OPENAI_API_KEY"] == "run-key-123"


def test_model_option_overrides_the_default() -> None:
    agent = get_agent("codex", model="o4-mini")
    assert isinstance(agent, ExternalAgent)
    words = shlex.split(agent.command_line(StubContext())[0][2])
    assert words[words.index("--model") + 1] == "o4-mini"


def test_hostile_model_name_stays_one_shell_word() -> None:
    agent = get_agent("codex", model="x; touch /pwned")
    assert isinstance(agent, ExternalAgent)
    words = shlex.split(agent.command_line(StubContext())[0][2])
    assert words[words.index("--model") + 1] == "x; touch /pwned"


def test_external_agent_without_gateway_is_an_infrastructure_error() -> None:
    with pytest.raises(AgentSetupError, match="gateway"):
        get_agent("codex").run(StubContext(gateway=GatewayAccess()))


def test_missing_program_is_an_infrastructure_error() -> None:
    ctx = StubContext(results=[ExecResult(1, "", "", 0.0)])
    with pytest.raises(AgentSetupError, match="needs codex"):
        get_agent("codex").run(ctx)
    assert "command -v codex" in ctx.calls[0][0][2]


def test_codex_usage_from_jsonl_events() -> None:
    events = [
        {"type": "thread.started", "thread_id": "t"},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "hi"}},
        {"type": "turn.completed", "usage": {"input_tokens": 120, "cached_input_tokens": 20, "output_tokens": 7}},
    ]
    usage = USAGE_PARSERS["codex-jsonl"]("\n".join(map(json.dumps, events)) + "\nnot json\n")
    assert usage is not None
    assert (usage["input_tokens"], usage["cached_tokens"], usage["output_tokens"], usage["steps"]) == (120, 20, 7, 1)


def test_claude_usage_keeps_its_cost_only_as_untrusted() -> None:
    result = {"type": "result", "subtype": "success", "num_turns": 3, "total_cost_usd": 0.42, "is_error": False,
              "usage": {"input_tokens": 10, "cache_read_input_tokens": 90, "output_tokens": 5}}  # fmt: skip
    usage = USAGE_PARSERS["claude-json"](json.dumps(result))
    assert usage is not None
    assert usage["input_tokens"] == 100 and usage["cached_tokens"] == 90 and usage["steps"] == 3
    assert usage["self_reported_cost_usd_untrusted"] == 0.42 and "model_cost_usd" not in usage


def test_mini_usage_from_trajectory() -> None:
    traj = {
        "info": {"model_stats": {"instance_cost": 1.5, "api_calls": 2}, "exit_status": "Submitted"},
        "messages": [
            {"role": "system", "content": "x"},
            {"role": "assistant", "extra": {"response": {"usage": {"prompt_tokens": 11, "completion_tokens": 3}}}},
            {"role": "assistant", "extra": {"response": {"usage": {"prompt_tokens": 20, "completion_tokens": 4}}}},
        ],
    }
    usage = USAGE_PARSERS["mini-swe-agent"](json.dumps(traj))
    assert usage is not None
    assert (usage["input_tokens"], usage["output_tokens"], usage["requests"], usage["steps"]) == (31, 7, 2, 2)
    assert USAGE_PARSERS["mini-swe-agent"]("{broken") is None


def test_a_user_adds_an_agent_with_yaml_alone(tmp_path: Path) -> None:
    spec = tmp_path / "agents.yaml"
    spec.write_text(
        "agents:\n"
        "  my-agent:\n"
        "    install: pip install my-agent==1.0\n"
        "    api: openai-chat\n"
        "    command: my-agent --prompt {prompt_file} --url {base_url}/v1\n"
        "    env: {MY_KEY: '{api_key}'}\n"
        "    default_model: m1\n"
    )
    try:
        assert load_user_agents([spec]) == ["my-agent"]
        agent = get_agent("my-agent")
        assert isinstance(agent, ExternalAgent)
        argv, env = agent.command_line(StubContext())
        assert shlex.split(argv[2]) == ["my-agent", "--prompt", PATHS.prompt_file, "--url", "http://gateway:8080/v1"]
        assert env["MY_KEY"] == "run-key-123"
    finally:
        AGENTS.pop("my-agent", None)


def test_yaml_with_an_unknown_usage_parser_is_rejected(tmp_path: Path) -> None:
    spec = tmp_path / "agents.yaml"
    spec.write_text("agents:\n  x:\n    install: '-'\n    api: openai-chat\n    command: x\n    usage: nope\n")
    with pytest.raises(ValueError, match="unknown usage parser"):
        load_user_agents([spec])
