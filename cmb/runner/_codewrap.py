"""In-sandbox wrapper for one simulation code (linked as pw.x, lmp, ...): asks the supervisor to run the real one.

Standard library only; the supervisor prepends a shebang with the sandbox's Python. The wrapper never writes the
log itself: it hands its argv, cwd, environment and standard streams to the supervisor, which spawns the real
executable and records what it observed. Ranks started by an MPI launcher run the real binary directly (the
launcher's own call is what gets recorded). When the supervisor cannot be reached the code still runs, unrecorded.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from pathlib import Path

MPI_RANK_VARS = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MPI_LOCALRANKID")
SOCKET_NAME = "codelog.sock"


def _real(name: str, own_dir: Path) -> str | None:
    for part in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not part or Path(part).resolve() == own_dir:
            continue
        candidate = Path(part) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def _exec_direct(name: str, own_dir: Path, args: list[str], warn: str | None) -> None:
    real = _real(name, own_dir)
    if real is None:
        print(f"{name}: command not found", file=sys.stderr)
        sys.exit(127)
    if warn:
        print(f"cmb: {warn}; this call of {name} is not recorded", file=sys.stderr)
    os.execv(real, [real, *args])


def main() -> None:
    """Relay this call to the supervisor, wait for the real code, exit with its status."""
    me = Path(sys.argv[0])
    name, own_dir, args = me.name, me.parent.resolve(), sys.argv[1:]
    if any(os.environ.get(v) for v in MPI_RANK_VARS):
        _exec_direct(name, own_dir, args, None)
    harness = os.environ.get("CMB_CODELOG_DIR") or str(own_dir.parent)
    cwd = str(Path.cwd())
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        os.chdir(harness)  # connect by a relative name (socket paths are limited to 108 bytes)
        conn.connect(SOCKET_NAME)
        os.chdir(cwd)
        payload = json.dumps({"code": name, "args": args, "cwd": cwd, "env": dict(os.environ)}).encode()
        socket.send_fds(conn, [payload], [0, 1, 2])
    except OSError as exc:
        os.chdir(cwd)
        conn.close()
        _exec_direct(name, own_dir, args, f"code log unavailable ({exc.strerror or exc})")

    def relay(signum: int, _frame: object) -> None:
        try:
            conn.send(json.dumps({"signal": signum}).encode())
        except OSError:
            pass

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, relay)
    while True:
        try:
            data = conn.recv(65536)
            break
        except InterruptedError:
            continue
    if not data:
        print(f"cmb: the supervisor went away while {name} ran", file=sys.stderr)
        sys.exit(125)
    reply = json.loads(data.decode())
    if "exit" not in reply:
        conn.close()
        _exec_direct(name, own_dir, args, f"supervisor refused: {reply.get('error')}")
    sig = reply.get("signal")
    if sig:
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    sys.exit(int(reply["exit"]))


if __name__ == "__main__":
    main()
