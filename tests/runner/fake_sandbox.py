"""A tiny in-test Sandbox: a host folder and plain subprocesses, no isolation at all (for lifecycle tests only)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from cmb.sandbox import ExecResult, Sandbox, SandboxError, SandboxSpec


class FakeSandbox(Sandbox):
    """Runs commands on the host in a temporary folder; the env is exactly PATH plus what the caller passes."""

    backend = "fake"
    fail_on: str | None = None  # "start" or "exec": raise SandboxError there (infrastructure failures)

    def __init__(self, spec: SandboxSpec) -> None:
        super().__init__(spec)
        self.dir: Path | None = None
        self.isolated = False

    def start(self) -> None:
        if self.fail_on == "start":
            raise SandboxError("fake: the daemon is gone")
        self.dir = Path(tempfile.mkdtemp(prefix="cmb-fake-"))

    @property
    def root(self) -> Path:
        assert self.dir is not None
        return self.dir

    def put(self, src: Path, dest: str = ".") -> None:
        shutil.copytree(src, self.root / dest, dirs_exist_ok=True, symlinks=True)

    def exec(
        self, argv: list[str], timeout_s: float, env: dict[str, str] | None = None, cwd: str | None = None
    ) -> ExecResult:
        if self.fail_on == "exec":
            raise SandboxError("fake: exec failed")
        full = {"PATH": os.environ["PATH"], **self.thread_env(), **self.spec.env, **(env or {})}
        where = Path(cwd) if cwd and cwd.startswith("/") else self.root / (cwd or ".")
        t0 = time.monotonic()
        proc = subprocess.Popen(
            argv, cwd=where, env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
        )
        try:
            out, err = proc.communicate(timeout=timeout_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            timed_out = True
        code = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
        return ExecResult(
            code, out.decode(errors="replace"), err.decode(errors="replace"), time.monotonic() - t0, timed_out
        )

    def get(self, src: str, dest: Path, max_bytes: int = 256 * 1024 * 1024) -> None:
        path = self.root / src
        if not path.exists():
            raise FileNotFoundError(src)
        dest.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            shutil.copytree(path, dest, dirs_exist_ok=True, symlinks=True)
        else:
            shutil.copyfile(path, dest / path.name)

    def teardown(self) -> None:
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
