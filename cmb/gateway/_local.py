"""Run the gateway in-process (a thread with its own event loop) for local sweeps, and reach one over HTTP."""

from __future__ import annotations

import asyncio
import fcntl
import json
import secrets
import socket
import struct
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from aiohttp import web

from cmb.gateway._config import Budget, GatewayConfig
from cmb.gateway._server import Gateway, make_app
from cmb.gateway._state import SUMMARY, records_path
from cmb.gateway._usage import AttemptUsage
from cmb.models import GatewayAccess, RunKey, Usage


def interface_address(name: str) -> str | None:
    """IPv4 address of a network interface (e.g. docker0), or None."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))  # SIOCGIFADDR
        except OSError:
            return None
    return socket.inet_ntoa(packed[20:24])


def sandbox_hosts() -> list[str]:
    """Where a gateway for local sandboxes listens: loopback, and the docker bridge that the sandbox relay uses."""
    hosts = ["127.0.0.1"]
    bridge = interface_address("docker0")
    if bridge:
        hosts.append(bridge)
    return hosts


class LocalGateway:
    """A gateway served from a background thread: `with LocalGateway(config) as gw: gw.access(key, model)`."""

    def __init__(
        self,
        config: GatewayConfig | None = None,
        hosts: list[str] | None = None,
        port: int = 0,
        admin_key: str | None = None,
    ) -> None:
        self.config = config or GatewayConfig()
        self.hosts = hosts or ["127.0.0.1"]
        self.port = port
        self.gateway = Gateway(self.config, admin_key or secrets.token_urlsafe(32))
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    # -- lifecycle ---------------------------------------------------------------------------------------------------

    def start(self) -> LocalGateway:
        """Serve until stop(); raises if the server cannot bind."""
        self._thread = threading.Thread(target=self._serve, name="cmb-gateway", daemon=True)
        self._thread.start()
        self._ready.wait(60)
        if self._error is not None:
            raise RuntimeError(f"gateway failed to start: {self._error}") from self._error
        return self

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._setup())
        except BaseException as exc:  # reported to start()
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        loop.run_forever()
        loop.run_until_complete(self._cleanup())
        loop.close()

    async def _setup(self) -> None:
        self._runner = web.AppRunner(make_app(self.gateway), access_log=None)
        await self._runner.setup()
        port = self.port
        for host in self.hosts:
            site = web.TCPSite(self._runner, host, port)
            await site.start()
            if port == 0:  # the first site picks a free port; the others listen on the same one
                port = int(self._runner.addresses[0][1])
        self.port = port

    async def _cleanup(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def stop(self) -> None:
        """Stop serving (idempotent)."""
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(30)
        self._thread = None

    def __enter__(self) -> LocalGateway:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what the harness uses ---------------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """URL for clients on this host, without /v1 (the docker backend maps loopback to its relay)."""
        return f"http://127.0.0.1:{self.port}" if "127.0.0.1" in self.hosts else f"http://{self.hosts[0]}:{self.port}"

    @property
    def admin_key(self) -> str:
        """Bearer key of the admin API."""
        return self.gateway.admin_key

    def issue(self, attempt: str, model: str | None = None, budget: Budget | None = None) -> str:
        """A token for one attempt."""
        return self.gateway.issue(attempt, model, budget).token

    def access(self, key: RunKey | str, model: str | None = None, budget: Budget | None = None) -> GatewayAccess:
        """What the runner passes to the agent: the gateway URL, a fresh per-attempt token, the model."""
        return GatewayAccess(base_url=self.base_url, api_key=self.issue(str(key), model, budget), model=model)

    def usage(self, attempt: RunKey | str) -> AttemptUsage | None:
        """The metered usage of an attempt so far."""
        state = self.gateway.registry.get(str(attempt))
        return state.summary() if state is not None else None

    def meter(self, key: RunKey) -> Usage | None:
        """RunOptions.usage_meter: the attempt's metered usage as RunRecord.usage."""
        summary = self.usage(key)
        return summary.to_usage() if summary is not None else None

    def trajectory(self, key: RunKey | str) -> dict[str, Any] | None:
        """RunOptions.trajectory: the attempt's ATIF trajectory, written beside its transcript (None: no request)."""
        state = self.gateway.registry.get(str(key))
        return state.save_trajectory() if state is not None else None

    def revoke(self, attempt: RunKey | str) -> bool:
        """Invalidate an attempt's token once it is done."""
        return self.gateway.registry.revoke(str(attempt))

    def client(self) -> GatewayClient:
        """A picklable handle on this gateway for other processes (Ray launchers)."""
        return GatewayClient(self.base_url, f"http://127.0.0.1:{self.port}", self.admin_key)


