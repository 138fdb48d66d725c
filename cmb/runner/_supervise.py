"""In-sandbox supervisor: runs the agent and every wrapped simulation code, and signs the code-invocation log.

This file is copied into the sandbox and run there with the sandbox's own Python (standard library only).

Why a supervisor: the agent and the harness's logging run as the same user inside the sandbox, so a key kept in a
file would be readable by the agent. Instead the per-segment key is read from a file and the file is deleted
before the agent starts; the key then lives only in this process, which marks itself non-dumpable so that a
process without CAP_SYS_PTRACE cannot read its memory or environment. The code wrappers placed first in PATH
do not log anything themselves: they pass their argv, cwd, environment and standard streams over a Unix socket,
and this process spawns the real executable, waits for it, watches its standard output for the code's completion
marker and appends one HMAC-chained line to the log. A line in the log is therefore either something this process
observed or a forgery that fails verification on the host. The head line printed at the end (count and last MAC,
itself signed) lets the host detect a truncated log.

What this does not prevent: an agent that bypasses the wrappers (absolute path to the real binary) is simply not
logged, which the audit treats as "code not invoked"; an agent with CAP_SYS_PTRACE (a sandbox that does not drop
capabilities) could read the key from this process's memory.
"""

from __future__ import annotations

import ctypes
import hashlib
import hmac
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HEAD_PREFIX = "CMB-CODELOG-HEAD "
SOCKET_NAME = "codelog.sock"
LOG_NAME = "codelog.jsonl"
WRAPPER_NAME = "codewrap.py"
CODES_NAME = "codes.json"
MAX_MESSAGE = 1 << 20
LOG_TAIL = 1 << 20
TERM_GRACE_S = 5.0
PR_SET_DUMPABLE = 4


def _ends_with(path: Path, marker: str) -> bool:
    """Whether the last LOG_TAIL bytes of `path` hold `marker` (False when it cannot be read)."""
    try:
        with path.open("rb") as f:
            f.seek(max(0, path.stat().st_size - LOG_TAIL))
            return marker.encode() in f.read()
    except OSError:
        return False


def partitions_done(path: Path, marker: str, universe_signature: str | None) -> bool:
    """Whether `path` is a finished multi-partition run's universe log.

    A run split into partitions (LAMMPS -partition, e.g. a NEB) never writes its marker to the universe log; each
    partition log `<path>.<k>` ends with it when the run finished.
    """
    if not universe_signature:
        return False
    try:
        with path.open("rb") as f:
            if universe_signature.encode() not in f.read(4096):
                return False
    except OSError:
        return False
    parts = [p for p in path.parent.glob(path.name + ".*") if p.suffix[1:].isdigit()]
    return bool(parts) and all(_ends_with(p, marker) for p in parts)


def canonical(obj: dict[str, Any]) -> str:
    """The exact text that is signed: sorted keys, no spaces, ASCII only."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def line_mac(key: bytes, prev_mac: str, record: dict[str, Any]) -> str:
    """MAC of one log record, chained to the previous record's MAC."""
    return hmac.new(key, (prev_mac + "\n" + canonical(record)).encode(), hashlib.sha256).hexdigest()


def head_mac(key: bytes, head: dict[str, Any]) -> str:
    """MAC of a segment's head (a distinct domain, so a line MAC can never pass as a head MAC)."""
    return hmac.new(key, ("head\n" + canonical(head)).encode(), hashlib.sha256).hexdigest()


class CodeLog:
    """The append-only, chained log of one segment."""

    def __init__(self, path: Path, key: bytes, segment: str) -> None:
        self.path, self.key, self.segment = path, key, segment
        self.n = 0
        self.last_mac = ""
        self.lock = threading.Lock()

    def append(self, record: dict[str, Any]) -> None:
        with self.lock:
            body = {**record, "seg": self.segment, "seq": self.n}
            mac = line_mac(self.key, self.last_mac, body)
            line = canonical({**body, "mac": mac}) + "\n"
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line.encode())
            finally:
                os.close(fd)
            self.n += 1
            self.last_mac = mac


