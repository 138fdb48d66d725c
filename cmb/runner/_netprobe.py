"""In-sandbox network probe (standard library only): try each HOST:PORT given, print the ones that connected."""

from __future__ import annotations

import json
import socket
import sys
import threading


def _try(target: str, reached: list[str]) -> None:
    host, _, port = target.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=2.0):
            reached.append(target)
    except (OSError, ValueError):
        pass


def _resolve(name: str, reached: list[str]) -> None:
    try:
        socket.getaddrinfo(name, 443)
        reached.append(f"dns:{name}")
    except OSError:
        pass


def main(targets: list[str]) -> int:
    """Probe all targets at once; print a JSON list of what was reached."""
    reached: list[str] = []
    threads = [
        threading.Thread(target=_try, args=(t, reached), daemon=True) for t in targets if not t.startswith("dns:")
    ]
    threads += [
        threading.Thread(target=_resolve, args=(t[4:], reached), daemon=True) for t in targets if t.startswith("dns:")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5.0)
    print(json.dumps(sorted(reached)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
