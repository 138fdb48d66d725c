"""The replay trajectory format and the registry."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from cmb.agents import AGENTS, Agent, ReplayAgent, Run, WriteFile, dump_trajectory, get_agent, load_trajectory
from cmb.agents._base import register_agent


def test_trajectory_round_trips(tmp_path: Path) -> None:
    steps = [
        WriteFile(path="in/scf.in", content="&CONTROL\n/\n"),
        Run(argv=["pw.x", "-in", "in/scf.in"], stdout="scf.out", timeout_s=60),
        Run(shell="python3 fit.py > answer.json"),
    ]
    path = tmp_path / "t.jsonl"
    path.write_text(dump_trajectory(steps))
    assert load_trajectory(path) == steps
    assert [json.loads(line)["action"] for line in path.read_text().splitlines()] == ["write_file", "run", "run"]


@pytest.mark.parametrize(
    "row",
    [
        {"action": "run"},  # neither argv nor shell
        {"action": "run", "argv": ["a"], "shell": "b"},  # both
        {"action": "run", "argv": []},
        {"action": "delete_everything", "path": "/"},
        {"action": "write_file", "path": "a"},  # no content
    ],
)
def test_malformed_steps_are_rejected(tmp_path: Path, row: dict[str, object]) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(ValidationError):
        load_trajectory(path)


def test_artifacts_folder_without_replay_trajectory_replays_the_submitted_files(tmp_path: Path) -> None:
    sub = tmp_path / "submission"
    (sub / "deep").mkdir(parents=True)
    (sub / "answer.json").write_text('{"x": 1}')
    (sub / "deep" / "data.bin").write_bytes(b"\x00\x01")
    (tmp_path / "trajectory.jsonl").write_text('{"type": "turn.completed"}\n')  # another program's events
    steps = load_trajectory(tmp_path)
    assert {s.path: base64.b64decode(s.content) for s in steps if isinstance(s, WriteFile)} == {
        "answer.json": b'{"x": 1}',
        "deep/data.bin": b"\x00\x01",
    }


def test_replay_needs_exactly_one_source() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        ReplayAgent()
    with pytest.raises(ValueError, match="takes no options"):
        get_agent("null", model="x")


def test_registry_rejects_duplicates_and_lists_known_names() -> None:
    assert {"oracle", "null", "replay", "codex", "claude-code", "mini-swe-agent"} <= set(AGENTS)
    with pytest.raises(ValueError, match="registered twice"):
        register_agent("null")(Agent)
    with pytest.raises(KeyError, match="known:"):
        get_agent("no-such-agent")


def test_only_the_oracle_sees_the_solution() -> None:
    seeing = [name for name, factory in AGENTS.items() if getattr(factory, "sees_solution", False)]
    assert seeing == ["oracle"]
