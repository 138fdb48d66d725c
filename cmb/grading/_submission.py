"""Bounded, symlink-proof reading of an agent's submission.

Graders never execute submitted code and never follow a link out of the submission: every file is opened
relative to the submission root, component by component, refusing symlinks, devices and FIFOs, and read
up to a size limit. Every problem becomes a `SubmissionError` whose message a check reports verbatim.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_JSON_DEPTH = 64


class SubmissionError(Exception):
    """A submitted file is missing, unsafe or malformed. The message is shown to the user."""


class Submission:
    """Read-only view of a submission directory."""

    def __init__(self, root: Path, max_bytes: int = MAX_FILE_BYTES) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes
        self._json_cache: dict[str, Any] = {}
        self.memo: dict[str, Any] = {}  # what a family parsed from this submission, shared by its checks

    def _components(self, rel: str) -> list[str]:
        parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
        if rel.startswith("/") or ".." in parts or not parts:
            raise SubmissionError(f"{rel!r} is not a relative path inside the submission")
        return parts

    def exists(self, rel: str) -> bool:
        """Whether a regular file (not a link) exists at `rel`."""
        try:
            self.read_bytes(rel, limit=0)
        except SubmissionError:
            return False
        return True

    def read_bytes(self, rel: str, limit: int | None = None) -> bytes:
        """Read a regular file, refusing links anywhere on its path and files over the size limit."""
        limit = self.max_bytes if limit is None else limit
        parts = self._components(rel)
        try:
            dir_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            raise SubmissionError(f"submission folder cannot be opened: {exc.strerror}") from None
        try:
            for i, name in enumerate(parts):
                last = i == len(parts) - 1
                try:
                    st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                except FileNotFoundError:
                    raise SubmissionError(f"{rel}: file not found in the submission") from None
                except OSError as exc:
                    raise SubmissionError(f"{rel}: cannot be read ({exc.strerror})") from None
                if stat.S_ISLNK(st.st_mode):
                    raise SubmissionError(f"{rel}: '{name}' is a symbolic link; links are not accepted")
                if not last:
                    if not stat.S_ISDIR(st.st_mode):
                        raise SubmissionError(f"{rel}: '{name}' is not a folder")
                    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
                    os.close(dir_fd)
                    dir_fd = fd
                    continue
                if not stat.S_ISREG(st.st_mode):
                    raise SubmissionError(f"{rel}: not a regular file")
                if st.st_size > limit and limit > 0:
                    raise SubmissionError(f"{rel}: {st.st_size} bytes is over the {limit}-byte limit")
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
                with os.fdopen(fd, "rb") as fh:
                    data = fh.read(limit + 1) if limit > 0 else b""
                if len(data) > limit and limit > 0:
                    raise SubmissionError(f"{rel}: over the {limit}-byte limit")
                return data
            raise SubmissionError(f"{rel}: not a file")  # pragma: no cover - parts is never empty
        finally:
            os.close(dir_fd)

    def read_text(self, rel: str) -> str:
        """Read a UTF-8 text file; binary content is an error."""
        data = self.read_bytes(rel)
        if b"\0" in data:
            raise SubmissionError(f"{rel}: binary content (NUL bytes) where text is expected")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SubmissionError(f"{rel}: not UTF-8 text (byte {exc.start})") from None

    def read_json(self, rel: str) -> Any:
        """Parse a JSON file with bounded depth. NaN/Infinity literals parse to floats and fail later checks."""
        if rel in self._json_cache:
            return self._json_cache[rel]
        text = self.read_text(rel)
        try:
            value = json.loads(text)
        except RecursionError:
            raise SubmissionError(f"{rel}: JSON nested too deeply") from None
        except ValueError as exc:
            raise SubmissionError(f"{rel}: invalid JSON ({exc})") from None
        if _depth(value) > MAX_JSON_DEPTH:
            raise SubmissionError(f"{rel}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
        self._json_cache[rel] = value
        return value

    def read_csv_column(self, rel: str, column: str) -> list[float]:
        """Read one numeric column of a CSV file with a header row."""
        text = self.read_text(rel)
        try:
            return _csv_column(rel, text, column)
        except csv.Error as exc:  # e.g. a field over the csv module's 128 KiB limit
            raise SubmissionError(f"{rel}: not readable as CSV ({exc})") from None

    def read_hdf5_dataset(self, rel: str, dataset: str) -> Any:
        """Read one dataset of an HDF5 file (size-limited, opened from memory, never from a link)."""
        import h5py
        import numpy as np

        data = self.read_bytes(rel)
        try:
            with h5py.File(io.BytesIO(data), "r") as fh:
                if dataset not in fh:
                    raise SubmissionError(f"{rel}: no dataset {dataset!r}")
                obj = fh[dataset]
                if not isinstance(obj, h5py.Dataset):
                    raise SubmissionError(f"{rel}: {dataset!r} is a group, not a dataset")
                return np.asarray(obj[()]).tolist()
        except SubmissionError:
            raise
        except Exception as exc:  # h5py raises many types on corrupt files
            raise SubmissionError(f"{rel}: not a readable HDF5 file ({type(exc).__name__})") from None

    def path_for_parser(self, rel: str) -> Path:
        """Path of a file already verified safe, for parsers that need a path. Re-check right before use."""
        self.read_bytes(rel, limit=self.max_bytes)
        return self.root.joinpath(*self._components(rel))


def _depth(value: Any) -> int:
    """Nesting depth of a parsed JSON value, iteratively."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, d = stack.pop()
        deepest = max(deepest, d)
        if d > MAX_JSON_DEPTH:
            return d
        if isinstance(item, dict):
            stack.extend((v, d + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, d + 1) for v in item)
    return deepest