class MarkerTee:
    """Copy a child's stdout to the caller's stdout while looking for completion markers."""

    def __init__(self, read_fd: int, write_fd: int, markers: list[str]) -> None:
        self.read_fd, self.write_fd = read_fd, write_fd
        self.markers = [m.encode() for m in markers]
        self.seen: set[str] = set()
        self.bytes = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        keep = max((len(m) for m in self.markers), default=1)
        tail = b""
        forward = True
        while True:
            try:
                chunk = os.read(self.read_fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            self.bytes += len(chunk)
            window = tail + chunk
            for m in self.markers:
                if m in window:
                    self.seen.add(m.decode())
            tail = window[-keep:]
            while forward and chunk:
                try:
                    n = os.write(self.write_fd, chunk)
                except OSError:
                    forward = False  # the reader went away; keep draining so the child never blocks
                    break
                chunk = chunk[n:]
        os.close(self.read_fd)


class Supervisor:
    """Runs the agent command; serves the code wrappers; writes the signed log and the head."""

    def __init__(self, harness: Path, segment: str, key: bytes, codes: dict[str, Any], bin_dir: Path) -> None:
        self.harness, self.segment, self.bin_dir = harness, segment, bin_dir
        self.log = CodeLog(harness / LOG_NAME, key, segment)
        self.key = key
        self.codes: dict[str, dict[str, Any]] = codes.get("executables", {})
        self.launchers: set[str] = {n for n, c in self.codes.items() if c.get("launcher")}
        self.real: dict[str, str] = {}
        self.children: set[subprocess.Popen[bytes]] = set()
        self.children_lock = threading.Lock()
        self.handlers: list[threading.Thread] = []
        self.closing = False
        self.clean_path = ""

    def install_wrappers(self, path: str) -> str:
        """Resolve each known executable on the original PATH and link a wrapper for it; return the new PATH."""
        self.bin_dir.mkdir(parents=True, exist_ok=True)
        wrapper = self.harness / WRAPPER_NAME
        wrapper_text = wrapper.read_text()
        shebang = f"#!{sys.executable} -S\n"
        if not wrapper_text.startswith(shebang):
            wrapper.write_text(shebang + wrapper_text)
        wrapper.chmod(0o755)
        clean = os.pathsep.join(p for p in path.split(os.pathsep) if p and Path(p) != self.bin_dir)
        self.clean_path = clean
        for name in self.codes:
            real = shutil.which(name, path=clean)
            link = self.bin_dir / name
            if link.is_symlink() or link.exists():
                link.unlink()
            if real is None:
                continue
            self.real[name] = str(Path(real).resolve())
            link.symlink_to(wrapper)
        return os.pathsep.join([str(self.bin_dir), clean])

    def effective_code(self, name: str, args: list[str]) -> str:
        """The code a call runs: the executable itself, or for an MPI launcher the first known code it starts."""
        if name in self.launchers:
            for arg in args:
                base = Path(arg).name
                if base in self.codes and base not in self.launchers:
                    return base
        return name

    def serve(self, server: socket.socket) -> None:
        while not self.closing:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            t = threading.Thread(target=self.handle, args=(conn,), daemon=True)
            t.start()
            self.handlers.append(t)

    def handle(self, conn: socket.socket) -> None:
        fds: list[int] = []
        try:
            msg, fds, _, _ = socket.recv_fds(conn, MAX_MESSAGE, 3)
            request = json.loads(msg.decode())
            name = str(request["code"])
            args = [str(a) for a in request["args"]]
            if name not in self.real or len(fds) != 3:
                conn.send(json.dumps({"error": f"unknown code {name!r}"}).encode())
                return
            self.run_code(conn, name, args, str(request["cwd"]), dict(request["env"]), fds)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            try:
                conn.send(json.dumps({"error": str(exc)}).encode())
            except OSError:
                pass
        finally:
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
            conn.close()

    def run_code(
        self, conn: socket.socket, name: str, args: list[str], cwd: str, env: dict[str, str], fds: list[int]
    ) -> None:
        code = self.effective_code(name, args)
        markers = [m for m in [self.codes.get(code, {}).get("stdout_marker")] if m]
        start = time.time()
        tee: MarkerTee | None = None
        stdout: int = fds[1]
        if markers:
            r, w = os.pipe()
            tee = MarkerTee(r, fds[1], markers)
            stdout = w
        try:
            child = subprocess.Popen(
                [self.real[name], *args], executable=self.real[name], stdin=fds[0], stdout=stdout, stderr=fds[2],
                cwd=cwd, env=env, close_fds=True, start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            if tee is not None:
                os.close(stdout)
                tee.thread.join(5)
            self.log.append(self._record(name, code, args, cwd, start, time.time(), 127, None, [], str(exc)))
            conn.send(json.dumps({"exit": 127, "error": str(exc)}).encode())
            return
        if tee is not None:
            os.close(stdout)
        with self.children_lock:
            self.children.add(child)
        watcher = threading.Thread(target=self._watch_caller, args=(conn, child), daemon=True)
        watcher.start()
        rc = child.wait()
        end = time.time()
        _kill_group(child.pid, signal.SIGKILL)  # what the call left behind in its own group ends with it
        with self.children_lock:
            self.children.discard(child)
        seen: set[str] = set()
        if tee is not None:
            tee.thread.join(30)
            seen |= tee.seen
        seen |= self._log_markers(code, args, cwd)
        exit_code, sig = (rc, None) if rc >= 0 else (128 - rc, -rc)
        self.log.append(self._record(name, code, args, cwd, start, end, exit_code, sig, sorted(seen), None))
        try:
            conn.send(json.dumps({"exit": exit_code, "signal": sig}).encode())
        except OSError:
            pass

    def _log_markers(self, code: str, args: list[str], cwd: str) -> set[str]:
        """The completion marker, if the code's own log file (e.g. LAMMPS -log) ends with it."""
        info = self.codes.get(code, {})
        marker, option, name = info.get("file_marker"), info.get("log_option"), info.get("log_default")
        if not marker or not (option or name):
            return set()
        if option and option in args[:-1]:
            name = args[args.index(option) + 1]
        if not name or name == "none":
            return set()
        path = Path(cwd) / name
        if _ends_with(path, marker) or partitions_done(path, marker, info.get("universe_signature")):
            return {marker}
        return set()

    def _record(
        self,
        name: str,
        code: str,
        args: list[str],
        cwd: str,
        start: float,
        end: float,
        exit_code: int,
        sig: int | None,
        seen: list[str],
        error: str | None,
    ) -> dict[str, Any]:
        return {
            "exe": name,
            "code": code,
            "argv": [name, *args][:200],
            "cwd": cwd,
            "start": round(start, 3),
            "end": round(end, 3),
            "exit": exit_code,
            "signal": sig,
            "markers": seen,
            "error": error,
        }

    @staticmethod
    def _watch_caller(conn: socket.socket, child: subprocess.Popen[bytes]) -> None:
        """Forward signals the wrapper relays; kill the code when the wrapper itself dies."""
        while child.poll() is None:
            try:
                data = conn.recv(4096)
            except OSError:
                data = b""
            if not data:
                if child.poll() is None:
                    _terminate([child])
                return
            try:
                sig = int(json.loads(data.decode()).get("signal", 0))
            except (ValueError, AttributeError):
                continue
            if sig > 0 and child.poll() is None:
                _kill_group(child.pid, sig)

    def finish(self, agent_exit: int, timed_out: bool, started: float) -> dict[str, Any]:
        self.closing = True
        with self.children_lock:
            running = list(self.children)
        _terminate(running)
        for t in self.handlers:
            t.join(10)
        head: dict[str, Any] = {
            "seg": self.segment,
            "n": self.log.n,
            "last_mac": self.log.last_mac,
            "agent_exit": agent_exit,
            "timed_out": timed_out,
            "start": round(started, 3),
            "end": round(time.time(), 3),
            "dumpable": _dumpable(),
        }
        head["head_mac"] = head_mac(self.key, head)
        return head


def _terminate(children: list[subprocess.Popen[bytes]]) -> None:
    """Stop each code's whole process group: TERM, a grace period, then KILL."""
    for child in children:
        _kill_group(child.pid, signal.SIGTERM)
    deadline = time.monotonic() + TERM_GRACE_S
    for child in children:
        try:
            child.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
        _kill_group(child.pid, signal.SIGKILL)
        child.wait()


def _set_undumpable() -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _dumpable() -> int:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(3, 0, 0, 0, 0))  # PR_GET_DUMPABLE
    except (OSError, AttributeError):
        return -1


def _kill_all_others() -> None:
    """SIGKILL every process of this PID namespace that this one may signal (daemons that left its groups)."""
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass


def _kill_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except OSError:
        pass


def main(argv: list[str]) -> int:
    """Usage: supervise.py HARNESS_DIR SEGMENT DEADLINE_S CWD [--reap] -- COMMAND...

    --reap: this exec has a PID namespace of its own; end every other process in it before returning, so that
    nothing the agent started writes after the agent stopped.
    """
    reap = len(argv) > 4 and argv[4] == "--reap"
    if reap:
        argv = argv[:4] + argv[5:]
    if "--" not in argv or argv.index("--") != 4:
        print("usage: supervise.py HARNESS_DIR SEGMENT DEADLINE_S CWD [--reap] -- COMMAND...", file=sys.stderr)
        return 2
    harness, segment, deadline_s, cwd = Path(argv[0]).resolve(), argv[1], float(argv[2]), argv[3]
    command = argv[5:]
    key_file = harness / f"key.{segment}"
    try:
        key = bytes.fromhex(key_file.read_text().strip())
        key_file.unlink()
    except (OSError, ValueError) as exc:
        print(f"CMB-SUPERVISOR-ERROR no key for segment {segment}: {exc}", file=sys.stderr)
        return 3
    _set_undumpable()
    codes = json.loads((harness / CODES_NAME).read_text())
    sup = Supervisor(harness, segment, key, codes, harness / "bin")
    env = dict(os.environ)
    env["PATH"] = sup.install_wrappers(env.get("PATH", os.defpath))
    env["CMB_CODELOG_DIR"] = str(harness)
    sock_path = harness / SOCKET_NAME
    if sock_path.exists() or sock_path.is_symlink():
        sock_path.unlink()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    old_cwd = Path.cwd()
    os.chdir(harness)  # bind by a relative name: host temp paths can exceed the 108-byte socket path limit
    server.bind(SOCKET_NAME)
    os.chdir(old_cwd)
    server.listen(64)
    threading.Thread(target=sup.serve, args=(server,), daemon=True).start()

    started = time.time()
    timed_out = False
    # the agent program itself is not a code call: resolve it on the PATH without the wrappers
    command = [shutil.which(command[0], path=sup.clean_path) or command[0], *command[1:]] if command else ["true"]
    try:
        agent = subprocess.Popen(command, cwd=cwd, env=env, start_new_session=True)
    except OSError as exc:
        print(f"CMB-SUPERVISOR-ERROR cannot start the agent: {exc}", file=sys.stderr)
        rc = 127
    else:
        forwarded = {"n": 0}

        def _forward(signum: int, _frame: object) -> None:
            forwarded["n"] += 1
            _kill_group(agent.pid, signal.SIGTERM if forwarded["n"] == 1 else signal.SIGKILL)

        signal.signal(signal.SIGTERM, _forward)
        signal.signal(signal.SIGINT, _forward)
        try:
            rc = agent.wait(timeout=deadline_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(agent.pid, signal.SIGTERM)
            try:
                rc = agent.wait(timeout=TERM_GRACE_S)
            except subprocess.TimeoutExpired:
                _kill_group(agent.pid, signal.SIGKILL)
                rc = agent.wait()
        _kill_group(agent.pid, signal.SIGKILL)  # stragglers the agent left in its own group
        if reap:
            _kill_all_others()
        rc = rc if rc >= 0 else 128 - rc
    server.close()
    head = sup.finish(rc, timed_out, started)
    text = json.dumps(head, sort_keys=True)
    heads = harness / "heads"
    heads.mkdir(exist_ok=True)
    (heads / f"{segment}.json").write_text(text)
    sys.stdout.flush()
    print(f"\n{HEAD_PREFIX}{text}", file=sys.stderr, flush=True)
    return 124 if timed_out else rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
