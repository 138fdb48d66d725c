"""The real Codex CLI (Responses API) and Claude Code (Messages API) against a chat-only upstream, through the
gateway's translation: the clients parse the translated streams, run the tool the scripted model asked for, send
the tool result back, and finish. Skipped where the program is not installed (the setup script installs both).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPLIES = [
    {
        "reasoning": "a file is needed",
        "content": "Writing it.",
        "tool_calls": [],  # filled per client: its own shell tool
        "usage": {"prompt": 900, "completion": 30},
    },
    {"content": "Done: out.txt holds hi.", "usage": {"prompt": 1000, "cached": 800, "completion": 5}},
]


def _replies(tool: str, arguments: dict[str, object]) -> list[dict[str, object]]:
    first = {**REPLIES[0], "tool_calls": [{"name": tool, "arguments": arguments}]}
    return [first, REPLIES[1]]


def _check(gw, up, work: Path, attempt: str) -> None:
    assert (work / "out.txt").read_text().strip() == "hi"  # the tool call was understood and run
    assert len(up.requests) == 2 and up.remaining == 0
    roles = [m["role"] for m in up.requests[1]["messages"]]
    assert roles[-2:] == ["assistant", "tool"]  # the tool result came back, translated to chat
    assert up.requests[1]["messages"][-2]["tool_calls"][0]["function"]["name"] in ("exec_command", "Bash")
    u = gw.usage(attempt)
    assert (u.requests, u.input_tokens, u.cached_tokens, u.output_tokens) == (2, 1900, 800, 35)


@pytest.mark.skipif(shutil.which("codex") is None, reason="Codex CLI not installed")
def test_codex_cli_over_responses_translated_to_chat(stack, tmp_path: Path):
    up, gw = stack(_replies("exec_command", {"cmd": "echo hi > out.txt"}))
    token = gw.issue("s/codex/t/SF/0", "test/gpt-4o-mini")
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    env = {**os.environ, "CMB_API_KEY": token, "CODEX_HOME": str(home), "NO_COLOR": "1"}
    argv = [
        "codex",
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--color",
        "never",
        "--cd",
        str(work),
        "--model",
        "gpt-5-codex",
        "-c",
        "model_provider=cmb",
        "-c",
        "model_providers.cmb.name=cmb",
        "-c",
        f'model_providers.cmb.base_url="{gw.base_url}/v1"',
        "-c",
        "model_providers.cmb.env_key=CMB_API_KEY",
        "-c",
        "model_providers.cmb.wire_api=responses",
        "-c",
        "model_providers.cmb.request_max_retries=0",
        "-c",
        "model_providers.cmb.stream_max_retries=0",
        "write hi to out.txt",
    ]
    proc = subprocess.run(
        argv, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert any(e.get("item", {}).get("text") == "Done: out.txt holds hi." for e in events)
    done = [e for e in events if e["type"] == "turn.completed"][-1]
    assert done["usage"]["input_tokens"] == 1900 and done["usage"]["cached_input_tokens"] == 800
    _check(gw, up, work, "s/codex/t/SF/0")


@pytest.mark.skipif(shutil.which("claude") is None, reason="Claude Code not installed")
def test_claude_code_over_messages_translated_to_chat(stack, tmp_path: Path):
    up, gw = stack(_replies("Bash", {"command": "echo hi > out.txt", "description": "write the file"}))
    token = gw.issue("s/claude/t/SF/0", "test/gpt-4o-mini")
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    env = {
        **os.environ,
        "ANTHROPIC_BASE_URL": gw.base_url,
        "ANTHROPIC_API_KEY": token,
        "IS_SANDBOX": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "HOME": str(home),
    }
    argv = [
        "claude",
        "-p",
        "--output-format",
        "json",
        "--dangerously-skip-permissions",
        "--model",
        "claude-sonnet-4-5",
        "write hi to out.txt",
    ]
    proc = subprocess.run(
        argv, env=env, capture_output=True, text=True, timeout=180, cwd=work, stdin=subprocess.DEVNULL, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["result"] == "Done: out.txt holds hi." and not result["is_error"]
    _check(gw, up, work, "s/claude/t/SF/0")
    # Claude Code prices its own usage at Claude rates; the gateway's meter, at the real upstream's, is what counts
    assert result["total_cost_usd"] != pytest.approx(gw.usage("s/claude/t/SF/0").cost_usd)
