"""The docker backend's helpers: the relay's source, exec output and archive spooling, labelled-resource cleanup.

The relay forwards the sandbox's one reachable port to the gateway; the collector thread and the spool bound what
an exec prints and what an archive copied out may occupy; everything cmb creates carries its labels and is
removed by them.
"""

from __future__ import annotations

import contextlib
import tarfile
import threading
import time
from typing import Any

LABEL = "cmb"
OUTPUT_LIMIT = 8 * 2**20

# Forwards every TCP connection on its listening port (RELAY_PORT) to the gateway; runs as uid 1000 in the relay.
RELAY_SOURCE = """
import asyncio, sys
host, port, listen = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
async def pipe(r, w):
    try:
        while data := await r.read(65536):
            w.write(data)
            await w.drain()
    finally:
        w.close()
async def handle(cr, cw):
    try:
        gr, gw = await asyncio.open_connection(host, port)
    except OSError:
        cw.close()
        return
    await asyncio.gather(pipe(cr, gw), pipe(gr, cw), return_exceptions=True)
async def main():
    server = await asyncio.start_server(handle, "0.0.0.0", listen)
    print("relay ready", flush=True)
    await server.serve_forever()
asyncio.run(main())
"""


def dir_info(name: str) -> tarfile.TarInfo:
    """A tar entry for a folder owned by the agent (uid 1000)."""
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    info.mode = 0o755
    info.uid, info.gid, info.uname, info.gname = 1000, 1000, "agent", "agent"
    info.mtime = int(time.time())
    return info


def remove_labelled(client: Any, labels: dict[str, str]) -> list[str]:
    """Remove containers, then networks, then volumes carrying cmb=1 and `labels`; returns their names."""
    import docker.errors

    filters = {"label": [f"{LABEL}=1", *(f"{k}={v}" for k, v in labels.items())]}
    removed: list[str] = []
    for c in client.containers.list(all=True, filters=filters):
        with contextlib.suppress(docker.errors.NotFound):
            c.remove(force=True, v=True)
            removed.append(c.name)
    for n in client.networks.list(filters=filters):
        with contextlib.suppress(docker.errors.NotFound):
            n.remove()
            removed.append(n.name)
    for v in client.volumes.list(filters=filters):
        with contextlib.suppress(docker.errors.NotFound):
            v.remove(force=True)
            removed.append(v.name)
    return removed


class OutputCollector(threading.Thread):
    """Drains an exec's demultiplexed output stream, keeping at most OUTPUT_LIMIT bytes of each."""

    def __init__(self, stream: Any) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.buffers: dict[int, bytearray] = {1: bytearray(), 2: bytearray()}
        self.dropped: dict[int, int] = {1: 0, 2: 0}

    def run(self) -> None:
        with contextlib.suppress(Exception):
            for stdout, stderr in self.stream:
                for fd, chunk in ((1, stdout), (2, stderr)):
                    if chunk:
                        buf = self.buffers[fd]
                        buf += chunk
                        if len(buf) > OUTPUT_LIMIT:
                            cut = len(buf) - OUTPUT_LIMIT
                            del buf[:cut]
                            self.dropped[fd] += cut

    def text(self, fd: int) -> str:
        """What was kept of stdout (1) or stderr (2)."""
        head = f"[... {self.dropped[fd]} bytes cut ...]\n" if self.dropped[fd] else ""
        return head + bytes(self.buffers[fd]).decode(errors="replace")


class Spool:
    """A temporary file that accepts at most `limit` bytes."""

    def __init__(self, limit: int) -> None:
        import tempfile

        self.limit = limit
        self.size = 0
        self.file = tempfile.TemporaryFile()

    def write(self, chunk: bytes) -> bool:
        self.size += len(chunk)
        if self.size > self.limit:
            return False
        self.file.write(chunk)
        return True

    def seek(self, pos: int) -> None:
        self.file.seek(pos)

    def __enter__(self) -> Spool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()
