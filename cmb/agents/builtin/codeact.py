"""codeact: a code-first agent over a persistent Python kernel.

Each step the model answers with one JSON object, {thought, code} or {thought, final_answer}; the code
runs in a persistent Python kernel and what it prints is the next observation, followed by the time left. The run
ends on a final answer, the step limit or the time limit.

Standard library only: runs inside the sandbox as `python3 codeact.py --prompt-file PROMPT.md ...`.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or __package__:
    from cmb.agents.builtin import _agentlib as lib
else:  # run as a script in the sandbox: the sibling file
    import _agentlib as lib

KERNEL = Path(__file__).with_name("kernel.py")
INTERRUPT_GRACE_S = 10.0

SYSTEM = """\
You are working on a computational materials science task in a sandbox. You act by writing Python that is run \
for you in a persistent interpreter: variables, imports and the current folder carry over from one step to the \
next. You see only what your code prints, and the traceback when it fails.

At every step reply with exactly one JSON object and nothing else, in one of two forms:
{"thought": "<brief reasoning>", "code": "<Python to run now>"}
{"thought": "<brief reasoning>", "final_answer": "<one-line summary of the result>"}
For example: {"thought": "First see which files are here.", "code": "import os\\nprint(sorted(os.listdir('.')))"}

Already defined in the interpreter: sh(command, timeout=None) runs a shell command and prints its output; \
read_file(path, start=1, end=None) prints numbered lines; write_file(path, text); search(pattern, path=".") \
greps text files; final_answer(text) ends the task after the current step.
The current folder is the task folder: read the inputs there and write the required answer files there. Long \
output is cut, so print summaries instead of whole files. Give the final answer only once the answer files are \
written."""

FORMAT_HELP = (
    'Your reply was not one JSON object with a "code" or a "final_answer" field. Reply with exactly '
    '{"thought": "...", "code": "..."} or {"thought": "...", "final_answer": "..."} and nothing else.'
)

ACTION_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {
            "type": "object",
            "properties": {"thought": {"type": "string"}, "code": {"type": "string"}},
            "required": ["thought", "code"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"thought": {"type": "string"}, "final_answer": {"type": "string"}},
            "required": ["thought", "final_answer"],
            "additionalProperties": False,
        },
    ]
}


def response_format(kind: str) -> dict[str, Any] | None:
    """The chat API's response_format for the configured constraint."""
    if kind == "json_object":
        return {"type": "json_object"}
    if kind == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "action", "schema": ACTION_SCHEMA, "strict": False}}
    return None


def parse_action(text: str) -> dict[str, Any] | None:
    """The JSON action in a reply: the whole reply, a fenced block, or the outermost braces.

    A bare ```python block counts as code: weak models forget the JSON.
    """
    candidates = [text.strip()]
    candidates += re.findall(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.S)
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            obj = json.loads(candidate, strict=False)  # strict=False: raw newlines inside strings are common
        except ValueError:
            continue
        if isinstance(obj, dict) and (isinstance(obj.get("code"), str) or "final_answer" in obj):
            return obj
    match = re.search(r"```(?:python|py)\s*\n(.*?)```", text, re.S)
    if match:
        return {"thought": "", "code": match.group(1)}
    return None


@dataclass
class CellResult:
    """What one cell produced."""

    output: str
    final_answer: str | None = None
    error: bool = False
    timed_out: bool = False
    restarted: bool = False


