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
from cmb.sandbox._base import Measured

CGROUP_ROOT = Path("/sys/fs/cgroup")
PARENT = "cmb"
_V1_CONTROLLERS = ("memory", "pids", "cpu")
_V1_ACCOUNTING = "cpuacct"  # CPU time; its own hierarchy where it is not mounted together with cpu


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
        dirs = {c: root / c / PARENT / name for c in _v1_controllers(root)}
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

    def usage(self) -> Measured | None:
        """CPU seconds and peak memory of every process that was in the cgroup; None when unreadable."""
        try:
            if self.version == 2:
                d = self.dirs["all"]
                stat = dict(line.split() for line in (d / "cpu.stat").read_text().splitlines())
                peak = d / "memory.peak"  # kernels before 5.19 have none
                return Measured(
                    int(stat["usage_usec"]) / 1e6,
                    int(peak.read_text()) if peak.is_file() else None,
                    "cgroup-v2",
                )
            acct = self.dirs.get(_V1_ACCOUNTING, self.dirs["cpu"])
            return Measured(
                int((acct / "cpuacct.usage").read_text()) / 1e9,
                int((self.dirs["memory"] / "memory.max_usage_in_bytes").read_text()),
                "cgroup-v1",
            )
        except (OSError, KeyError, ValueError):
            return None

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
    controllers = _v1_controllers(root)
    for c in controllers:
        parent = root / c / PARENT
        if parent.is_dir():
            names_v1.update(d.name for d in parent.iterdir() if d.is_dir())
    return [Cgroup(n, {c: root / c / PARENT / n for c in controllers}, 1) for n in sorted(names_v1)]


# Run inside a container with the cgroup root as $1: its own cgroup's CPU time and peak memory, v2 or v1.
REPORT_SCRIPT = (
    'c=$1; if [ -f "$c/cpu.stat" ]; then '
    'echo "cgroup-v2 $(sed -n "s/^usage_usec //p" "$c/cpu.stat") $(cat "$c/memory.peak" 2>/dev/null || echo -)"; '
    'else a=$c/cpuacct; [ -d "$a" ] || a=$c/cpu,cpuacct; '
    'echo "cgroup-v1 $(cat "$a/cpuacct.usage") $(cat "$c/memory/memory.max_usage_in_bytes" 2>/dev/null || echo -)"; fi'
)


def parse_report(text: str) -> Measured | None:
    """REPORT_SCRIPT's line as figures (v2 counts microseconds, v1 nanoseconds); None when it is not one."""
    parts = text.split()
    if len(parts) != 3 or parts[0] not in ("cgroup-v1", "cgroup-v2") or not parts[1].isdigit():
        return None
    scale = 1e6 if parts[0] == "cgroup-v2" else 1e9
    return Measured(int(parts[1]) / scale, int(parts[2]) if parts[2].isdigit() else None, parts[0])


def _v1_controllers(root: Path) -> tuple[str, ...]:
    """The v1 controllers a sandbox joins: the limiting ones, and CPU accounting where it is a hierarchy apart."""
    apart = (root / _V1_ACCOUNTING / "cgroup.procs").is_file() and not (root / "cpu" / "cpuacct.usage").is_file()
    return (*_V1_CONTROLLERS, _V1_ACCOUNTING) if apart else _V1_CONTROLLERS


def _write(path: Path, value: str) -> None:
    path.write_text(value)