class GatewayClient:
    """The admin API over HTTP: the same calls as LocalGateway, for a gateway in another process or pod."""

    def __init__(self, base_url: str, admin_url: str, admin_key: str, timeout_s: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.admin_url = admin_url.rstrip("/")
        self.admin_key = admin_key
        self.timeout_s = timeout_s

    def _call(self, method: str, path: str, doc: dict[str, Any] | None = None) -> dict[str, Any] | None:
        data = json.dumps(doc).encode() if doc is not None else None
        req = urllib.request.Request(  # noqa: S310 - the admin URL is configured by the operator
            self.admin_url + path,
            data=data,
            method=method,
            headers={"Authorization": f"Bearer {self.admin_key}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:  # noqa: S310
                out = json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return None
            raise RuntimeError(f"gateway admin {method} {path}: HTTP {exc.code} {exc.read()[:300]!r}") from exc
        return out if isinstance(out, dict) else None

    def issue(self, attempt: str, model: str | None = None, budget: Budget | None = None) -> str:
        """A token for one attempt."""
        doc: dict[str, Any] = {"attempt": attempt, "model": model}
        if budget is not None:
            doc["budget"] = budget.model_dump()
        out = self._call("POST", "/admin/tokens", doc)
        if out is None or "token" not in out:
            raise RuntimeError(f"gateway refused a token for {attempt}")
        return str(out["token"])

    def access(self, key: RunKey | str, model: str | None = None, budget: Budget | None = None) -> GatewayAccess:
        """The gateway URL, a fresh per-attempt token, the model."""
        return GatewayAccess(base_url=self.base_url, api_key=self.issue(str(key), model, budget), model=model)

    def usage(self, attempt: RunKey | str) -> AttemptUsage | None:
        """The metered usage of an attempt."""
        from urllib.parse import quote

        out = self._call("GET", f"/admin/usage?attempt={quote(str(attempt), safe='')}")
        return AttemptUsage.model_validate(out) if out is not None else None

    def meter(self, key: RunKey) -> Usage | None:
        """RunOptions.usage_meter over HTTP."""
        summary = self.usage(key)
        return summary.to_usage() if summary is not None else None

    def trajectory(self, key: RunKey | str) -> dict[str, Any] | None:
        """RunOptions.trajectory over HTTP."""
        from urllib.parse import quote

        out = self._call("POST", f"/admin/trajectory?attempt={quote(str(key), safe='')}", {})
        trajectory = out.get("trajectory") if out is not None else None
        return trajectory if isinstance(trajectory, dict) else None

    def revoke(self, attempt: RunKey | str) -> bool:
        """Invalidate an attempt's token."""
        from urllib.parse import quote

        return self._call("DELETE", f"/admin/tokens?attempt={quote(str(attempt), safe='')}") is not None


def read_usage(records_dir: Path, attempt: RunKey | str) -> AttemptUsage | None:
    """An attempt's usage from the summary the gateway keeps beside its transcript (no server needed)."""
    path = records_path(records_dir, str(attempt)) / SUMMARY
    if not path.is_file():
        return None
    return AttemptUsage.model_validate_json(path.read_text(encoding="utf-8"))
