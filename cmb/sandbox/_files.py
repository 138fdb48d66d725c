"""Copying files across the sandbox boundary without following anything the agent planted.

The harness may run as root; a symlink or FIFO left in the workspace must never make it read or write a host
file, and an agent must not be able to exhaust the harness's disk through what is copied out.
"""

from __future__ import annotations

import os
import stat
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import IO

_CHUNK = 1 << 20
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

Warn = Callable[[str], None]


def relative_parts(path: str) -> tuple[str, ...]:
    """The components of a workspace-relative path; absolute paths and '..' are refused."""
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts:
        raise ValueError(f"{path!r} must be a path relative to the workspace, without '..'")
    return tuple(p for p in pure.parts if p not in ("", "."))


class _Budget:
    def __init__(self, max_bytes: int, warn: Warn) -> None:
        self.left = max_bytes
        self.warn = warn

    def take(self, size: int, name: str) -> bool:
        if size > self.left:
            self.warn(f"not copied out: {name} ({size} bytes) exceeds the {self.left} bytes left of the copy limit")
            return False
        self.left -= size
        return True


def copy_out(root: Path, src: str, dest: Path, max_bytes: int, warn: Warn) -> None:
    """Copy `root/src` to `dest` (a folder's contents, or a file as dest/name), never following a link.

    Every path component is opened relative to its parent's descriptor with O_NOFOLLOW, so a link swapped in
    at any level is refused rather than followed; only regular files and folders are copied.
    """
    parts = relative_parts(src)
    budget = _Budget(max_bytes, warn)
    fd = os.open(root, _DIR_FLAGS)
    try:
        for i, part in enumerate(parts):
            st = os.stat(part, dir_fd=fd, follow_symlinks=False)
            shown = "/".join(parts[: i + 1])
            if stat.S_ISLNK(st.st_mode):
                warn(f"not copied out: {shown} is a symbolic link")
                return
            if i == len(parts) - 1 and stat.S_ISREG(st.st_mode):
                dest.mkdir(parents=True, exist_ok=True)
                _copy_file(fd, part, dest / part, shown, budget)
                return
            if not stat.S_ISDIR(st.st_mode):
                warn(f"not copied out: {shown} is not a regular file or folder")
                return
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
        dest.mkdir(parents=True, exist_ok=True)
        _copy_tree(fd, dest, "/".join(parts) or ".", budget)
    finally:
        os.close(fd)


def _copy_tree(dir_fd: int, dest: Path, shown: str, budget: _Budget) -> None:
    with os.scandir(dir_fd) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        name = f"{shown}/{entry.name}" if shown != "." else entry.name
        st = entry.stat(follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            budget.warn(f"not copied out: {name} is a symbolic link")
        elif stat.S_ISDIR(st.st_mode):
            try:
                child = os.open(entry.name, _DIR_FLAGS, dir_fd=dir_fd)
            except OSError as exc:
                budget.warn(f"not copied out: {name}: {exc.strerror}")
                continue
            try:
                (dest / entry.name).mkdir(exist_ok=True)
                _copy_tree(child, dest / entry.name, name, budget)
            finally:
                os.close(child)
        elif stat.S_ISREG(st.st_mode):
            _copy_file(dir_fd, entry.name, dest / entry.name, name, budget)
        else:
            budget.warn(f"not copied out: {name} is not a regular file or folder")


def _copy_file(dir_fd: int, name: str, target: Path, shown: str, budget: _Budget) -> None:
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError as exc:  # ELOOP: swapped for a link after the listing
        budget.warn(f"not copied out: {shown}: {exc.strerror}")
        return
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            budget.warn(f"not copied out: {shown} is not a regular file")
            return
        if not budget.take(st.st_size, shown):
            return
        # The file may grow while we read (a process still writing): copy at most what was budgeted.
        left = st.st_size
        with target.open("wb") as out:
            while left > 0:
                chunk = os.read(fd, min(_CHUNK, left))
                if not chunk:
                    break
                out.write(chunk)
                left -= len(chunk)
    finally:
        os.close(fd)


def copy_in(src: Path, root: Path, dest: str, owner: tuple[int, int] | None) -> None:
    """Copy the contents of host folder `src` into `root/dest`, replacing (never following) planted links."""
    if not src.is_dir():
        raise NotADirectoryError(f"{src} is not a folder")
    target = root
    for part in relative_parts(dest):
        target = target / part
        _ensure_dir(target, owner)
    for dirpath, dirnames, filenames in os.walk(src):
        rel = Path(dirpath).relative_to(src)
        here = target / rel
        for d in dirnames:
            if (Path(dirpath) / d).is_symlink():
                continue  # os.walk does not descend into it; copied below as a link
            _ensure_dir(here / d, owner)
        for name in filenames + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]:
            source = Path(dirpath) / name
            dst = here / name
            if dst.is_symlink() or dst.exists():
                if dst.is_dir() and not dst.is_symlink():
                    raise IsADirectoryError(f"cannot copy file {source} over folder {dst}")
                dst.unlink()
            if source.is_symlink():
                dst.symlink_to(source.readlink())
            else:
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
                with source.open("rb") as fin, os.fdopen(os.open(dst, flags, source.stat().st_mode & 0o777), "wb") as f:
                    while chunk := fin.read(_CHUNK):
                        f.write(chunk)
            if owner is not None:
                os.lchown(dst, *owner)


