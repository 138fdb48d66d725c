"""The sandbox interface every backend implements, and the backend registry."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import ClassVar

from cmb.models import ResourceProfile


class SandboxError(Exception):
    """The sandbox itself failed (could not start, image missing, daemon gone): an infrastructure failure."""


@dataclass(frozen=True)
class SandboxSpec:
    """What to create: a deterministic name, an image, resources and the one network destination allowed."""

    name: str
    profile: ResourceProfile
    image: str = "cmb-agent:latest"
    env: dict[str, str] = field(default_factory=dict)
    workdir: str = "/workspace"
    gateway_url: str | None = None  # the only destination the sandbox may reach; None = no network at all
    readonly_mounts: dict[str, Path] = field(default_factory=dict)  # sandbox path -> host path (manuals)


@dataclass(frozen=True)
class ExecResult:
    """Outcome of one command in the sandbox."""

    exit_code: int
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    oom_killed: bool = False


class Sandbox(ABC):
    """An isolated place to run an agent: exec, copy in and out, limits, teardown."""

    backend: ClassVar[str]

    def __init__(self, spec: SandboxSpec) -> None:
        self.spec = spec

    @classmethod
    def available(cls) -> str | None:
        """None when the backend can run here, else the reason it cannot."""
        return None

    @abstractmethod
    def start(self) -> None:
        """Create the sandbox (or attach to the one with the same name); raise SandboxError on failure."""

    @abstractmethod
    def put(self, src: Path, dest: str = ".") -> None:
        """Copy a host folder's contents into the workspace (dest relative to the workdir)."""

    @abstractmethod
    def exec(
        self, argv: list[str], timeout_s: float, env: dict[str, str] | None = None, cwd: str | None = None
    ) -> ExecResult:
        """Run a command in the workspace under the profile's limits, killing everything it started on timeout."""

    @abstractmethod
    def get(self, src: str, dest: Path, max_bytes: int = 256 * 1024 * 1024) -> None:
        """Copy a workspace path (relative to the workdir) out to a host folder, refusing links and oversize."""

    @abstractmethod
    def teardown(self) -> None:
        """Remove everything this sandbox created; safe to call twice."""

    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.teardown()


BACKENDS: dict[str, type[Sandbox]] = {}


def register_backend(name: str) -> Callable[[type[Sandbox]], type[Sandbox]]:
    """Class decorator adding a backend to the registry under `name`."""

    def decorate(cls: type[Sandbox]) -> type[Sandbox]:
        if name in BACKENDS:
            raise ValueError(f"sandbox backend {name!r} registered twice")
        cls.backend = name
        BACKENDS[name] = cls
        return cls

    return decorate


def get_backend(name: str) -> type[Sandbox]:
    """A backend class by name; unknown names list the known ones."""
    try:
        return BACKENDS[name]
    except KeyError:
        raise KeyError(f"unknown sandbox backend {name!r}; known: {sorted(BACKENDS)}") from None
