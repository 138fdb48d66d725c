"""MLflow for tests: a migrated sqlite database made once per session, and a real `mlflow server` subprocess on
127.0.0.1 that tests can stop and start again on the same port and data."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from tests.processes import free_port

# Offline and lean: no background job runner, no model price list fetched from the internet.
SERVER_ENV = {"MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
_template: Path | None = None
_template_lock = threading.Lock()


def migrated_db(dest: Path) -> Path:
    """Copy an empty, fully migrated MLflow sqlite database to `dest` (creating one takes seconds; copying does not)."""
    global _template
    with _template_lock:
        if _template is None:
            from mlflow.tracking import MlflowClient

            path = Path(tempfile.mkdtemp(prefix="cmb-mlflow-template-")) / "mlflow.db"
            MlflowClient(f"sqlite:///{path}").search_experiments()
            _template = path
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_template, dest)
    return dest


class MlflowServer:
    """`mlflow server` with an sqlite backend and a local artifact destination under `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 90.0) -> None:
        exe = shutil.which("mlflow")
        assert exe, "the mlflow command is not installed"
        self.root.mkdir(parents=True, exist_ok=True)
        if not (self.root / "server.db").exists():
            migrated_db(self.root / "server.db")
        log = (self.root / "server.log").open("ab")
        self.proc = subprocess.Popen(
            [
                exe, "server", "--host", "127.0.0.1", "--port", str(self.port), "--workers", "1",
                "--backend-store-uri", f"sqlite:///{self.root / 'server.db'}",
                "--artifacts-destination", (self.root / "artifacts").as_uri(),
            ],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, **SERVER_ENV},
        )  # fmt: skip
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mlflow server exited: {(self.root / 'server.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.uri}/health", timeout=2) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise TimeoutError("mlflow server did not answer /health")

    def stop(self) -> None:
        """Stop the server's whole process group (it forks workers), by the id of the group we started."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.proc = None


_shared: MlflowServer | None = None


def shared_server() -> MlflowServer:
    """One server for the whole test session (starting one takes tens of seconds on a small machine).

    A test that stops it must start it again before it returns.
    """
    global _shared
    if _shared is None:
        import atexit

        _shared = MlflowServer(Path(tempfile.mkdtemp(prefix="cmb-mlflow-server-")))
        _shared.start()
        atexit.register(_shared.stop)
    elif _shared.proc is None:
        _shared.start()
    return _shared
