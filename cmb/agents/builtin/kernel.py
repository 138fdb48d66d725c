"""A persistent Python kernel: reads cells as JSON lines, runs them in one namespace, answers with their output.

Started by codeact.py with the command channel on stdin and the reply channel on stdout; both are moved off fds
0/1 at once, so the agent's code (and every program it starts) reads /dev/null and writes into a capture file
per cell, never into the protocol. Standard library only.

Request: {"code": "..."}. Reply: {"output": "...", "final_answer": str | null, "error": bool}.
The value of a cell's last expression is printed, as in a REPL. SIGINT interrupts a running cell.
"""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

CAPTURE_LIMIT = 2_000_000  # bytes of a cell's output kept: the first half and the last half
FINAL_KEY = "__cmb_final_answer__"

HELPERS = '''
def sh(command, timeout=None):
    """Run a shell command in the working folder; print its exit status and output; return the output."""
    import subprocess
    try:
        p = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=timeout,
                           executable="/bin/bash")
    except subprocess.TimeoutExpired as e:
        print(f"[timed out after {timeout} s]")
        return ""
    out = (p.stdout or "") + (p.stderr or "")
    print(out, end="" if out.endswith("\\n") or not out else "\\n")
    print(f"[exit {p.returncode}]")
    return out

def read_file(path, start=1, end=None):
    """Print lines start..end (1-based, inclusive) of a text file with line numbers."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    end = len(lines) if end is None else min(end, len(lines))
    for i in range(max(1, start), end + 1):
        print(f"{i:6d}  {lines[i - 1]}", end="")
    print(f"[{path}: {len(lines)} lines]")

def write_file(path, text):
    """Write text to a file (folders created); print what was written."""
    import os
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"[wrote {len(text)} characters to {path}]")

def search(pattern, path=".", max_hits=200):
    """Print lines matching a regular expression in the text files under path (like grep -rn)."""
    import os, re
    rx = re.compile(pattern)
    hits = 0
    for root, _dirs, files in os.walk(path):
        for name in sorted(files):
            p = os.path.join(root, name)
            try:
                with open(p, encoding="utf-8") as f:
                    for n, line in enumerate(f, 1):
                        if rx.search(line):
                            print(f"{p}:{n}: {line.rstrip()}")
                            hits += 1
                            if hits >= max_hits:
                                print("[more hits not shown]")
                                return
            except (UnicodeDecodeError, OSError):
                continue
    print(f"[{hits} hits]")

def final_answer(answer):
    """End the task after this step, with a short statement of the answer."""
    globals()["__cmb_final_answer__"] = str(answer)
    print("[final answer recorded]")
'''


def run_cell(code: str, ns: dict[str, Any]) -> None:
    """Exec the cell; print the value of a trailing expression."""
    tree = ast.parse(code, "<cell>", "exec")
    last: ast.Expression | None = None
    tail = tree.body[-1] if tree.body else None
    if isinstance(tail, ast.Expr):
        tree.body.pop()
        last = ast.Expression(tail.value)
    exec(compile(tree, "<cell>", "exec"), ns)  # noqa: S102 - running the agent's code is this program's job
    if last is not None:
        value = eval(compile(last, "<cell>", "eval"), ns)  # noqa: S307
        if value is not None:
            print(repr(value))


def _read_capture(f: Any) -> str:
    size = f.seek(0, os.SEEK_END)
    if size <= CAPTURE_LIMIT:
        f.seek(0)
        data = f.read()
    else:
        f.seek(0)
        head = f.read(CAPTURE_LIMIT // 2)
        f.seek(size - CAPTURE_LIMIT // 2)
        data = head + f"\n... [{size - CAPTURE_LIMIT} bytes of output cut] ...\n".encode() + f.read()
    return str(data.decode("utf-8", errors="replace"))


def _user_traceback() -> str:
    """The traceback without this file's own frames."""
    etype, value, tb = sys.exc_info()
    frames = [f for f in traceback.extract_tb(tb) if f.filename != __file__]
    lines = traceback.format_list(frames) if frames else []
    return (
        "Traceback (most recent call last):\n" + "".join(lines) + "".join(traceback.format_exception_only(etype, value))
    )


def main() -> None:
    """Serve cells until the command channel closes."""
    commands = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    sys.stdin = Path(os.devnull).open(encoding="utf-8")  # noqa: SIM115 - lives as long as the kernel
    # line buffering keeps printed lines in order with the output of programs the cell starts
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(line_buffering=True)
    ns: dict[str, Any] = {"__name__": "__main__", "subprocess": subprocess, "Path": Path}
    exec(HELPERS, ns)  # noqa: S102
    # SIGINT interrupts a running cell only; between cells (a late interrupt) it must not end the kernel
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for raw in commands:
        try:
            code = str(json.loads(raw)["code"])
        except (ValueError, KeyError, TypeError):
            code = "raise ValueError('kernel: unreadable request')"
        error = False
        with tempfile.TemporaryFile() as capture:
            sys.stdout.flush()
            sys.stderr.flush()
            saved = os.dup(1), os.dup(2)
            os.dup2(capture.fileno(), 1)
            os.dup2(capture.fileno(), 2)
            try:
                signal.signal(signal.SIGINT, signal.default_int_handler)
                run_cell(code, ns)
            except KeyboardInterrupt:
                error = True
                print("KeyboardInterrupt: the step was interrupted (time limit of the step or of the task)")
            except SystemExit as exc:
                print(f"[SystemExit({exc.code!r}) ignored: the kernel keeps running]")
            except BaseException:
                error = True
                print(_user_traceback(), end="")
            finally:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                except (OSError, ValueError):
                    pass
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
                os.close(saved[0])
                os.close(saved[1])
            output = _read_capture(capture)
        final = ns.pop(FINAL_KEY, None)
        replies.write((json.dumps({"output": output, "final_answer": final, "error": error}) + "\n").encode())
        replies.flush()


if __name__ == "__main__":
    main()
