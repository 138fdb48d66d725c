"""Which harness process created a sandbox, so that cleanup removes only what a dead harness left behind."""

from __future__ import annotations

import os
import socket

OWNER_LABEL = "cmb.owner"


def owner_tag() -> str:
    """`host:pid` of this harness process."""
    return f"{socket.gethostname()}:{os.getpid()}"


def owner_dead(tag: str | None) -> bool | None:
    """True when `tag` names a process of this host that no longer runs; None when that cannot be told here."""
    host, _, pid = (tag or "").partition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return None
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
