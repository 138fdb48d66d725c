"""react: a near-bare tool-calling baseline with four generic tools: write_file, run_shell, read_file, submit.

Each step is one model reply; its tool calls are run in order and their results go back as tool messages, the
time left appended to the last. The run ends when the model calls submit, at the step limit or at the time limit.

Standard library only: runs inside the sandbox as `python3 react.py --prompt-file PROMPT.md ...`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or __package__:
    from cmb.agents.builtin import _agentlib as lib
else:  # run as a script in the sandbox: the sibling file
    import _agentlib as lib

SYSTEM = """\
You are working on a computational materials science task in a sandbox, with four tools: write_file, run_shell, \
read_file and submit. The current folder is the task folder: its input files are there, and the required answer \
files must be written there. Work step by step: inspect the inputs, write and run scripts, check the results. Call \
submit once the answer files are written; it ends the task."""

NUDGE = "No tool was called. Continue with the tools, and call submit when the answer files are written."


def _fn(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": required}
    return {"type": "function", "function": {"name": name, "description": description, "parameters": schema}}


TOOLS = [
    _fn(
        "write_file",
        "Write a text file (relative paths are in the task folder; folders are created).",
        {"path": {"type": "string"}, "content": {"type": "string"}},
        ["path", "content"],
    ),
    _fn(
        "run_shell",
        "Run a bash command in the task folder; returns the exit status, stdout and stderr.",
        {"command": {"type": "string"}, "timeout_s": {"type": "number", "description": "Default: 600"}},
        ["command"],
    ),
    _fn(
        "read_file",
        "Read a text file, optionally a range of lines (1-based, inclusive).",
        {"path": {"type": "string"}, "start_line": {"type": "integer"}, "end_line": {"type": "integer"}},
        ["path"],
    ),
    _fn(
        "submit",
        "Finish the task. Call it only after the answer files are written.",
        {"summary": {"type": "string", "description": "One line: what was done and the result"}},
        [],
    ),
]


class Tools:
    """The four tools, confined to nothing but the sandbox itself (paths are relative to the task folder)."""

    def __init__(self, workdir: Path, settings: lib.Settings, deadline: lib.Deadline) -> None:
        self.workdir = workdir
        self.s = settings
        self.deadline = deadline

    def _path(self, path: str) -> Path:
        p = Path(path)
        return p if p.is_absolute() else self.workdir / p

    def write_file(self, path: str, content: str) -> str:
        """Write a file."""
        target = self._path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        return f"wrote {len(content)} characters to {path}"

    def read_file(self, path: str, start_line: int | None = None, end_line: int | None = None) -> str:
        """Read a file or a range of its lines."""
        lines = self._path(path).read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        first = max(1, int(start_line or 1))
        last = min(len(lines), int(end_line or len(lines)))
        body = "".join(lines[first - 1 : last])
        return f"[{path}: lines {first}-{last} of {len(lines)}]\n{body}"

    def run_shell(self, command: str, timeout_s: float | None = None) -> str:
        """Run bash in the task folder; kill the whole process group on timeout."""
        timeout = min(float(timeout_s or 600), self.s.step_timeout_s, max(1.0, self.deadline.remaining()))
        proc = subprocess.Popen(
            ["/bin/bash", "-c", command],
            cwd=self.workdir,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=timeout)
            status = f"exit status {proc.returncode}"
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            status = f"killed after {timeout:.0f} s (timeout)"
        text = f"[{status}]\n--- stdout ---\n{out.decode(errors='replace')}"
        if err:
            text += f"\n--- stderr ---\n{err.decode(errors='replace')}"
        return text

    def call(self, name: str, arguments: str) -> tuple[str, bool]:
        """(result text, submitted) of one tool call; errors are results the model can read."""
        try:
            args = json.loads(arguments or "{}", strict=False)
            if not isinstance(args, dict):
                raise ValueError("arguments must be a JSON object")
        except ValueError as exc:
            return f"error: the arguments of {name} are not valid JSON ({exc})", False
        if name == "submit":
            return "submitted", True
        methods: dict[str, Callable[..., str]] = {
            "write_file": self.write_file,
            "read_file": self.read_file,
            "run_shell": self.run_shell,
        }
        method = methods.get(name)
        if method is None:
            return f"error: there is no tool {name!r}; the tools are write_file, run_shell, read_file, submit", False
        try:
            return str(method(**args)), False
        except TypeError as exc:
            return f"error: wrong arguments for {name}: {exc}", False
        except OSError as exc:
            return f"error: {exc}", False


def main(argv: list[str] | None = None) -> int:
    """Run the loop; exit status says why it ended (0: submitted)."""
    settings, args = lib.Settings.from_args(argv)
    deadline = lib.Deadline(settings.time_limit_s)
    traj = lib.Trajectory(args.trajectory)
    client = lib.Client(settings, deadline)
    tools = Tools(args.workdir, settings, deadline)
    public = {k: v for k, v in settings.__dict__.items() if k != "api_key"}
    traj.write("start", harness="react", settings=public)
    finish_hint = "call submit"
    prompt = args.prompt_file.read_text(encoding="utf-8")
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{prompt}\n\n{deadline.notice(finish_hint)}"},
    ]
    reason, summary, step = "step_limit", None, 0
    while step < settings.max_steps:
        if deadline.remaining() <= 0:
            reason = "time_limit"
            break
        step += 1
        context = lib.fit_context(messages, settings.context_tokens, settings.max_output_tokens)
        try:
            reply = client.chat(context, tools=TOOLS, tool_choice="auto")
        except lib.ModelError as exc:
            reason = "budget" if exc.budget else "model_error"
            traj.write("error", step=step, message=str(exc), status=exc.status)
            lib.log(f"react: step {step}: {exc}")
            break
        message = (reply.get("choices") or [{}])[0].get("message") or {}
        calls = [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        assistant: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
        if calls:
            assistant["tool_calls"] = calls
        messages.append(assistant)
        results: list[dict[str, Any]] = []
        submitted = False
        for call in calls:
            fn = call.get("function") or {}
            if submitted:
                result = "not run: the task was already submitted"
            else:
                result, submitted = tools.call(str(fn.get("name", "")), str(fn.get("arguments") or ""))
                if submitted:
                    summary = (json.loads(fn.get("arguments") or "{}", strict=False) or {}).get("summary")
            results.append(
                {
                    "role": "tool",
                    "tool_call_id": call.get("id"),
                    "content": lib.truncate(result, settings.observation_chars),
                }
            )
        if results:
            results[-1]["content"] += f"\n\n{deadline.notice(finish_hint)}"
            messages += results
        else:
            messages.append({"role": "user", "content": f"{NUDGE}\n\n{deadline.notice(finish_hint)}"})
        traj.write(
            "step",
            step=step,
            elapsed_s=round(deadline.elapsed(), 2),
            reply=message,
            observations=[r["content"] for r in results],
            usage=reply.get("usage"),
        )
        lib.log(f"react: step {step} ({len(calls)} tool calls)")
        if submitted:
            reason = "submit"
            break
    traj.end(reason, step, client.totals, final_answer=summary, elapsed_s=round(deadline.elapsed(), 2))
    return lib.EXIT_CODES[reason]


if __name__ == "__main__":
    sys.exit(main())