def _ensure_dir(path: Path, owner: tuple[int, int] | None) -> None:
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink()
    if not path.exists():
        path.mkdir()
        if owner is not None:
            os.lchown(path, *owner)


def tree_blocks(paths: list[Path]) -> int:
    """Bytes allocated on disk under `paths` (no links followed)."""
    total = 0
    for top in paths:
        for entry in _walk(top):
            total += entry.st_blocks * 512
    return total


def _walk(top: Path) -> Iterator[os.stat_result]:
    stack = [top]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as it:
                for entry in it:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    yield st
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(Path(entry.path))
        except OSError:
            continue


def extract_tar(tar: tarfile.TarFile, dest: Path, strip: int, max_bytes: int, warn: Warn) -> None:
    """Extract only folders and regular files from `tar` into `dest`, dropping `strip` leading components.

    A hard link to a file extracted earlier from the same archive becomes a copy of it (both lie in the
    workspace); symbolic links, devices and FIFOs are refused.
    """
    budget = _Budget(max_bytes, warn)
    dest.mkdir(parents=True, exist_ok=True)
    extracted: dict[str, Path] = {}
    for member in tar:
        full = PurePosixPath(member.name)
        parts = full.parts[strip:]
        if not parts:
            continue
        shown = "/".join(parts)
        if full.is_absolute() or any(p in ("..", "") for p in parts):
            warn(f"not copied out: {member.name} has an unsafe path")
            continue
        target = dest.joinpath(*parts)
        if member.isdir():
            _mkdirs_safely(dest, parts)
            continue
        if member.islnk() and member.linkname in extracted:
            source = extracted[member.linkname]
            if budget.take(source.stat().st_size, shown):
                _mkdirs_safely(dest, parts[:-1])
                with source.open("rb") as copy:
                    _write_new(target, copy)
            continue
        if member.issym() or member.islnk():
            warn(f"not copied out: {shown} is a {'symbolic' if member.issym() else 'hard'} link")
            continue
        if not member.isreg():
            warn(f"not copied out: {shown} is not a regular file or folder")
            continue
        if not budget.take(member.size, shown):
            continue
        _mkdirs_safely(dest, parts[:-1])
        member_data = tar.extractfile(member)
        if member_data is None:
            continue
        _write_new(target, member_data)
        extracted[member.name] = target


def _write_new(target: Path, data: IO[bytes]) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    with os.fdopen(os.open(target, flags, 0o644), "wb") as out:
        while chunk := data.read(_CHUNK):
            out.write(chunk)


def _mkdirs_safely(dest: Path, parts: tuple[str, ...]) -> None:
    current = dest
    for part in parts:
        current = current / part
        if current.is_symlink():
            raise ValueError(f"refusing to write through link {current}")
        current.mkdir(exist_ok=True)
