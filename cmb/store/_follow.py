"""Following a sweep's Parquet truth into MLflow, off the attempts' path.

`MirrorFollower` reads what the store gained since its last look and mirrors it: the surviving write of each
attempt key (the deduplication rule of every reader), skipping writes MLflow already has (their `cmb.run_id`
tag). A failed call leaves its record pending; MLflow's runs are listed again before the next try, so a call that
half succeeded is replaced, never duplicated. While MLflow is down nothing is lost: the records wait in Parquet,
and the next session of the sweep, or `cmb mlflow-sync`, finds them there.

`MirrorProcess` runs a follower in a child process at idle CPU priority: mirroring costs tens of ms per
attempt on sqlite, and neither that nor a slow or hung MLflow ever holds the driver or a launcher. Idle priority
alone still slows a sweep that keeps the machine busy (the CPUs' shared caches, the disk's queue), so while less
than a CPU's worth of time sits idle the follower waits, and mirrors once there is (or when the sweep ends).
Closing it asks for a last pass, waits a bounded time (a hung call is ended with the process), and reports what
was left.
`MirrorThread` does the same on a thread, for a store that lives in the driver's memory.

The child takes its arguments as one JSON line on stdin, reports a JSON status line on stdout after each look,
and finishes when stdin is closed.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

import polars as pl

from cmb.models import RunRecord
from cmb.store._base import KEY_COLUMNS, ResultStore, dedupe_runs
from cmb.store._mlflow import MlflowConfig, MlflowMirror, SyncReport

ROW_COLUMNS = [*KEY_COLUMNS, "spec_hash", "record_json"]
LOOK_EVERY_S = 0.5  # how often a follower looks for new files
MAX_BACKOFF_S = 30.0  # the longest wait between tries while MLflow fails
GIVE_UP_S = 10.0  # at the end, an MLflow failing this long is left to `cmb mlflow-sync`
MIN_SPARE_CPUS = 1.0  # mirror only while at least this much CPU time per second sat idle (its own use counted idle)
# The child lowers its CPU priority before it imports anything (its imports alone cost a second of CPU), so that
# attempts go first: it takes only CPU that nothing else wants (idle scheduling; nice 19 where there is none).
CHILD = """import os
try:
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
except (AttributeError, OSError):
    os.nice(19)
