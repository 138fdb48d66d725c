"""The sandbox interface every backend implements, and the backend registry."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, ClassVar

from cmb.models import ResourceProfile
from cmb.plugins import BACKENDS_GROUP, PluginRegistry
from cmb.settings import DEFAULT_IMAGE

if TYPE_CHECKING:
    from cmb.settings import CmbSettings

THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "BLIS_NUM_THREADS",
)


class SandboxError(Exception):
    """The sandbox itself failed (could not start, image missing, daemon gone): an infrastructure failure."""


@dataclass(frozen=True)
class SandboxSpec:
    """What to create: a deterministic name, an image, resources and the one network destination allowed."""

    name: str
    profile: ResourceProfile
    image: str = DEFAULT_IMAGE  # deploy/image: build-local.sh full (no registry) or the Dockerfile
    env: dict[str, str] = field(default_factory=dict)
    workdir: str = "/workspace"
    gateway_url: str | None = None  # the only destination the sandbox may reach; None = no network at all
    readonly_mounts: dict[str, Path] = field(default_factory=dict)  # sandbox path -> host path (manuals)
    hidden: tuple[Path, ...] = ()  # host folders never shown inside, even under a bound one (the suite root)


@dataclass(frozen=True)
class ExecResult:
    """Outcome of one command in the sandbox."""

    exit_code: int
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    oom_killed: bool = False
    disk_exceeded: bool = False  # killed because the workspace (and /tmp) outgrew profile.disk_gib


@dataclass(frozen=True)
class Measured:
    """What a sandbox's processes used, from the kernel's (or the container engine's) counters."""

    cpu_s: float
    peak_memory_bytes: int | None
    source: str


class Sandbox(ABC):
    """An isolated place to run an agent: exec, copy in and out, limits, teardown."""

    backend: ClassVar[str]
    # Whether host folders can be bound into the sandbox (readonly_mounts); where not, the image carries them.
    host_mounts: ClassVar[bool] = True
    # Whether what an exec starts in the background keeps running after it returns (one container for all execs).
    processes_outlive_exec: ClassVar[bool] = False
    # Whether the sandbox runs SandboxSpec.image; where not, commands run on the host's own system.
    runs_images: ClassVar[bool] = False

    def __init__(self, spec: SandboxSpec) -> None:
        self.spec = spec
        # What the runner should record: degraded isolation, refused links or oversize files on get(), ...
        self.warnings: list[str] = []
        # False when the backend had to run without its isolation layer (the local backend without bubblewrap).
        self.isolated: bool = True
        # True when each exec runs in its own PID namespace, gone when it returns (bubblewrap): then the supervisor
        # of an exec may end every other process of it, and nothing outlives the exec.
        self.exec_pid_namespace: bool = False

    def stop_processes(self) -> None:
        """End every process the agent left running, before its files are collected.

        Where processes outlive an exec (a container, a pod), the sandbox user's are killed, so that nothing
        written after the agent stopped is graded (the keeper runs as another user and stays).
        """
        if self.processes_outlive_exec:
            self.exec(["/bin/sh", "-c", "kill -KILL -1 2>/dev/null; exit 0"], timeout_s=30)

    def alive(self) -> bool:
        """Whether a started sandbox can still run commands (a pool asks before handing one out)."""
        return True

    def measure(self) -> Measured | None:
        """CPU seconds and peak memory of the sandbox's processes so far; None where the backend cannot tell.

        The figures are the kernel's or the container engine's counters, never the agent's word.
        """
        return None

    @classmethod
    def configured(cls, settings: CmbSettings) -> type[Sandbox]:
        """The backend as the settings configure it; a backend with settings of its own binds them here."""
        return cls

    @classmethod
    def available(cls) -> str | None:
        """None when the backend can run here, else the reason it cannot."""
        return None

    @classmethod
    def cleanup_orphans(cls) -> list[str]:
        """Remove what earlier sandboxes of this backend left behind (a killed harness); returns what went."""
        return []

    @property
    def gateway_url(self) -> str | None:
        """The gateway URL as seen from inside the sandbox (may differ from spec.gateway_url); None = no network."""
        return self.spec.gateway_url

    def thread_env(self) -> dict[str, str]:
        """Thread-count variables from the profile: cgroup CPU quotas do not change what nproc reports."""
        n = str(max(1, int(self.spec.profile.cpus)))
        return {name: n for name in THREAD_VARS}

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
        """Copy a workspace path (relative to the workdir) out to a host folder, refusing links and oversize.

        A folder's contents land in `dest` (like put; "." copies the whole workspace), a file at `dest / name`.
        Links, special files and whatever exceeds `max_bytes` are skipped and noted in `warnings` (the agent's
        doing, not an infrastructure failure); a missing `src` raises FileNotFoundError.
        """

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


def _install(name: str, loaded: object) -> None:
    """An entry point of group cmb.backends names a Sandbox subclass; its import may register it."""
    if BACKENDS.get(name) is loaded:
        return
    if not (isinstance(loaded, type) and issubclass(loaded, Sandbox)):
        raise TypeError(f"{loaded!r} is not a Sandbox subclass")
    register_backend(name)(loaded)


BACKENDS: PluginRegistry[type[Sandbox]] = PluginRegistry(BACKENDS_GROUP, "sandbox backend", _install)
AUTO = "auto"  # not a backend: docker when a daemon answers, else local


def register_backend(name: str) -> Callable[[type[Sandbox]], type[Sandbox]]:
    """Class decorator adding a backend to the registry under `name`."""

    def decorate(cls: type[Sandbox]) -> type[Sandbox]:
        BACKENDS.add(name, cls)
        cls.backend = name
        return cls

    return decorate


def get_backend(name: str) -> type[Sandbox]:
    """A backend class by name; unknown names list the known ones."""
    if name not in BACKENDS:
        raise BACKENDS.unknown(name)
    return BACKENDS[name]


def resolve_backend(name: str) -> str:
    """A registered backend's name as given; `auto`: docker when a daemon answers, else local."""
    if name != AUTO:
        get_backend(name)
        return name
    docker = BACKENDS.get("docker")
    return "docker" if docker is not None and docker.available() is None else "local"


def backend_choices() -> list[str]:
    """What a `--backend` option accepts: `auto` and every registered backend."""
    return [AUTO, *sorted(BACKENDS)]


@dataclass(frozen=True)
class BackendInfo:
    """What `cmb backends list` shows of one registered backend."""

    name: str
    origin: str
    unavailable: str | None  # None when it can run here, else why not
    description: str


def backend_infos(settings: CmbSettings) -> list[BackendInfo]:
    """Every registered backend, by name, with whether it can run here under these settings."""
    infos = []
    for name in sorted(BACKENDS):
        cls = BACKENDS[name]
        doc = (cls.__doc__ or "").strip().split("\n", 1)[0]
        infos.append(BackendInfo(name, BACKENDS.origin(name), cls.configured(settings).available(), doc))
    return infos


def cleanup_backend(name: str, settings: CmbSettings) -> list[str]:
    """Remove what sandboxes of dead harnesses left on one backend (nothing of a harness that still runs)."""
    cls = BACKENDS[name].configured(settings)
    return cls.cleanup_orphans() if cls.available() is None else []


def cleanup_orphans(settings: CmbSettings) -> dict[str, list[str]]:
    """Remove what sandboxes of every available backend left behind; run it when no harness is running."""
    backends = [cls.configured(settings) for cls in BACKENDS.values()]
    return {cls.backend: cls.cleanup_orphans() for cls in backends if cls.available() is None}
