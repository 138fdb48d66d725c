"""In-sandbox replayer (standard library only): run a trajectory's steps in the current folder, record results."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def _run(step: dict[str, Any]) -> dict[str, Any]:
    argv = step.get("argv") or ["/bin/sh", "-c", str(step.get("shell"))]
    timeout = step.get("timeout_s")
    out_name = step.get("stdout")
    start = time.time()
    try:
        if out_name:
            Path(out_name).parent.mkdir(parents=True, exist_ok=True)
            with Path(out_name).open("wb") as out:
                proc = subprocess.run(argv, stdout=out, timeout=timeout, check=False)
        else:
            proc = subprocess.run(argv, timeout=timeout, check=False)
        return {"exit": proc.returncode, "seconds": round(time.time() - start, 3)}
    except subprocess.TimeoutExpired:
        return {"exit": None, "timed_out": True, "seconds": round(time.time() - start, 3)}
    except OSError as exc:
        return {"exit": 127, "error": str(exc), "seconds": round(time.time() - start, 3)}


def _write(step: dict[str, Any]) -> dict[str, Any]:
    path = Path(str(step["path"]))
    data = str(step["content"])
    raw = base64.b64decode(data) if step.get("encoding") == "base64" else data.encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
        return {"ok": True, "bytes": len(raw)}
    except OSError as exc:
        return {"ok": False, "error": str(exc)}


def main(steps_file: str, record_file: str) -> int:
    """Replay every step; the exit status is that of the last run step (0 if none)."""
    record = Path(record_file)
    record.parent.mkdir(parents=True, exist_ok=True)
    status = 0
    with record.open("w") as rec:
        for line in Path(steps_file).read_text().splitlines():
            if not line.strip():
                continue
            step = json.loads(line)
            step.pop("result", None)
            if step.get("action") == "write_file":
                step["result"] = _write(step)
            else:
                step["result"] = _run(step)
                status = step["result"].get("exit") or 0
            rec.write(json.dumps(step) + "\n")
            rec.flush()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
