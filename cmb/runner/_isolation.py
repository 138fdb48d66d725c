"""The network isolation probe: from inside the sandbox, before the agent runs, try the host and the internet.

The in-sandbox half is _netprobe.py, staged with the harness; this half listens on the host's addresses and reads
what the probe reached.
"""

from __future__ import annotations

import fcntl
import json
import socket
import struct
import threading
import time
from pathlib import Path

from cmb.agents import SandboxPaths
from cmb.runner._audit import NetworkProbe
from cmb.sandbox import Sandbox

NETPROBE = Path(__file__).with_name("_netprobe.py")
PUBLIC_PROBES = ("1.1.1.1:443", "8.8.8.8:53", "dns:example.com")
PROBE_TIMEOUT_S = 30.0


def _host_addresses() -> list[str]:
    """IPv4 addresses of this host's interfaces other than loopback (docker bridges included)."""
    addrs: set[str] = set()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _, name in socket.if_nameindex():
            try:
                packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))  # SIOCGIFADDR
            except OSError:
                continue
            addr = socket.inet_ntoa(packed[20:24])
            if not addr.startswith("127."):
                addrs.add(addr)
    return sorted(addrs)


class _Listener:
    """A TCP listener on every host address: a connection from the sandbox proves it has a network."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("0.0.0.0", 0))  # noqa: S104 - the point is to be reachable from any interface
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.peers: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, peer = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.peers.append(f"{peer[0]}:{peer[1]}")
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2)
        self.sock.close()


def probe_network(sandbox: Sandbox, paths: SandboxPaths, gateway_url: str | None, env: dict[str, str]) -> NetworkProbe:
    """Try the host's own addresses and public ones from inside the sandbox, before the agent runs."""
    listener = _Listener()
    try:
        targets = [f"{a}:{listener.port}" for a in _host_addresses()] + list(PUBLIC_PROBES)
        argv = ["python3", f"{paths.harness}/_netprobe.py", *targets]
        result = sandbox.exec(argv, timeout_s=PROBE_TIMEOUT_S, env=env)
        time.sleep(0.2)
    finally:
        listener.close()
    if result.exit_code != 0 or result.timed_out:
        return NetworkProbe(ran=False, error=(result.stderr or result.stdout)[-300:] or f"exit {result.exit_code}")
    try:
        reached = [str(r) for r in json.loads(result.stdout.strip().splitlines()[-1])]
    except (ValueError, IndexError):
        return NetworkProbe(ran=False, error=f"unreadable probe output {result.stdout[-200:]!r}")
    gateway = _gateway_hostport(gateway_url)
    reached = [r for r in reached if r != gateway]
    reached += [f"listener<-{p}" for p in listener.peers if f"listener<-{p}" not in reached]
    return NetworkProbe(ran=True, reached=sorted(set(reached)))


def _gateway_hostport(url: str | None) -> str | None:
    if not url:
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.hostname}:{port}"
