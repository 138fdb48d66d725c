"""Helpers for the sandbox tests: backends as parameters, images built without a registry, network probes."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cmb.models import ResourceProfile
from cmb.sandbox import BACKENDS, Sandbox, get_backend

REPO = Path(__file__).resolve().parents[2]
BUILD_LOCAL = REPO / "deploy" / "image" / "build-local.sh"
SLIM_IMAGE = "cmb-agent:slim"
FULL_IMAGE = "cmb-agent:full"
# Backends whose tests need an engine or a cluster carry its marker.
MARKED = {"docker": pytest.mark.docker, "kubernetes": pytest.mark.k8s}
# CI has these (a Docker engine is started by the setup); any other backend is skipped where unavailable.
REQUIRED_IN_CI = {"local", "docker"}

TEST_PROFILE = ResourceProfile(name="test", cpus=2, memory_gib=0.5, time_limit_s=120, pids=128, disk_gib=0.25)


def backend_params() -> list[Any]:
    """Every registered backend, marked with what it needs."""
    return [pytest.param(name, marks=[MARKED[name]] if name in MARKED else [], id=name) for name in sorted(BACKENDS)]


def require_backend(name: str) -> None:
    """Skip when the backend says it cannot run here, except in CI, where every backend must run."""
    reason = get_backend(name).available()
    if reason is None:
        return
    if os.environ.get("CI") and name in REQUIRED_IN_CI:
        pytest.fail(f"backend {name} must be available in CI: {reason}")
    pytest.skip(f"backend {name} unavailable: {reason}")


_built: dict[str, str] = {}
_build_lock = threading.Lock()


def build_image(variant: str) -> str:
    """The agent image of `variant`, built from Debian packages and wheels with no registry (cached by hash)."""
    with _build_lock:
        if variant not in _built:
            proc = subprocess.run(
                ["bash", str(BUILD_LOCAL), variant], capture_output=True, text=True, timeout=1800, check=False
            )
            if proc.returncode != 0:
                pytest.fail(f"building cmb-agent:{variant} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
            _built[variant] = f"cmb-agent:{variant}"
        return _built[variant]


SandboxFactory = Callable[..., Sandbox]


def host_addresses() -> list[str]:
    """This host's IPv4 addresses, loopback included (where a leaky sandbox could reach host services)."""
    addrs = {"127.0.0.1"}
    try:
        out = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True, text=True, check=False).stdout
        for line in out.splitlines():
            fields = line.split()
            if "inet" in fields:
                addrs.add(fields[fields.index("inet") + 1].split("/")[0])
    except FileNotFoundError:
        pass
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:  # the primary address; sends nothing
        try:
            s.connect(("192.0.2.1", 9))
            addrs.add(s.getsockname()[0])
        except OSError:
            pass
    return sorted(addrs)


class TcpServer:
    """A TCP server on all interfaces answering every connection with `reply`."""

    def __init__(self, reply: bytes = b"reached\n") -> None:
        self.reply = reply
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("0.0.0.0", 0))
        self.sock.listen(16)
        self.port: int = self.sock.getsockname()[1]
        self.hits = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.hits += 1
            with conn:
                conn.sendall(self.reply)

    def close(self) -> None:
        self.sock.close()


# Run inside a sandbox: try each host:port, print one line per target.
PROBE = """
import socket, sys
from concurrent.futures import ThreadPoolExecutor
def probe(target):
    host, port = target.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=3) as s:
            return f"{target} REACHED {s.recv(64)!r}"
    except OSError as exc:
        return f"{target} blocked {type(exc).__name__}"
with ThreadPoolExecutor(8) as pool:
    print("\\n".join(pool.map(probe, sys.argv[1:])))
"""

# Name resolution, probed with a name no resolver knows (RFC 6761 reserves .invalid), so nothing real is looked
# up: a resolver that answers says the name does not exist (EAI_NONAME); a sandbox that reaches none cannot ask.
DNS_PROBE = """
import socket
try:
    socket.getaddrinfo("example.invalid", 80)
    print("resolved")
except socket.gaierror as exc:
    print("answered: no such name" if exc.errno == socket.EAI_NONAME else f"no resolver ({exc})")
"""


def assert_no_name_resolution(sb: Sandbox) -> None:
    """No resolver answers from inside the sandbox."""
    r = sb.exec(["python3", "-c", DNS_PROBE], timeout_s=30)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("no resolver"), r.stdout


def host_processes_matching(marker: str) -> list[str]:
    """Command lines of host processes containing `marker` (container processes are host processes too)."""
    found = []
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline and "pytest" not in cmdline:
            found.append(f"{entry.name}: {cmdline}")
    return found


# Started in a child process that then dies without teardown: what a killed harness leaves behind.
_ABANDON = """
import os, sys
from cmb.models import ResourceProfile
from cmb.sandbox import SandboxSpec, get_backend
profile = ResourceProfile(name="t", cpus=1, memory_gib=0.25, time_limit_s=60)
sb = get_backend(sys.argv[1])(SandboxSpec(name=sys.argv[2], profile=profile, image=sys.argv[3]))
sb.start()
sb.exec(["sh", "-c", "echo left > behind.txt"], timeout_s=30)
os._exit(0)
"""


def abandon_sandbox(backend: str, name: str, image: str = SLIM_IMAGE) -> None:
    """Create sandbox `name` in a child process that exits without tearing it down."""
    import sys

    subprocess.run([sys.executable, "-c", _ABANDON, backend, name, image], check=True, cwd=REPO, timeout=300)