def get_field(document: Any, path: str) -> Any:
    """Resolve a dotted path with list indices (`a.b[0].c`) in a parsed document."""
    current = document
    for token in _tokens(path):
        if isinstance(token, int):
            if not isinstance(current, list) or not -len(current) <= token < len(current):
                raise SubmissionError(f"field {path!r}: no item [{token}]")
            current = current[token]
        else:
            if not isinstance(current, dict) or token not in current:
                raise SubmissionError(f"field {path!r}: missing key {token!r}")
            current = current[token]
    return current


def _tokens(path: str) -> list[str | int]:
    tokens: list[str | int] = []
    for part in path.split("."):
        name, _, rest = part.partition("[")
        if name:
            tokens.append(name)
        while rest:
            index, _, rest = rest.partition("]")
            tokens.append(int(index))
            rest = rest.lstrip("[")
    return tokens


def memoized(cache: dict[str, Any], key: str, make: Callable[[], Any]) -> Any:
    """make() once per key; a SubmissionError it raised is kept and raised again.

    A file that cannot be read or parsed then fails every check that reads it without being parsed again.
    """
    if key not in cache:
        try:
            cache[key] = make()
        except SubmissionError as exc:
            cache[key] = exc
    value = cache[key]
    if isinstance(value, SubmissionError):
        raise value
    return value


def _csv_column(rel: str, text: str, column: str) -> list[float]:
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or column not in [f.strip() for f in reader.fieldnames]:
        raise SubmissionError(f"{rel}: no column {column!r} (columns: {reader.fieldnames})")
    values: list[float] = []
    for n, row in enumerate(reader, start=2):
        cell = {k.strip(): v for k, v in row.items() if k is not None}.get(column)
        try:
            values.append(float(cell))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise SubmissionError(f"{rel}:{n}: {cell!r} in column {column!r} is not a number") from None
    return values


def is_finite_number(value: Any) -> bool:
    """A real, finite number (bool excluded); an integer too large for a float is not one."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # a JSON integer of hundreds of digits
        return False
