"""External agent programs (Codex CLI, Claude Code, mini-swe-agent ...) run inside the sandbox from YAML.

An entry of external.yaml (or of any file in the `agents.files` setting, CMB_AGENTS_FILE, colon-separated) becomes
an agent:

```yaml
agents:
  my-agent:
    install: pip install my-agent==1.2        # a hint for building the image; the harness never installs
    api: openai-chat                          # openai-responses | openai-chat | anthropic-messages
    command: my-agent --task-file {prompt_file} --out {trajectory}
    env: {OPENAI_BASE_URL: "{base_url}/v1", OPENAI_API_KEY: "{api_key}"}
    trajectory: "{home}/trajectory.json"      # the program's own record, copied to the artifacts
    usage: none                               # a registered usage parser, reading `usage_from`
    usage_from: trajectory                    # stdout | trajectory
```
Placeholders: {prompt_file} {workdir} {home} {base_url} (the gateway as seen from the sandbox, no /v1)
{api_key} (the per-run key) {model} {trajectory} {time_limit_s}. In `command` they are shell-quoted; the same
values are exported as CMB_PROMPT_FILE, CMB_WORKDIR, CMB_AGENT_HOME, CMB_BASE_URL, CMB_API_KEY, CMB_MODEL,
CMB_TRAJECTORY for commands that need them inside quoted strings (TOML, JSON).
"""

from __future__ import annotations

import json
import shlex
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field

from cmb.agents._base import AGENTS, Agent, AgentContext, AgentOutcome
from cmb.models import CmbModel

EXTERNAL_FILE = Path(__file__).with_name("external.yaml")

UsageParser = Callable[[str], dict[str, Any] | None]
USAGE_PARSERS: dict[str, UsageParser] = {}


class AgentSetupError(Exception):
    """The agent cannot start here (program missing, no gateway): an infrastructure failure, not the agent's."""


def register_usage_parser(name: str) -> Callable[[UsageParser], UsageParser]:
    """Add a parser turning a program's usage report (text) into {input_tokens, output_tokens, ...}."""

    def decorate(f: UsageParser) -> UsageParser:
        if name in USAGE_PARSERS:
            raise ValueError(f"usage parser {name!r} registered twice")
        USAGE_PARSERS[name] = f
        return f

    return decorate


class ExternalAgentSpec(CmbModel):
    """One external agent program, as configured in YAML."""

    name: str
    description: str = ""
    install: str = Field(description="How to install the program in the agent image (a hint; never run)")
    api: Literal["openai-responses", "openai-chat", "anthropic-messages"]
    command: str = Field(description="Shell command template run in the working folder")
    env: dict[str, str] = Field(default_factory=dict, description="Environment templates")
    requires: list[str] = Field(default_factory=list, description="Executables that must exist in the sandbox")
    trajectory: str | None = Field(default=None, description="Sandbox path template of the program's own record")
    usage: str = Field(default="none", description="Usage parser name")
    usage_from: Literal["stdout", "trajectory"] = "stdout"
    default_model: str | None = None
    stdout_is_trajectory: bool = Field(default=False, description="Keep stdout as the trajectory (JSONL events)")


def render(template: str, values: dict[str, str], quote: bool) -> str:
    """Fill {placeholders}; shell-quote the values when the result is a command line."""
    out = template
    for name, value in values.items():
        out = out.replace("{" + name + "}", shlex.quote(value) if quote else value)
    return out


