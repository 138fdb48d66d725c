"""Memory, process and CPU limits for the local backend through a cgroup of its own (v1 or v2).

RLIMIT_NPROC counts processes per user and RLIMIT_AS caps address space rather than memory, so a cgroup is the
real limit whenever the harness may create one (root, or a delegated subtree); the local backend falls back to
rlimits otherwise and says so.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

from cmb.models import ResourceProfile

CGROUP_ROOT = Path("/sys/fs/cgroup")
PARENT = "cmb"
_V1_CONTROLLERS = ("memory", "pids", "cpu")


class Cgroup:
    """One sandbox's cgroup: created on start, joined by every exec, killed and removed on teardown."""

    def __init__(self, name: str, dirs: dict[str, Path], version: int) -> None:
        self.name = name
        self.dirs = dirs  # controller -> folder (v2: one folder for all)
        self.version = version

    @classmethod
    def create(cls, name: str, profile: ResourceProfile, root: Path = CGROUP_ROOT) -> Cgroup | None:
        """The cgroup for `name` with the profile's limits, or None when cgroups cannot be managed here."""
        try:
            if (root / "cgroup.controllers").is_file():
                return cls._create_v2(name, profile, root)
            if all((root / c / "cgroup.procs").is_file() for c in _V1_CONTROLLERS):
                return cls._create_v1(name, profile, root)
        except OSError:
            return None
        return None

    @classmethod
    def _create_v1(cls, name: str, profile: ResourceProfile, root: Path) -> Cgroup:
        dirs = {c: root / c / PARENT / name for c in _V1_CONTROLLERS}
        for d in dirs.values():
            d.mkdir(parents=True, exist_ok=True)
        mem = int(profile.memory_gib * 2**30)
        _write(dirs["memory"] / "memory.limit_in_bytes", str(mem))
        with contextlib.suppress(OSError):  # only with swap accounting
            _write(dirs["memory"] / "memory.memsw.limit_in_bytes", str(mem))
        _write(dirs["pids"] / "pids.max", str(profile.pids))
        _write(dirs["cpu"] / "cpu.cfs_period_us", "100000")
        _write(dirs["cpu"] / "cpu.cfs_quota_us", str(int(profile.cpus * 100000)))
        return cls(name, dirs, 1)

    @classmethod
    def _create_v2(cls, name: str, profile: ResourceProfile, root: Path) -> Cgroup:
        parent = root / PARENT
        parent.mkdir(exist_ok=True)
        for level in (root, parent):
            _write(level / "cgroup.subtree_control", "+memory +pids +cpu")
        d = parent / name
        d.mkdir(exist_ok=True)
        _write(d / "memory.max", str(int(profile.memory_gib * 2**30)))
        with contextlib.suppress(OSError):
            _write(d / "memory.swap.max", "0")
        _write(d / "pids.max", str(profile.pids))
        _write(d / "cpu.max", f"{int(profile.cpus * 100000)} 100000")
        return cls(name, {"all": d}, 2)

    @property
    def procs_files(self) -> list[Path]:
        """The cgroup.procs files a new process writes its pid into to join."""
        return [d / "cgroup.procs" for d in self.dirs.values()]

    def oom_kills(self) -> int:
        """How many processes the kernel's OOM killer has killed in this cgroup so far."""
        path = self.dirs["memory"] / "memory.oom_control" if self.version == 1 else self.dirs["all"] / "memory.events"
        try:
            for line in path.read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except OSError:
            pass
        return 0

    def pids(self) -> list[int]:
        """Processes in the cgroup now."""
        d = self.dirs["pids"] if self.version == 1 else self.dirs["all"]
        try:
            return [int(p) for p in (d / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def kill_all(self, attempts: int = 50) -> None:
        """SIGKILL every process in the cgroup until none is left (a fork bomb keeps forking meanwhile)."""
        if self.version == 2:
            with contextlib.suppress(OSError):
                _write(self.dirs["all"] / "cgroup.kill", "1")
        for _ in range(attempts):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)

    def remove(self) -> None:
        """Kill what is left and delete the cgroup folders."""
        self.kill_all()
        for d in self.dirs.values():
            if not d.is_dir():
                continue
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # busy until the last killed process is reaped
                    time.sleep(0.02)


def stale_cgroups(root: Path = CGROUP_ROOT) -> list[Cgroup]:
    """Sandbox cgroups left under the cmb parent (by a harness that was killed)."""
    if (root / "cgroup.controllers").is_file():
        parent = root / PARENT
        names = [d.name for d in parent.iterdir() if d.is_dir()] if parent.is_dir() else []
        return [Cgroup(n, {"all": parent / n}, 2) for n in names]
    names_v1: set[str] = set()
    for c in _V1_CONTROLLERS:
        parent = root / c / PARENT
        if parent.is_dir():
            names_v1.update(d.name for d in parent.iterdir() if d.is_dir())
    return [Cgroup(n, {c: root / c / PARENT / n for c in _V1_CONTROLLERS}, 1) for n in sorted(names_v1)]


def _write(path: Path, value: str) -> None:
    path.write_text(value)
