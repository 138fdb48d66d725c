"""codeact and react as plain subprocesses in a temp folder, through the gateway, against the scripted test server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cmb.agents.builtin import PROGRAMS_DIR
from cmb.gateway import Budget, LocalGateway
from tests.agents.builtin_scripts import (
    USAGE,
    codeact_replies,
    expected_cost,
    grade_folder,
    react_replies,
    stage_task,
)
from tests.gateway.helpers import KEY_ENV, UPSTREAM_KEY, make_gateway, transcript
from tests.gateway.scripted_upstream import ScriptedUpstream

MODEL = "test/gpt-4o-mini"


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """served(replies) -> (upstream, gateway); stopped after the test."""
    monkeypatch.setenv(KEY_ENV, UPSTREAM_KEY)
    started: list[Any] = []

    def make(replies: list[dict[str, Any]]) -> tuple[ScriptedUpstream, LocalGateway]:
        up = ScriptedUpstream(replies, key=UPSTREAM_KEY).start()
        gw = make_gateway(up.base_url, tmp_path / "gateway")
        started.extend([up, gw])
        return up, gw

    yield make
    for s in reversed(started):
        s.stop()


def run_agent(program: str, gw: LocalGateway, token: str, work: Path, *args: str, timeout: float = 120) -> Any:
    """The program as the sandbox runs it: its own file, the gateway URL and key in the environment."""
    env = {"PATH": os.environ["PATH"], "CMB_BASE_URL": gw.base_url, "CMB_API_KEY": token, "CMB_MODEL": MODEL}
    argv = [
        sys.executable,
        str(PROGRAMS_DIR / program),
        "--prompt-file",
        str(work / "PROMPT.md"),
        "--workdir",
        str(work),
        "--trajectory",
        str(work.parent / "trajectory.jsonl"),
        *args,
    ]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def trajectory(work: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (work.parent / "trajectory.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(
    ("program", "replies", "first_observation"),
    [("codeact.py", codeact_replies, "scf_01.out"), ("react.py", react_replies, "wrote 1")],
)
def test_agent_solves_the_task_through_the_gateway_and_usage_is_metered(
    served, tmp_path, program, replies, first_observation
):
    up, gw = served(replies())
    work = stage_task(tmp_path / "work")
    token = gw.issue("s/agent/si-eos-analysis/SF/0", MODEL)
    proc = run_agent(program, gw, token, work)
    assert proc.returncode == 0, proc.stderr
    assert grade_folder(work).passed
    # every model call went through the gateway, with the attempt's token; the provider saw only its own key
    assert up.remaining == 0 and len(up.requests) == 3
    assert all(h["Authorization"] == f"Bearer {UPSTREAM_KEY}" for h in up.headers)
    u = gw.usage("s/agent/si-eos-analysis/SF/0")
    assert u.requests == 3
    assert u.input_tokens == sum(x["prompt"] for x in USAGE)
    assert u.output_tokens == sum(x["completion"] for x in USAGE)
    assert u.cached_tokens == sum(x.get("cached", 0) for x in USAGE) and u.reasoning_tokens == 50
    assert u.cost_usd == pytest.approx(expected_cost(USAGE))
    # the observation of each step reaches the model with the time left appended
    second = up.requests[1]["messages"]
    assert first_observation in json.dumps(second[-1]) and "[Time] Budget for the whole task" in json.dumps(second[-1])
    end = trajectory(work)[-1]
    assert end["type"] == "end" and end["steps"] == 3 and end["usage"]["requests"] == 3
    assert end["reason"] == ("final_answer" if program == "codeact.py" else "submit")
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == end


def test_codeact_kernel_keeps_state_and_runs_shell_in_the_work_folder(served, tmp_path):
    steps = [
        {"thought": "", "code": "n = 6\nsh('echo from-shell && pwd')"},
        {"thought": "", "code": "import os\nos.system('echo via-os-system')\nprint(n * 7)\nn * 2"},
        {"thought": "", "code": "final_answer('done')"},
    ]
    up, gw = served([{"content": json.dumps(s)} for s in steps])
    work = stage_task(tmp_path / "work")
    proc = run_agent("codeact.py", gw, gw.issue("s/codeact/t/SF/0", MODEL), work)
    assert proc.returncode == 0, proc.stderr
    observations = [s["observation"] for s in trajectory(work) if s["type"] == "step"]
    assert "from-shell" in observations[0] and str(work) in observations[0] and "[exit 0]" in observations[0]
    assert observations[1].splitlines() == ["via-os-system", "42", "12"]  # program output in order; last value shown
    assert trajectory(work)[-1]["reason"] == "final_answer"  # final_answer() called from code ends the run


def test_codeact_tells_the_model_its_reply_was_not_an_action(served, tmp_path):
    replies = [
        {"content": "I think I should fit the data."},
        {"content": '```json\n{"thought": "ok", "final_answer": "x"}\n```'},
    ]
    up, gw = served(replies)
    work = stage_task(tmp_path / "work")
    proc = run_agent("codeact.py", gw, gw.issue("s/codeact/t/SF/0", MODEL), work)
    assert proc.returncode == 0
    assert "not one JSON object" in up.requests[1]["messages"][-1]["content"]


def test_step_limit_ends_the_run(served, tmp_path):
    up, gw = served([{"content": json.dumps({"thought": "", "code": "print(1)"})}] * 2)
    work = stage_task(tmp_path / "work")
    proc = run_agent("codeact.py", gw, gw.issue("s/codeact/t/SF/0", MODEL), work, "--max-steps", "2")
    assert proc.returncode == 3
    assert trajectory(work)[-1]["reason"] == "step_limit" and trajectory(work)[-1]["steps"] == 2


def test_time_limit_interrupts_a_long_cell_and_ends_the_run(served, tmp_path):
    up, gw = served([{"content": json.dumps({"thought": "", "code": "import time\ntime.sleep(60)"})}])
    work = stage_task(tmp_path / "work")
    proc = run_agent("codeact.py", gw, gw.issue("s/codeact/t/SF/0", MODEL), work, "--time-limit", "20")
    assert proc.returncode == 4, proc.stderr
    steps = [s for s in trajectory(work) if s["type"] == "step"]
    assert "KeyboardInterrupt" in steps[0]["observation"] and "ran out of time" in steps[0]["observation"]
    assert trajectory(work)[-1]["reason"] == "time_limit"


def test_budget_refusal_ends_the_run_and_is_recorded(served, tmp_path):
    up, gw = served(react_replies())
    work = stage_task(tmp_path / "work")
    token = gw.gateway.issue("s/react/t/SF/0", MODEL, Budget(max_requests=1)).token
    proc = run_agent("react.py", gw, token, work)
    assert proc.returncode == 5
    error = next(s for s in trajectory(work) if s["type"] == "error")
    assert error["status"] == 429 and "request budget exhausted" in error["message"]
    u = gw.usage("s/react/t/SF/0")
    assert u.requests == 1 and u.budget_refusals == 1 and len(up.requests) == 1


def test_upstream_500_mid_run_is_retried_by_the_gateway_and_recorded(served, tmp_path):
    replies = codeact_replies()
    replies.insert(1, {"status": 500})
    up, gw = served(replies)
    work = stage_task(tmp_path / "work")
    proc = run_agent("codeact.py", gw, gw.issue("s/codeact/t/SF/0", MODEL), work)
    assert proc.returncode == 0 and grade_folder(work).passed
    u = gw.usage("s/codeact/t/SF/0")
    assert u.upstream_retries == 1 and u.infra_events[0].status == 500 and not u.infrastructure_failed
    assert u.requests == 3 and u.cost_usd == pytest.approx(expected_cost(USAGE))


def test_react_tool_errors_are_observations_not_crashes(served, tmp_path):
    calls = [
        [
            {"name": "read_file", "arguments": {"path": "missing.txt"}},
            {"name": "nope", "arguments": {}},
            {"name": "run_shell", "arguments": "{not json"},
        ],
        [{"name": "run_shell", "arguments": {"command": "sleep 30", "timeout_s": 1}}],
        [{"name": "submit", "arguments": {}}],
    ]
    up, gw = served([{"tool_calls": c} for c in calls])
    work = stage_task(tmp_path / "work")
    proc = run_agent("react.py", gw, gw.issue("s/react/t/SF/0", MODEL), work)
    assert proc.returncode == 0, proc.stderr
    tool_msgs = [m for m in up.requests[1]["messages"] if m["role"] == "tool"]
    assert "No such file" in tool_msgs[0]["content"]
    assert "there is no tool 'nope'" in tool_msgs[1]["content"]
    assert "not valid JSON" in tool_msgs[2]["content"] and "[Time]" in tool_msgs[2]["content"]
    last = [m for m in up.requests[2]["messages"] if m["role"] == "tool"][-1]
    assert "killed after 1 s" in last["content"]


def test_kernel_restarts_when_a_cell_ignores_the_interrupt(tmp_path, monkeypatch):
    from cmb.agents.builtin import codeact

    monkeypatch.setattr(codeact, "INTERRUPT_GRACE_S", 1.0)
    kernel = codeact.Kernel(tmp_path)
    try:
        assert kernel.run("x = 1\nprint(x)", 10).output == "1\n"
        stuck = kernel.run("import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(60)", 1)
        assert stuck.restarted and "kernel was restarted" in stuck.output
        assert "NameError" in kernel.run("print(x)", 10).output  # a fresh namespace
    finally:
        kernel.close()


def test_context_is_trimmed_by_whole_turns():
    from cmb.agents.builtin import _agentlib as lib

    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "task"}]
    for i in range(50):
        messages += [
            {"role": "assistant", "content": "a" * 400, "tool_calls": [{"id": str(i)}]},
            {"role": "tool", "tool_call_id": str(i), "content": "o" * 400},
        ]
    trimmed = lib.fit_context(messages, context_tokens=3000, reserve=1000)
    assert trimmed[:2] == messages[:2] and "were removed" in trimmed[2]["content"]
    assert trimmed[3]["role"] == "assistant" and trimmed[-1] == messages[-1]  # no orphan tool message first
    assert sum(len(json.dumps(m)) for m in trimmed) // 4 <= 2000


@pytest.mark.parametrize(("program", "replies"), [("codeact.py", codeact_replies), ("react.py", react_replies)])
def test_streamed_replies_are_assembled_and_metered(served, tmp_path, program, replies):
    up, gw = served(replies())
    work = stage_task(tmp_path / "work")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"stream": True}))
    proc = run_agent(program, gw, gw.issue("s/agent/t/SF/0", MODEL), work, "--config", str(config))
    assert proc.returncode == 0, proc.stderr
    assert grade_folder(work).passed
    assert all(r["stream"] for r in up.requests)
    u = gw.usage("s/agent/t/SF/0")
    assert u.requests == 3 and u.cost_usd == pytest.approx(expected_cost(USAGE))
    calls = [ln for ln in transcript(gw, "s/agent/t/SF/0") if "seq" in ln]
    assert all(ln["stream"] and ln["usage"]["input_tokens"] > 0 for ln in calls)