class ExternalAgent(Agent):
    """Runs one configured external program under the supervisor, with the gateway's URL and per-run key."""

    needs_gateway = True

    def __init__(self, spec: ExternalAgentSpec, model: str | None = None, **extra: Any) -> None:
        if extra:
            raise ValueError(f"agent {spec.name!r} takes only model=..., got {sorted(extra)}")
        self.spec = spec
        self.name = spec.name
        self._model = model or spec.default_model

    def model(self) -> str | None:
        """The model name passed to the program."""
        return self._model

    def values(self, ctx: AgentContext) -> dict[str, str]:
        """Placeholder values for this attempt."""
        base_url = (ctx.gateway.base_url or "").rstrip("/")
        traj = render(self.spec.trajectory or "", {"home": ctx.paths.home, "workdir": ctx.paths.work}, False)
        return {
            "prompt_file": ctx.paths.prompt_file,
            "workdir": ctx.paths.work,
            "home": ctx.paths.home,
            "base_url": base_url,
            "api_key": ctx.gateway.api_key or "",
            "model": self._model or ctx.gateway.model or "",
            "trajectory": traj,
            "time_limit_s": str(int(ctx.time_limit_s)),
        }

    def command_line(self, ctx: AgentContext) -> tuple[list[str], dict[str, str]]:
        """The exact argv and environment the program gets (what adapter tests pin down)."""
        values = self.values(ctx)
        env = {
            "CMB_PROMPT_FILE": values["prompt_file"],
            "CMB_WORKDIR": values["workdir"],
            "CMB_AGENT_HOME": values["home"],
            "CMB_BASE_URL": values["base_url"],
            "CMB_API_KEY": values["api_key"],
            "CMB_MODEL": values["model"],
            "CMB_TRAJECTORY": values["trajectory"],
        }
        env.update({k: render(v, values, quote=False) for k, v in self.spec.env.items()})
        return ["/bin/sh", "-c", render(self.spec.command, values, quote=True)], env

    def run(self, ctx: AgentContext) -> AgentOutcome:
        """Check the program is there, run it, bring back its trajectory and its own usage report."""
        if not ctx.gateway.base_url:
            raise AgentSetupError(f"agent {self.name!r} needs a model gateway (no base URL configured)")
        if self.spec.requires:
            probe = " && ".join(f"command -v {shlex.quote(r)} >/dev/null" for r in self.spec.requires)
            found = ctx.exec(["/bin/sh", "-c", probe], timeout_s=30)
            if found.exit_code != 0:
                raise AgentSetupError(
                    f"agent {self.name!r} needs {', '.join(self.spec.requires)} in the sandbox ({self.spec.install})"
                )
        argv, env = self.command_line(ctx)
        result = ctx.exec(argv, env=env)
        files: list[Path] = []
        traj_text: str | None = None
        agent_dir = ctx.artifacts_dir / "agent"
        if self.spec.stdout_is_trajectory:
            agent_dir.mkdir(parents=True, exist_ok=True)
            (agent_dir / "events.jsonl").write_text(result.stdout, encoding="utf-8")
            files.append(agent_dir / "events.jsonl")
        traj_path = self.values(ctx)["trajectory"]
        if traj_path:
            with tempfile.TemporaryDirectory(prefix="cmb-traj-") as tmp:
                if ctx.fetch(traj_path, Path(tmp)):
                    for item in sorted(Path(tmp).rglob("*")):
                        if item.is_file() and not item.is_symlink():
                            dest = agent_dir / item.relative_to(tmp)
                            dest.parent.mkdir(parents=True, exist_ok=True)
                            dest.write_bytes(item.read_bytes())
                            files.append(dest)
            single = [f for f in files if f.name == Path(traj_path).name]
            if single:
                traj_text = single[0].read_text(encoding="utf-8", errors="replace")
        source = result.stdout if self.spec.usage_from == "stdout" else traj_text
        usage = USAGE_PARSERS[self.spec.usage](source) if source else None
        steps = usage.get("steps") if usage else None
        return AgentOutcome.from_exec(
            result, reported_usage=usage, trajectory_files=files, steps=steps if isinstance(steps, int) else None
        )


def _int(d: Any, *keys: str) -> int:
    for k in keys:
        if not isinstance(d, dict):
            return 0
        d = d.get(k)
    return int(d) if isinstance(d, int | float) and not isinstance(d, bool) else 0


@register_usage_parser("none")
def _no_usage(text: str) -> dict[str, Any] | None:
    return None


@register_usage_parser("codex-jsonl")
def _codex_usage(text: str) -> dict[str, Any] | None:
    """Sum `turn.completed` usage events of `codex exec --json`."""
    totals = {"input_tokens": 0, "cached_tokens": 0, "output_tokens": 0, "reasoning_tokens": 0, "requests": 0}
    steps = 0
    seen = False
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        if event.get("type") == "item.completed":
            steps += 1
        if event.get("type") == "turn.completed":
            seen = True
            u = event.get("usage", {})
            totals["input_tokens"] += _int(u, "input_tokens")
            totals["cached_tokens"] += _int(u, "cached_input_tokens")
            totals["output_tokens"] += _int(u, "output_tokens")
            totals["reasoning_tokens"] += _int(u, "reasoning_output_tokens")
            totals["requests"] += 1
    return {**totals, "steps": steps, "source": "codex-jsonl"} if seen else None


