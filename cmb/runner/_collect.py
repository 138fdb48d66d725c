"""Collecting an attempt's outputs: sandbox paths copied out, the answer files picked, the code log read back."""

from __future__ import annotations

import fnmatch
import json
import shutil
import tempfile
from pathlib import Path

from cmb.runner._artifacts import write_atomic
from cmb.runner._supervise import LOG_NAME
from cmb.sandbox import Sandbox, SandboxError


def fetch_into(sandbox: Sandbox, rel: str, dest: Path, max_bytes: int) -> bool:
    """Copy a sandbox path into `dest`: a file lands as dest/<name>, a folder's contents land in dest.

    Backends may deliver a folder either as its contents or wrapped in its own name; both are normalised here.
    """
    name = Path(rel).name or "."
    with tempfile.TemporaryDirectory(prefix="cmb-get-") as tmp:
        staging = Path(tmp) / "x"
        staging.mkdir()
        try:
            sandbox.get(rel, staging, max_bytes=max_bytes)
        except FileNotFoundError:
            return False
        entries = list(staging.iterdir())
        if not entries:
            return False
        if len(entries) == 1 and entries[0].name == name and entries[0].is_dir() and not entries[0].is_symlink():
            staging = entries[0]
        dest.mkdir(parents=True, exist_ok=True)
        for item in staging.iterdir():
            target = dest / item.name
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            shutil.move(str(item), str(target))
    return True


def _answer_paths(collected: Path, patterns: list[str]) -> list[Path]:
    """Collected files matching the task's answer_files (names, folders or glob patterns)."""
    found: list[Path] = []
    for pattern in patterns:
        direct = collected / pattern
        if direct.is_dir() and not direct.is_symlink():
            found += [p for p in direct.rglob("*") if p.is_file() and not p.is_symlink()]
        elif direct.is_file() and not direct.is_symlink():
            found.append(direct)
        elif any(ch in pattern for ch in "*?["):
            found += [
                p
                for p in collected.rglob("*")
                if p.is_file() and not p.is_symlink() and fnmatch.fnmatch(str(p.relative_to(collected)), pattern)
            ]
    return sorted(set(found))


def copy_answers(collected: Path, patterns: list[str], dest: Path) -> list[str]:
    """Copy the answer files among the collected ones into `dest`; their paths relative to it."""
    dest.mkdir(parents=True, exist_ok=True)
    copied = []
    for path in _answer_paths(collected, patterns):
        rel = path.relative_to(collected)
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest / rel)
        copied.append(str(rel))
    return copied


def fetch_work(
    sandbox: Sandbox, work_dir: str, answer_files: list[str], collected: Path, art: Path, max_bytes: int
) -> bool:
    """The working folder into `collected` if it fits the bound (True), else the answer files one by one (False)."""
    try:
        fetch_into(sandbox, work_dir, collected, max_bytes)
    except (SandboxError, ValueError, OSError) as exc:
        # too large or unreadable: fall back to the answers alone (an agent filling the disk still gets graded)
        shutil.rmtree(collected)
        collected.mkdir()
        write_atomic(art / "collect-error.txt", f"{type(exc).__name__}: {exc}\n")
        for rel in answer_files:
            if any(ch in rel for ch in "*?["):
                continue
            try:
                target = (collected / rel).parent
                fetch_into(sandbox, f"{work_dir}/{rel}", target, max_bytes)
            except (SandboxError, ValueError, OSError):
                continue
        return False
    return True


def write_file_list(collected: Path, art: Path) -> None:
    """files.json: every collected file with its size."""
    manifest = [
        {"path": str(p.relative_to(collected)), "bytes": p.stat().st_size}
        for p in sorted(collected.rglob("*"))
        if p.is_file() and not p.is_symlink()
    ]
    write_atomic(art / "files.json", json.dumps(manifest, indent=1))


def collect_log(sandbox: Sandbox, harness_dir: str, tmp: Path, heads: bool = True) -> tuple[str, list[str]]:
    """The supervisor's code log and (with `heads`) the segment heads it left, as text; empty where unreadable.

    Each head also came on its command's stderr; the file copies are needed only where one did not.
    """
    out = tmp / "harness-out"
    log_text = ""
    found: list[str] = []
    try:
        if fetch_into(sandbox, f"{harness_dir}/{LOG_NAME}", out, 64 * 1024 * 1024):
            log_text = (out / LOG_NAME).read_text(encoding="utf-8", errors="replace")
    except (SandboxError, ValueError, OSError):
        log_text = ""
    if not heads:
        return log_text, found
    try:
        if fetch_into(sandbox, f"{harness_dir}/heads", out / "heads", 1024 * 1024):
            found = [p.read_text(encoding="utf-8", errors="replace") for p in sorted((out / "heads").glob("*.json"))]
    except (SandboxError, ValueError, OSError):
        found = []
    return log_text, found