from cmb.store._follow import _child
_child()
"""


def _own_cpu_s() -> float:
    own = os.times()
    return own.user + own.system


class SpareCpus:
    """How many CPUs' worth of time sat idle since the last look, this process's own use counted as idle.

    Read from /proc/stat (idle and iowait of all CPUs); where there is none, every look reports plenty.
    """

    def __init__(
        self,
        stat: Path = Path("/proc/stat"),
        clock: Callable[[], float] = time.monotonic,
        own_cpu_s: Callable[[], float] = _own_cpu_s,
    ) -> None:
        self.stat, self.clock, self.own_cpu_s = stat, clock, own_cpu_s
        self._tick_s = 1.0 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.01
        self._last = self._sample()

    def _sample(self) -> tuple[float, float] | None:
        """(clock, idle CPU-seconds of the machine plus CPU-seconds of this process)."""
        try:
            fields = self.stat.read_text().split("\n", 1)[0].split()
            idle = (int(fields[4]) + int(fields[5])) * self._tick_s
        except (OSError, IndexError, ValueError):
            return None
        return self.clock(), idle + self.own_cpu_s()

    def spare(self) -> float:
        """Idle CPUs on average since the previous call (math.inf where it cannot tell)."""
        now, last = self._sample(), self._last
        self._last = now
        if now is None or last is None or now[0] <= last[0]:
            return math.inf
        return (now[1] - last[1]) / (now[0] - last[0])


class MirrorFollower:
    """Mirrors a sweep's stored attempts into MLflow, incrementally; one thread, one tracking store."""

    def __init__(self, config: MlflowConfig, store: ResultStore, sweep: str) -> None:
        self.config = config
        self.store = store
        self.sweep = sweep
        self.report = SyncReport()
        self.error: str | None = None  # the last failure, cleared by a success
        self._mirror: MlflowMirror | None = None
        self._cursor: set[str] = set()
        self._winners: pl.DataFrame | None = None  # the surviving write of every key read so far
        self._todo: dict[str, dict[str, Any]] = {}  # key -> its surviving row, not yet mirrored
        self._known: dict[str, list[tuple[str, str | None]]] | None = None  # MLflow's runs by key; None: list

    @property
    def pending(self) -> int:
        """Attempts read from the store and not mirrored yet."""
        return len(self._todo)

    def read(self) -> int:
        """Take in the store's new rows; returns how many."""
        new = self.store.new_runs(self.sweep, self._cursor)
        if new.is_empty():
            return 0
        rows = {r["run_id"]: r for r in new.select(ROW_COLUMNS).iter_rows(named=True)}
        seen = new.select(KEY_COLUMNS)
        if self._winners is not None:
            seen = pl.concat([self._winners, seen])
        self._winners = dedupe_runs(seen)  # the survivors of all rows so far are the survivors of these
        changed = self._winners.filter(pl.col("run_id").is_in(list(rows)))
        for key, run_id in changed.select("key", "run_id").iter_rows():
            self._todo[key] = rows[run_id]
        return new.height

    def _client(self) -> MlflowMirror:
        if self._mirror is None:
            mirror = MlflowMirror(self.config)
            mirror.initialise()  # the experiment and the sweep's parent run, once
            self._mirror = mirror
        return self._mirror

    def push(self, budget_s: float = math.inf) -> None:
        """Mirror what is pending, for about `budget_s` at most; an MLflow error is raised with the rest pending."""
        if not self._todo:
            return
        until = time.monotonic() + budget_s
        mirror = self._client()
        if self._known is None:
            self._known = mirror.mirrored()
        for key in list(self._todo):
            if time.monotonic() > until:
                return
            row = self._todo[key]
            have = self._known.get(key, [])
            if any(mirrored == row["run_id"] for _, mirrored in have):
                self.report.skipped += 1
                del self._todo[key]
                continue
            try:
                record = RunRecord.model_validate_json(row["record_json"])
            except ValueError as exc:  # a row no reader understands is left out, not retried forever
                self.report.failed += 1
                self.report.errors.append(f"{key}: {type(exc).__name__}: {exc}"[:500])
                del self._todo[key]
                continue
            try:
                mlflow_id = mirror.log_attempt(record, row["run_id"], spec_hash=row["spec_hash"], existing=have)
            except Exception:
                self._known = None  # some calls may have landed: list MLflow again before the next try
                self._todo[key] = self._todo.pop(key)  # the others go first next time
                raise
            self._known[key] = [(mlflow_id or "", row["run_id"])]
            self.report.logged += 1
            del self._todo[key]

    def step(self, budget_s: float = math.inf) -> bool:
        """One look: read what is new, mirror what is pending for about `budget_s` at most.

        False when MLflow failed (tried again later).
        """
        try:
            self.read()
            self.push(budget_s)
        except Exception as exc:  # MLflow down, slow or refusing: the records wait in Parquet
            self.error = f"{type(exc).__name__}: {str(exc).strip()[:300]}"
            return False
        self.error = None
        return True

    def finish(self) -> None:
        """The sweep's aggregates on its parent run, once everything read is mirrored."""
        mirror = self._client()
        parent = mirror.parent_run_id or mirror.initialise()
        mirror.log_aggregates(parent, self.store.runs(self.sweep), finished=True)

    def status(self, *, final: bool = False) -> dict[str, Any]:
        """What was done so far, as one JSON-able line."""
        return {**asdict(self.report), "pending": self.pending, "error": self.error, "final": final}


def follow(follower: MirrorFollower, closing: threading.Event, emit: Any, look_every_s: float = LOOK_EVERY_S) -> None:
    """Look, mirror and report until `closing` is set; then finish.

    While the sweep runs, a look reads and mirrors only when the machine had a CPU to spare since the last one,
    and for about one look's time, so that the next look asks again. Finishing mirrors the rest, trying again while
    MLflow fails for up to `GIVE_UP_S` (the caller bounds the wait too), logs the sweep's aggregates and reports
    the last status.
    """
    delay = look_every_s
    failing_since: float | None = None
    spare = SpareCpus()
    while True:
        last_look = closing.is_set()
        if not last_look and spare.spare() < MIN_SPARE_CPUS:  # the machine is busy: the attempts go first
            closing.wait(delay)
            continue
        ok = follower.step(math.inf if last_look else look_every_s)
        emit(follower.status())
        if ok:
            failing_since, delay = None, look_every_s
        else:
            failing_since = failing_since or time.monotonic()
            delay = min(MAX_BACKOFF_S, max(1.0, delay * 2))
        gave_up = failing_since is not None and time.monotonic() - failing_since > GIVE_UP_S
        if last_look and ((ok and not follower.pending) or gave_up):
            break
        if not last_look:
            closing.wait(delay)
        elif not ok:
            time.sleep(min(delay, GIVE_UP_S))
    if failing_since is None:
        try:
            follower.finish()
        except Exception as exc:
            follower.error = f"aggregates: {type(exc).__name__}: {str(exc).strip()[:300]}"
    emit(follower.status(final=True))