@register_usage_parser("claude-json")
def _claude_usage(text: str) -> dict[str, Any] | None:
    """The final `result` object of `claude -p --output-format json` (its cost figure is kept, labelled)."""
    result: dict[str, Any] | None = None
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("type") == "result":
            result = obj
    if result is None:
        return None
    u = result.get("usage", {})
    cost = result.get("total_cost_usd")
    return {
        "input_tokens": _int(u, "input_tokens")
        + _int(u, "cache_creation_input_tokens")
        + _int(u, "cache_read_input_tokens"),
        "cached_tokens": _int(u, "cache_read_input_tokens"),
        "output_tokens": _int(u, "output_tokens"),
        "steps": _int(result, "num_turns"),
        "is_error": bool(result.get("is_error")),
        "self_reported_cost_usd_untrusted": cost if isinstance(cost, int | float) else None,
        "source": "claude-json",
    }


@register_usage_parser("mini-swe-agent")
def _mini_usage(text: str) -> dict[str, Any] | None:
    """Token counts summed over the raw responses kept in a mini-swe-agent trajectory."""
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    totals = {"input_tokens": 0, "output_tokens": 0, "cached_tokens": 0, "requests": 0}
    for msg in doc.get("messages", []):
        response = msg.get("extra", {}).get("response") if isinstance(msg, dict) else None
        if not isinstance(response, dict):
            continue
        u = response.get("usage") or {}
        totals["requests"] += 1
        totals["input_tokens"] += _int(u, "prompt_tokens")
        totals["output_tokens"] += _int(u, "completion_tokens")
        totals["cached_tokens"] += _int(u, "prompt_tokens_details", "cached_tokens")
    info = doc.get("info", {})
    stats = info.get("model_stats", {}) if isinstance(info, dict) else {}
    cost = stats.get("instance_cost") if isinstance(stats, dict) else None
    return {
        **totals,
        "steps": _int(stats, "api_calls"),
        "exit_status": info.get("exit_status") if isinstance(info, dict) else None,
        "self_reported_cost_usd_untrusted": cost if isinstance(cost, int | float) else None,
        "source": "mini-swe-agent",
    }


def load_external_specs(path: Path) -> list[ExternalAgentSpec]:
    """Agent specs from one YAML file (`agents: {name: {...}}`)."""
    doc = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    agents = doc.get("agents", {}) if isinstance(doc, dict) else {}
    if not isinstance(agents, dict):
        raise ValueError(f"{path}: 'agents' must be a mapping of name -> spec")
    specs = [ExternalAgentSpec.model_validate({"name": name, **body}) for name, body in agents.items()]
    for spec in specs:
        if spec.usage not in USAGE_PARSERS:
            raise ValueError(f"{path}: agent {spec.name!r} names unknown usage parser {spec.usage!r}")
    return specs


class ExternalFactory:
    """Makes the agent of one external-program spec; what `cmb agents list` reads about it."""

    needs_gateway = True

    def __init__(self, spec: ExternalAgentSpec) -> None:
        self.spec = spec
        self.__doc__ = spec.description or f"External program: {spec.command.split()[0]}"

    def __call__(self, **config: Any) -> Agent:
        return ExternalAgent(self.spec, **config)


def register_external(spec: ExternalAgentSpec, replace: bool = False, origin: str | None = None) -> None:
    """Register an external agent under its name (a user file may replace a shipped entry)."""
    AGENTS.add(spec.name, ExternalFactory(spec), origin=origin, replace=replace)


def load_user_agents(paths: Iterable[Path]) -> list[str]:
    """Register the agents of each YAML file (the `agents.files` setting); return their names."""
    names: list[str] = []
    for path in paths:
        for spec in load_external_specs(Path(path)):
            register_external(spec, replace=True, origin=str(path))
            names.append(spec.name)
    return names


for _spec in load_external_specs(EXTERNAL_FILE):
    register_external(_spec, origin=f"cmb ({EXTERNAL_FILE.name})")
