"""Sandbox backend: local. A fresh host folder as the workspace, each command run under bubblewrap.

Each exec is its own bubblewrap sandbox: new user, PID, network, IPC and UTS namespaces (no network at all), the
system folders bound read-only, only the workspace and a private /tmp writable, the harness's checkout masked.
As root the command runs as an unprivileged uid of its own (derived from the sandbox name) inside a cgroup that
caps memory, processes and CPU; rlimits cap file size, CPU time and (without a cgroup) address space and
processes. Killing bubblewrap's monitor kills the PID namespace, so nothing the agent started survives a timeout.
Without bubblewrap the command still runs with these limits but sees the host's files: `isolated` is False and
a warning says so.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path, PurePosixPath
from typing import ClassVar

from cmb.sandbox._base import ExecResult, Measured, Sandbox, SandboxError, SandboxSpec, register_backend
from cmb.sandbox._cgroup import Cgroup, stale_cgroups
from cmb.sandbox._files import copy_in, copy_out, relative_parts, tree_blocks
from cmb.sandbox._owner import owner_dead, owner_tag

log = logging.getLogger(__name__)

UID_BASE = 200_000  # sandbox uids: 200000..299999, above the usual login and subordinate-uid ranges
UID_SPAN = 100_000
OUTPUT_LIMIT = 8 * 2**20  # bytes of stdout/stderr kept per exec
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
# Joins the cgroup (one cgroup.procs file per argument up to "--"), then becomes the real command.
_TRAMPOLINE = 'while [ "$1" != "--" ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


def _default_base() -> Path:
    return Path(tempfile.gettempdir()) / "cmb-sandboxes"


def _hidden_roots(spec: SandboxSpec) -> list[Path]:
    """Folders the agent must never see: the harness checkout and what the spec hides (the suite root)."""
    return sorted({Path(__file__).resolve().parents[2], *(p.resolve() for p in spec.hidden)})


@register_backend("local")
class LocalSandbox(Sandbox):
    """A process in a fresh host folder, isolated with bubblewrap when it is installed."""

    base_dir: ClassVar[Path] = _default_base()
    system_dirs: ClassVar[tuple[str, ...]] = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")

    def __init__(self, spec: SandboxSpec) -> None:
        super().__init__(spec)
        if not _NAME.match(spec.name):
            raise SandboxError(f"sandbox name {spec.name!r} must match {_NAME.pattern}")
        self.root = self.base_dir / spec.name
        self.workspace = self.root / "workspace"
        self.tmp = self.root / "tmp"
        self._outputs = self.root / "outputs"
        self.bwrap = shutil.which("bwrap")
        self._is_root = os.geteuid() == 0
        digest = int(hashlib.sha256(spec.name.encode()).hexdigest(), 16)
        self.uid = UID_BASE + digest % UID_SPAN if self._is_root else os.geteuid()
        self.gid = self.uid if self._is_root else os.getegid()
        self.cgroup: Cgroup | None = None
        self._started = False
        if spec.gateway_url is not None:
            self.warnings.append("local backend: no network namespace route to the gateway; the sandbox is offline")

    @classmethod
    def available(cls) -> str | None:
        """The local backend runs on any Linux host (isolation may be degraded: see `isolated`)."""
        return None if sys.platform.startswith("linux") else "the local sandbox needs Linux"

    @property
    def gateway_url(self) -> str | None:
        """Always None: every exec runs in a fresh network namespace with only loopback."""
        return None

    # -- lifecycle ---------------------------------------------------------------------------------------------

    def start(self) -> None:
        """Create the workspace, private /tmp and cgroup (or attach to those of a previous start)."""
        try:
            self.base_dir.mkdir(mode=0o711, parents=True, exist_ok=True)
            self.root.mkdir(mode=0o711, exist_ok=True)
            for d in (self.workspace, self.tmp):
                d.mkdir(mode=0o755, exist_ok=True)
                if self._is_root:
                    os.chown(d, self.uid, self.gid)
            self.tmp.chmod(0o1777)
            self._outputs.mkdir(mode=0o700, exist_ok=True)
            (self.root / "owner").write_text(owner_tag())
        except OSError as exc:
            raise SandboxError(f"cannot create sandbox folder {self.root}: {exc}") from exc
        self.cgroup = Cgroup.create(self.spec.name, self.spec.profile) if self._is_root else None
        problem = "not found" if self.bwrap is None else _bwrap_problem(self.bwrap, self._is_root)
        if problem is not None:
            self.bwrap = None
            self._warn(
                f"bubblewrap (bwrap) {problem}: the local sandbox runs WITHOUT filesystem or network isolation "
                "(install the bubblewrap package; unprivileged use needs user namespaces)"
            )
        self.isolated = self.bwrap is not None
        self.exec_pid_namespace = self.bwrap is not None  # bwrap --unshare-pid: one namespace per exec
        if self.cgroup is None:
            self._warn("no cgroup: memory is capped by RLIMIT_AS and processes by RLIMIT_NPROC (per user) only")
        if not self._is_root:
            self._warn("not root: the sandbox runs as the harness's own user")
        self._started = True

    def alive(self) -> bool:
        """The sandbox folder is still there."""
        return self._started and self.workspace.is_dir()

    def measure(self) -> Measured | None:
        """The cgroup's own counters; without a cgroup (not root) nothing measures the sandbox as a whole."""
        return self.cgroup.usage() if self.cgroup is not None else None

    def teardown(self) -> None:
        """Kill whatever still runs, remove the cgroup and the sandbox folder."""
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self.root.exists():
            _force_rmtree(self.root)
        self._started = False

    @classmethod
    def cleanup_orphans(cls) -> list[str]:
        """Remove the sandbox folders and cgroups whose harness process is gone (or unknown)."""
        removed: set[str] = set()
        live: set[str] = set()
        if cls.base_dir.is_dir():
            for d in cls.base_dir.iterdir():
                try:
                    tag = (d / "owner").read_text().strip()
                except OSError:
                    tag = None
                if owner_dead(tag) is False:
                    live.add(d.name)
                    continue
                _force_rmtree(d)
                removed.add(d.name)
        for cgroup in stale_cgroups():
            if cgroup.name not in live:
                cgroup.remove()
                removed.add(cgroup.name)
        return sorted(removed)

    # -- files -------------------------------------------------------------------------------------------------

    def put(self, src: Path, dest: str = ".") -> None:
        """Copy the contents of host folder `src` into the workspace, owned by the sandbox user."""
        self._require_started()
        copy_in(src, self.workspace, dest, (self.uid, self.gid) if self._is_root else None)

    def get(self, src: str, dest: Path, max_bytes: int = 256 * 1024 * 1024) -> None:
        """Copy a workspace path out, never following links (see Sandbox.get)."""
        self._require_started()
        copy_out(self.workspace, src, dest, max_bytes, self._warn)

    # -- exec --------------------------------------------------------------------------------------------------

    def exec(
        self, argv: list[str], timeout_s: float, env: dict[str, str] | None = None, cwd: str | None = None
    ) -> ExecResult:
        """Run `argv` in a fresh bubblewrap sandbox; kill its whole PID namespace at the deadline."""
        self._require_started()
        if not argv:
            raise ValueError("empty command")
        full_env = self._env(env)
        command = self._command(argv, timeout_s, cwd)
        tag = f"{os.getpid()}-{time.monotonic_ns()}"  # execs may run side by side
        out_path, err_path = self._outputs / f"{tag}.out", self._outputs / f"{tag}.err"
        oom_before = self.cgroup.oom_kills() if self.cgroup else 0
        # Over the limit only counts when usage grew: a command cleaning up after a kill must be able to run.
        limit = max(int(self.spec.profile.disk_gib * 2**30), tree_blocks([self.workspace, self.tmp]))
        t0 = time.monotonic()
        timed_out = disk_exceeded = False
        with out_path.open("wb") as out, err_path.open("wb") as err:
            try:
                proc = subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    env=full_env,
                    cwd=self._host_cwd(cwd) if not self.isolated else self.root,
                    start_new_session=True,
                )
            except OSError as exc:
                raise SandboxError(f"cannot start sandboxed command: {exc}") from exc
            next_disk_check = t0 + 0.5
            while True:
                try:
                    proc.wait(timeout=0.2)
                    break
                except subprocess.TimeoutExpired:
                    pass
                now = time.monotonic()
                if now - t0 >= timeout_s:
                    timed_out = True
                    break
                if now >= next_disk_check:
                    next_disk_check = now + 1.0
                    if tree_blocks([self.workspace, self.tmp]) > limit:
                        disk_exceeded = True
                        break
            if timed_out or disk_exceeded:
                self._kill(proc)
        duration = time.monotonic() - t0
        if self.cgroup is not None and not self.isolated:
            self.cgroup.kill_all()  # without a PID namespace, reap what the command left running
        code = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
        oom = bool(self.cgroup and self.cgroup.oom_kills() > oom_before)
        if not disk_exceeded and tree_blocks([self.workspace, self.tmp]) > limit:
            disk_exceeded = True
        stdout, stderr = _read_tail(out_path), _read_tail(err_path)
        out_path.unlink()
        err_path.unlink()
        return ExecResult(
            exit_code=code,
            stdout=stdout,
            stderr=stderr,
            duration_s=duration,
            timed_out=timed_out,
            oom_killed=oom,
            disk_exceeded=disk_exceeded,
        )

    def _kill(self, proc: subprocess.Popen[bytes]) -> None:
        # The monitor's death takes the PID namespace down (--die-with-parent); the cgroup catches the rest.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        if self.cgroup is not None:
            self.cgroup.kill_all()
        proc.wait()

    def _env(self, extra: dict[str, str] | None) -> dict[str, str]:
        # Built from nothing: the harness's environment (API keys, tokens) never reaches the sandbox.
        home = self.spec.workdir if self.isolated else str(self.workspace)
        path = ":".join(dict.fromkeys([*self._python_bins(), "/usr/local/bin", "/usr/bin", "/bin"]))
        env = {
            "PATH": path,
            "HOME": home,
            "LANG": "C.UTF-8",
            "TMPDIR": "/tmp" if self.isolated else str(self.tmp),
            "USER": "agent",
            **self.thread_env(),
            **self.spec.env,
            **(extra or {}),
        }
        return env

    def _python_bins(self) -> list[str]:
        """The harness interpreter's bin folder(s), visible read-only so the agent has Python and numpy."""
        return [str(Path(p) / "bin") for p in dict.fromkeys([sys.prefix, sys.base_prefix]) if not p.startswith("/usr")]

    def _host_cwd(self, cwd: str | None) -> Path:
        if cwd is None:
            return self.workspace
        pure = cwd.removeprefix(self.spec.workdir).lstrip("/") if cwd.startswith(self.spec.workdir) else cwd
        return self.workspace.joinpath(*relative_parts(pure))

    def _limits(self, timeout_s: float) -> list[str]:
        p = self.spec.profile
        cpu_s = math.ceil(p.cpus * timeout_s) + 60
        lim = [
            f"--fsize={int(p.disk_gib * 2**30)}",
            f"--cpu={cpu_s}",
            "--core=0",
        ]
        if self.cgroup is None:
            lim.append(f"--as={int(p.memory_gib * 2**30)}")
        if self._is_root or self.cgroup is None:
            lim.append(f"--nproc={p.pids}")
        return lim

    def _command(self, argv: list[str], timeout_s: float, cwd: str | None) -> list[str]:
        command: list[str] = []
        if self.cgroup is not None:
            command += ["/bin/sh", "-c", _TRAMPOLINE, "sh", *map(str, self.cgroup.procs_files), "--"]
        prlimit = shutil.which("prlimit")
        if prlimit:
            command += [prlimit, *self._limits(timeout_s), "--"]
        else:
            self._warn("prlimit not found: no file-size or CPU-time rlimits")
        drop: list[str] = []
        if self._is_root:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                raise SandboxError("running as root needs setpriv (util-linux) to drop to the sandbox uid")
            drop = [setpriv, f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups", "--no-new-privs"]
        if self.bwrap is None:
            return command + drop + argv
        # As root, bubblewrap sets up the mounts with root's view of the host (the interpreter may live under
        # /root) and the command drops to the sandbox uid inside, its capabilities gone with the uid change.
        return command + self._bwrap_args(cwd) + ["--", *drop, *argv]

    def _bwrap_args(self, cwd: str | None) -> list[str]:
        assert self.bwrap is not None
        args = [self.bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        args += ["--die-with-parent", "--new-session", "--hostname", "sandbox"]
        if self._is_root:
            args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]  # for setpriv; dropped with the uid
        else:
            args += ["--unshare-user"]
        bound: list[Path] = []
        for d in self.system_dirs:
            p = Path(d)
            if p.is_symlink():
                args += ["--symlink", str(p.readlink()), d]
            elif p.is_dir():
                args += ["--ro-bind", d, d]
                bound.append(p)
        for prefix in dict.fromkeys([sys.base_prefix, sys.prefix]):
            pp = Path(prefix).resolve()
            if not any(pp.is_relative_to(b) for b in bound):
                # Its parents (e.g. /root, mode 700) are recreated traversable; nothing else of them is shown.
                for parent in reversed(pp.parents[:-1]):
                    args += ["--perms", "0755", "--dir", str(parent)]
                args += ["--ro-bind", str(pp), str(pp)]
                bound.append(pp)
        args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm"]
        args += ["--bind", str(self.tmp), "/tmp", "--bind", str(self.workspace), self.spec.workdir]
        for target, host in self.spec.readonly_mounts.items():
            for up in reversed(PurePosixPath(target).parents[:-1]):  # bubblewrap would make them root-only
                args += ["--perms", "0755", "--dir", str(up)]
            args += ["--ro-bind", str(host), target]
        # Mask the checkout wherever a bind exposes it (a venv inside it stays visible: it is re-bound below).
        remount: list[str] = []
        for hidden in _hidden_roots(self.spec):
            if any(hidden.is_relative_to(b) for b in bound):
                args += ["--tmpfs", str(hidden)]
                for b in bound:
                    if b != hidden and b.is_relative_to(hidden):
                        remount += ["--ro-bind", str(b), str(b)]
        args += remount
        workdir = self.spec.workdir
        chdir = cwd if cwd and cwd.startswith("/") else f"{workdir}/{cwd}" if cwd else workdir
        args += ["--chdir", chdir]
        return args

    # -- helpers -----------------------------------------------------------------------------------------------

    def _warn(self, message: str) -> None:
        if message not in self.warnings:
            log.warning("sandbox %s: %s", self.spec.name, message)
            self.warnings.append(message)

    def _require_started(self) -> None:
        if not self._started:
            raise SandboxError(f"sandbox {self.spec.name} is not started")


@functools.cache
def _bwrap_problem(bwrap: str, as_root: bool) -> str | None:
    """None when bubblewrap can build a sandbox here (user namespaces may be disabled), else its complaint."""
    args = [bwrap, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid"]
    args += [] if as_root else ["--unshare-user"]
    try:
        proc = subprocess.run([*args, "true"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"does not run: {exc}"
    return None if proc.returncode == 0 else f"does not work here: {proc.stderr.strip()[:200]}"


def _read_tail(path: Path) -> str:
    size = path.stat().st_size
    with path.open("rb") as f:
        if size > OUTPUT_LIMIT:
            f.seek(size - OUTPUT_LIMIT)
            return f"[... {size - OUTPUT_LIMIT} bytes cut ...]\n" + f.read().decode(errors="replace")
        return f.read().decode(errors="replace")


def _force_rmtree(path: Path) -> None:
    """Remove a tree even where the agent removed permissions (the harness owns the parent)."""

    def fix(func: object, name: str, _exc: object) -> None:
        p = Path(name)
        with contextlib.suppress(OSError):
            p.parent.chmod(0o700)
            if p.is_dir() and not p.is_symlink():
                p.chmod(0o700)
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink()

    shutil.rmtree(path, onerror=fix)
