"""A sweep's folder, CMB_HOME/sweeps/<name>/.

It holds the spec and its hash (a resume must match them), and a lock so that only one driver runs a sweep at a
time (an flock: a killed driver releases it with its process).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import yaml

from cmb.models import SweepSpec

SPEC_FILE = "spec.yaml"
HASH_FILE = "spec.hash"
LOCK_FILE = ".driver.lock"


class SweepStateError(RuntimeError):
    """The sweep cannot start as asked: it exists without --resume, its spec changed, or another driver runs it."""


def _atomic_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _diff(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    keys = sorted(set(old) | set(new))
    return [f"{k}: {old.get(k)!r} -> {new.get(k)!r}" for k in keys if old.get(k) != new.get(k)]


class SweepDir:
    """CMB_HOME/sweeps/<name>/."""

    def __init__(self, home: Path, name: str) -> None:
        self.path = Path(home) / "sweeps" / name
        self._lock: IO[str] | None = None

    def exists(self) -> bool:
        """Whether a sweep of this name was started before."""
        return (self.path / HASH_FILE).is_file()

    def stored_spec(self) -> SweepSpec:
        """The spec the sweep was started with."""
        if not self.exists():
            raise SweepStateError(f"no sweep at {self.path}: nothing to resume")
        data = yaml.safe_load((self.path / SPEC_FILE).read_text(encoding="utf-8"))
        return SweepSpec.model_validate(data)

    def prepare(self, spec: SweepSpec, *, resume: bool) -> None:
        """Record the spec of a new sweep, or check that a resumed one is unchanged (its hash)."""
        if self.exists():
            stored_hash = (self.path / HASH_FILE).read_text(encoding="utf-8").strip()
            if not resume:
                raise SweepStateError(
                    f"sweep {spec.name!r} already exists ({self.path}); pass --resume to finish it, "
                    "or choose another --sweep-id"
                )
            if stored_hash != spec.spec_hash():
                changes = _diff(self.stored_spec().model_dump(mode="json"), spec.model_dump(mode="json"))
                raise SweepStateError(
                    f"refusing to resume sweep {spec.name!r}: its spec changed (hash {stored_hash} -> "
                    f"{spec.spec_hash()}): " + "; ".join(changes)
                )
            return
        self.path.mkdir(parents=True, exist_ok=True)
        _atomic_text(self.path / SPEC_FILE, yaml.safe_dump(spec.model_dump(mode="json"), sort_keys=False))
        _atomic_text(self.path / HASH_FILE, spec.spec_hash() + "\n")

    def lock(self) -> None:
        """Hold the driver lock until `unlock` (or the process dies)."""
        self.path.mkdir(parents=True, exist_ok=True)
        handle = (self.path / LOCK_FILE).open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise SweepStateError(f"another driver is running sweep {self.path.name!r}") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._lock = handle

    def unlock(self) -> None:
        """Release the driver lock."""
        if self._lock is not None:
            fcntl.flock(self._lock.fileno(), fcntl.LOCK_UN)
            self._lock.close()
            self._lock = None

    def __enter__(self) -> SweepDir:
        self.lock()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.unlock()
