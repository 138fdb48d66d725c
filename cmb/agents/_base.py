"""The agent interface, what an agent gets from the runner, and the agent registry."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from cmb.models import AgentRef, Condition, GatewayAccess, RecallSpec, RunKey, TaskSpec, WorkflowSpec
from cmb.plugins import AGENTS_GROUP, PluginRegistry
from cmb.sandbox import ExecResult


@dataclass(frozen=True)
class SandboxPaths:
    """Absolute paths inside the sandbox."""

    root: str  # the sandbox's workdir
    work: str  # the agent's working folder: the staged bundle; answers are collected from here only
    home: str  # HOME of the agent program (its config, sessions, trajectory)
    harness: str  # the supervisor, the code wrappers and the signed code log
    prompt_file: str  # the prompt with its time-budget notice


class AgentContext(ABC):
    """What the runner hands an agent. Every command runs supervised, so wrapped codes are logged."""

    def __init__(
        self,
        key: RunKey,
        task: TaskSpec | WorkflowSpec,
        condition: Condition,
        prompt: str,
        paths: SandboxPaths,
        gateway: GatewayAccess,
        time_limit_s: float,
        base_env: dict[str, str],
        artifacts_dir: Path,
        solution_dir: Path | None = None,
        recall: RecallSpec | None = None,
    ) -> None:
        self.key = key
        self.task = task
        self.condition = condition
        self.prompt = prompt
        self.paths = paths
        self.gateway = gateway
        self.time_limit_s = time_limit_s
        self.base_env = base_env
        self.artifacts_dir = artifacts_dir
        self.solution_dir = solution_dir  # set only for agents that declare sees_solution
        self.recall = recall  # set only for agents that declare sees_recall

    @abstractmethod
    def exec(
        self,
        argv: list[str],
        *,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        timeout_s: float | None = None,
    ) -> ExecResult:
        """Run a command in the sandbox under the supervisor (cwd defaults to the working folder)."""

    @abstractmethod
    def put_dir(self, src: Path, dest: str) -> None:
        """Copy a host folder's contents to `dest`, a path relative to the sandbox root."""

    @abstractmethod
    def put_files(self, files: Mapping[str, str | bytes], dest: str) -> None:
        """Write small files (name -> content) under `dest`, relative to the sandbox root."""

    @abstractmethod
    def fetch(self, src: str, dest: Path, max_bytes: int = 64 * 1024 * 1024) -> bool:
        """Copy a sandbox path (absolute, or relative to the root) into a host folder; False when absent."""

    @abstractmethod
    def remaining_s(self) -> float:
        """Seconds left of the attempt's time limit."""


@dataclass
class AgentOutcome:
    """What the agent phase produced, before collection and grading."""

    exit_code: int | None
    timed_out: bool = False
    oom_killed: bool = False
    disk_exceeded: bool = False
    stdout: str = ""
    stderr: str = ""
    reported_usage: dict[str, Any] | None = None  # the program's own report: recorded, never trusted for cost
    trajectory_files: list[Path] = field(default_factory=list)  # host copies, already under the artifacts dir
    steps: int | None = None
    error: str | None = None

    @classmethod
    def from_exec(cls, result: ExecResult, **kw: Any) -> AgentOutcome:
        """An outcome carrying one supervised command's result."""
        return cls(
            exit_code=result.exit_code,
            timed_out=result.timed_out,
            oom_killed=result.oom_killed,
            disk_exceeded=result.disk_exceeded,
            stdout=result.stdout,
            stderr=result.stderr,
            **kw,
        )


class Agent(ABC):
    """An agent: configured by keyword arguments, run once per attempt against an AgentContext."""

    name: str = "agent"
    sees_solution: ClassVar[bool] = False  # only the oracle: it proves the pipeline, it is not evaluated
    sees_recall: ClassVar[bool] = False  # only the recall baseline: what a reader of the literature would write
    needs_gateway: ClassVar[bool] = False

    def __init__(self, **config: Any) -> None:
        if config:
            raise ValueError(f"agent {self.name!r} takes no options, got {sorted(config)}")

    @classmethod
    def available(cls) -> str | None:
        """None when the agent can run here, else why not."""
        return None

    def model(self) -> str | None:
        """The model this agent uses, if any."""
        return None

    @abstractmethod
    def run(self, ctx: AgentContext) -> AgentOutcome:
        """Work on the task in the sandbox until done or out of time."""


AgentFactory = Callable[..., Agent]


def _install(name: str, loaded: object) -> None:
    """An entry point of group cmb.agents names an Agent subclass or a factory; its import may register it."""
    if AGENTS.get(name) is loaded:
        return
    if not callable(loaded):
        raise TypeError(f"{loaded!r} is neither an Agent subclass nor a factory of agents")
    register_agent(name, loaded)


AGENTS: PluginRegistry[AgentFactory] = PluginRegistry(AGENTS_GROUP, "agent", _install)


def register_agent(name: str, factory: AgentFactory | None = None) -> Callable[[AgentFactory], AgentFactory]:
    """Add an agent class (as a decorator) or a factory (called with options) under `name`."""

    def decorate(f: AgentFactory) -> AgentFactory:
        AGENTS.add(name, f)
        if isinstance(f, type) and issubclass(f, Agent):
            f.name = name
        return f

    if factory is not None:
        decorate(factory)
    return decorate


def get_agent(name: str, **config: Any) -> Agent:
    """Instantiate a registered agent; unknown names list the known ones."""
    if name not in AGENTS:
        raise AGENTS.unknown(name)
    return AGENTS[name](**config)


def needs_gateway(name: str) -> bool:
    """Whether a registered agent talks to a model; a factory that does not say is assumed to."""
    return bool(getattr(AGENTS[name], "needs_gateway", True))


def agents_need_gateway(names: Iterable[str]) -> bool:
    """True when any registered agent (`name` or `name@model`) talks to a model."""
    refs = [AgentRef.parse(name) for name in names]
    return any(ref.name in AGENTS and needs_gateway(ref.name) for ref in refs)


@dataclass(frozen=True)
class AgentInfo:
    """What `cmb agents list` shows of one registered agent."""

    name: str
    origin: str
    needs_gateway: bool
    description: str


def agent_infos() -> list[AgentInfo]:
    """Every registered agent, by name."""
    return [
        AgentInfo(name, AGENTS.origin(name), needs_gateway(name), _first_line(AGENTS[name].__doc__))
        for name in sorted(AGENTS)
    ]


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().split("\n", 1)[0]