class Kernel:
    """kernel.py in its own session (so an interrupt reaches every program a cell started)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.proc: subprocess.Popen[bytes] | None = None
        self.buffer = b""
        self.start()

    def start(self) -> None:
        """A fresh kernel (and namespace)."""
        self.proc = subprocess.Popen(
            [sys.executable, str(KERNEL)],
            cwd=self.workdir,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        self.buffer = b""

    def _signal(self, sig: int) -> None:
        assert self.proc is not None
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass

    def _reply(self, timeout: float) -> dict[str, Any] | None:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        end = time.monotonic() + max(0.0, timeout)
        while b"\n" not in self.buffer:
            left = end - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise EOFError("the kernel exited")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        reply = json.loads(line)
        return reply if isinstance(reply, dict) else None

    def run(self, code: str, timeout: float) -> CellResult:
        """Run a cell; past `timeout` interrupt it, and restart the kernel if it does not stop."""
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps({"code": code}) + "\n").encode())
            self.proc.stdin.flush()
            reply = self._reply(timeout)
            if reply is not None:
                return CellResult(str(reply.get("output", "")), reply.get("final_answer"), bool(reply.get("error")))
            self._signal(signal.SIGINT)
            reply = self._reply(INTERRUPT_GRACE_S)
            if reply is not None:
                note = f"\n[the step ran out of time after {timeout:.0f} s and was interrupted]"
                return CellResult(str(reply.get("output", "")) + note, reply.get("final_answer"), True, True)
        except (EOFError, BrokenPipeError, ValueError) as exc:
            self.restart()
            return CellResult(
                f"[the kernel died ({exc}); a new one was started: earlier variables are gone]",
                error=True,
                restarted=True,
            )
        self.restart()
        return CellResult(
            f"[the step ran out of time after {timeout:.0f} s and did not stop; the kernel was restarted: earlier "
            "variables and imports are gone]",
            error=True,
            timed_out=True,
            restarted=True,
        )

    def restart(self) -> None:
        """Kill the kernel and everything it started, then start a new one."""
        self.close()
        self.start()

    def close(self) -> None:
        """Stop the kernel and its programs."""
        if self.proc is None:
            return
        self._signal(signal.SIGKILL)
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            if f is not None:
                f.close()
        self.proc = None


def main(argv: list[str] | None = None) -> int:
    """Run the loop; exit status says why it ended (0: final answer)."""
    settings, args = lib.Settings.from_args(argv)
    deadline = lib.Deadline(settings.time_limit_s)
    traj = lib.Trajectory(args.trajectory)
    client = lib.Client(settings, deadline)
    public = {k: v for k, v in settings.__dict__.items() if k != "api_key"}
    traj.write("start", harness="codeact", settings=public)
    finish_hint = "give your final_answer"
    prompt = args.prompt_file.read_text(encoding="utf-8")
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{prompt}\n\n{deadline.notice(finish_hint)}"},
    ]
    kernel = Kernel(args.workdir)
    reason, final, step = "step_limit", None, 0
    try:
        while step < settings.max_steps:
            if deadline.remaining() <= 0:
                reason = "time_limit"
                break
            step += 1
            context = lib.fit_context(messages, settings.context_tokens, settings.max_output_tokens)
            try:
                reply = client.chat(context, response_format=response_format(settings.response_format))
            except lib.ModelError as exc:
                reason = "budget" if exc.budget else "model_error"
                traj.write("error", step=step, message=str(exc), status=exc.status)
                lib.log(f"codeact: step {step}: {exc}")
                break
            message = (reply.get("choices") or [{}])[0].get("message") or {}
            text = str(message.get("content") or "")
            messages.append({"role": "assistant", "content": text})
            action = parse_action(text)
            result: CellResult | None = None
            if action is None:
                observation = FORMAT_HELP
            else:
                code = action.get("code")
                if isinstance(code, str) and code.strip():
                    result = kernel.run(code, min(settings.step_timeout_s, max(1.0, deadline.remaining())))
                    observation = lib.truncate(result.output, settings.observation_chars) or "[no output]"
                else:
                    observation = "[no code to run]"
                if "final_answer" in action and not (isinstance(code, str) and code.strip()):
                    final = str(action["final_answer"])
                elif result is not None and result.final_answer is not None:
                    final = result.final_answer
            traj.write(
                "step",
                step=step,
                elapsed_s=round(deadline.elapsed(), 2),
                reply=text,
                action=action,
                observation=observation,
                usage=reply.get("usage"),
            )
            lib.log(f"codeact: step {step} ({'final' if final is not None else 'code' if result else 'no action'})")
            if final is not None:
                reason = "final_answer"
                break
            messages.append({"role": "user", "content": f"Output:\n{observation}\n\n{deadline.notice(finish_hint)}"})
        else:
            reason = "step_limit"
    finally:
        kernel.close()
    traj.end(reason, step, client.totals, final_answer=final, elapsed_s=round(deadline.elapsed(), 2))
    return lib.EXIT_CODES[reason]


if __name__ == "__main__":
    sys.exit(main())
