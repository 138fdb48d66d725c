"""The built-in LLM agents, `codeact` and `react`: stdlib programs copied into the sandbox and run there.

Like any external agent they reach their model only through the gateway (base URL and per-attempt key from the
runner); the host side copies the programs in, runs one supervised command, and brings the trajectory back.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field

from cmb.agents._base import Agent, AgentContext, AgentOutcome, register_agent
from cmb.agents._external import AgentSetupError
from cmb.agents.builtin import PROGRAM_FILES, PROGRAMS_DIR
from cmb.models import CmbModel

PROGRAM_DIR = "cmb-agent"  # under the agent's HOME in the sandbox
TRAJECTORY = "trajectory.jsonl"


class BuiltinAgentConfig(CmbModel):
    """Options of a built-in agent (`--agent-option KEY=VALUE` on the command line; strings are converted)."""

    model: str | None = Field(default=None, description="<upstream>/<model> as the gateway routes it")
    max_steps: int = Field(default=100, ge=1, description="Model replies before the run stops")
    context_tokens: int = Field(default=128_000, ge=1000, description="Context window the history is trimmed to")
    max_output_tokens: int = Field(default=16_384, ge=1, description="Output-token limit per model call")
    reasoning_effort: str | None = Field(default=None, description="low | medium | high, for models that take it")
    temperature: float | None = None
    observation_chars: int = Field(default=20_000, ge=100, description="Observation length before it is cut")
    step_timeout_s: float = Field(default=1800.0, gt=0, description="Longest single code cell or shell command")
    response_format: Literal["none", "json_object", "json_schema"] = Field(
        default="none", description="Constrain codeact replies to JSON (json_schema: to the action schema)"
    )
    stream: bool = Field(default=False, description="Stream model replies")
    extra_body: dict[str, Any] = Field(default_factory=dict, description="Extra fields of every chat request")


class BuiltinLLMAgent(Agent):
    """Runs one of the programs under cmb/agents/builtin/ in the sandbox."""

    program: ClassVar[str] = ""
    needs_gateway = True

    def __init__(self, **options: Any) -> None:
        if isinstance(options.get("extra_body"), str):
            options["extra_body"] = json.loads(options["extra_body"])
        self.config = BuiltinAgentConfig.model_validate(options)

    def model(self) -> str | None:
        """The configured model."""
        return self.config.model

    def command(self, ctx: AgentContext) -> tuple[list[str], dict[str, str]]:
        """The argv and environment of the program in the sandbox."""
        home = f"{ctx.paths.home}/{PROGRAM_DIR}"
        argv = [
            "python3",
            f"{home}/{self.program}",
            "--config",
            f"{home}/config.json",
            "--prompt-file",
            ctx.paths.prompt_file,
            "--workdir",
            ctx.paths.work,
            "--trajectory",
            f"{ctx.paths.home}/{TRAJECTORY}",
            "--time-limit",
            f"{max(1.0, ctx.remaining_s()):.0f}",
        ]
        env = {
            "CMB_BASE_URL": (ctx.gateway.base_url or "").rstrip("/"),
            "CMB_API_KEY": ctx.gateway.api_key or "",
            "CMB_MODEL": self.config.model or ctx.gateway.model or "",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
        }
        return argv, env

    def run(self, ctx: AgentContext) -> AgentOutcome:
        """Copy the programs in, run the loop, bring the trajectory back."""
        if not ctx.gateway.base_url:
            raise AgentSetupError(f"agent {self.name!r} needs a model gateway (no base URL configured)")
        if not (self.config.model or ctx.gateway.model):
            raise AgentSetupError(f"agent {self.name!r} needs a model (--model <upstream>/<model>)")
        settings = self.config.model_dump(exclude={"model"})
        files: dict[str, str | bytes] = {name: (PROGRAMS_DIR / name).read_bytes() for name in PROGRAM_FILES}
        files["config.json"] = json.dumps(settings, indent=1)
        ctx.put_files(files, f"{_relative(ctx.paths.home, ctx.paths.root)}/{PROGRAM_DIR}")
        argv, env = self.command(ctx)
        result = ctx.exec(argv, env=env)
        agent_dir = ctx.artifacts_dir / "agent"
        traj_files: list[Path] = []
        with tempfile.TemporaryDirectory(prefix="cmb-traj-") as tmp:
            if ctx.fetch(f"{ctx.paths.home}/{TRAJECTORY}", Path(tmp)):
                agent_dir.mkdir(parents=True, exist_ok=True)
                dest = agent_dir / TRAJECTORY
                dest.write_bytes((Path(tmp) / TRAJECTORY).read_bytes())
                traj_files.append(dest)
        end = _end_line(traj_files[0].read_text(encoding="utf-8", errors="replace") if traj_files else result.stdout)
        report: dict[str, Any] | None = None
        steps: int | None = None
        if end is not None:
            raw = end.get("usage")
            usage: dict[str, Any] = raw if isinstance(raw, dict) else {}
            steps = end.get("steps") if isinstance(end.get("steps"), int) else None
            report = {**usage, "steps": steps, "end_reason": end.get("reason"), "source": self.name}
        return AgentOutcome.from_exec(result, reported_usage=report, trajectory_files=traj_files, steps=steps)


def _relative(path: str, root: str) -> str:
    root = root.rstrip("/")
    return path[len(root) + 1 :] if path.startswith(root + "/") else path.lstrip("/")


def _end_line(text: str) -> dict[str, Any] | None:
    """The program's closing record: the last JSON line of type `end`."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict) and doc.get("type") == "end":
            return doc
    return None


@register_agent("codeact")
class CodeActAgent(BuiltinLLMAgent):
    """Code-first loop: JSON {thought, code} or {final_answer} each step; code runs in a persistent kernel."""

    program = "codeact.py"


@register_agent("react")
class ReactAgent(BuiltinLLMAgent):
    """Near-bare tool calling with write_file, run_shell, read_file, submit."""

    program = "react.py"
