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


def owner_label_value() -> str:
    """The owner tag as a Kubernetes label value (no colon; at most 63 characters, so a long host name is cut)."""
    host, _, pid = owner_tag().partition(":")
    cut = host[: 62 - len(pid)].rstrip("-_.") or "host"
    return f"{cut}.{pid}"


def owner_of_label(value: str | None) -> str | None:
    """The owner tag a label value of owner_label_value() stands for (a cut host name never matches this one)."""
    host, _, pid = (value or "").rpartition(".")
    return f"{host}:{pid}" if host and pid.isdigit() else None