def _child() -> None:
    """The child process: arguments from stdin's first line, status lines on stdout, EOF on stdin to finish."""
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything else printed goes to the log, not into the protocol
    args = json.loads(sys.stdin.readline())
    config = MlflowConfig(**{**args["config"], "home": Path(args["config"]["home"])})
    from cmb.store._parquet import ParquetStore

    follower = MirrorFollower(config, ParquetStore(Path(args["root"])), args["sweep"])
    closing = threading.Event()

    def wait_for_eof() -> None:
        sys.stdin.read()
        closing.set()

    threading.Thread(target=wait_for_eof, daemon=True).start()

    def emit(status: dict[str, Any]) -> None:
        protocol.write(json.dumps(status) + "\n")

    follow(follower, closing, emit, float(args.get("look_every_s", LOOK_EVERY_S)))


def _report(status: dict[str, Any], timeout_s: float) -> SyncReport:
    """A follower's last status as a report; one that did not finish says so."""
    report = SyncReport(
        logged=int(status.get("logged", 0)),
        skipped=int(status.get("skipped", 0)),
        failed=int(status.get("failed", 0)),
        errors=list(status.get("errors", [])),
        pending=int(status.get("pending", 0)),
    )
    if status.get("error"):
        report.errors.append(str(status["error"]))
    if not status.get("final"):
        report.errors.append(f"the mirror did not finish within {timeout_s:.0f} s: more may be left than counted")
    return report


class MirrorProcess:
    """A follower in a child process (a Parquet store, read there by its root); `close` bounds the wait for it."""

    def __init__(self, config: MlflowConfig, root: Path, sweep: str, log: Path) -> None:
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("ab") as stderr:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", CHILD],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                start_new_session=True,  # Ctrl-C is the driver's: it ends the child itself
            )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        payload = {**asdict(config), "home": str(config.home)}
        self.proc.stdin.write(json.dumps({"config": payload, "root": str(root), "sweep": sweep}) + "\n")
        self.proc.stdin.flush()
        self.status: dict[str, Any] = {}
        self._reader = threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            try:
                self.status = json.loads(line)
            except ValueError:
                continue

    def pending(self) -> int:
        """Attempts read and not mirrored yet, as last reported."""
        return int(self.status.get("pending", 0))

    def close(self, timeout_s: float) -> SyncReport:
        """Ask for a last pass, wait at most `timeout_s` (then end the child); what it did and left."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
        except OSError:  # the child is gone already
            pass
        try:
            self.proc.wait(timeout=max(0.0, timeout_s))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=5)
        return _report(self.status, timeout_s)


class MirrorThread:
    """A follower on a daemon thread of this process, for stores other processes cannot read (in memory)."""

    def __init__(self, config: MlflowConfig, store: ResultStore, sweep: str) -> None:
        self.follower = MirrorFollower(config, store, sweep)
        self.status: dict[str, Any] = {}
        self._closing = threading.Event()
        self._thread = threading.Thread(target=follow, args=(self.follower, self._closing, self._emit), daemon=True)
        self._thread.start()

    def _emit(self, status: dict[str, Any]) -> None:
        self.status = status

    def pending(self) -> int:
        """Attempts read and not mirrored yet."""
        return self.follower.pending

    def close(self, timeout_s: float) -> SyncReport:
        """Ask for a last pass and wait at most `timeout_s` (a hung call is left behind on its daemon thread)."""
        self._closing.set()
        self._thread.join(timeout=max(0.0, timeout_s))
        return _report(self.status, timeout_s)
