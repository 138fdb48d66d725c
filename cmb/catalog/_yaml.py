"""YAML loading that keeps line numbers, so pydantic errors point at the offending line."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from cmb.catalog._errors import CatalogError, Problem

M = TypeVar("M", bound=BaseModel)
MAX_YAML_BYTES = 2 * 1024 * 1024


def _line_of(node: yaml.Node | None, loc: tuple[int | str, ...]) -> int | None:
    """Line (1-based) of the deepest node along a pydantic error location."""
    line = node.start_mark.line + 1 if node is not None else None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if getattr(k, "value", None) == part), None)
            if match is None:
                break
            node = match
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            break
        line = node.start_mark.line + 1
    return line


# libyaml's parser where PyYAML was built with it (several times faster), else the pure-Python one.
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CACHE_SIZE = 1024
# Parsed and validated files by (path, mtime, size, model): a sweep's launcher grades every attempt of a task
# against the same grader and reference, and a file that changes on disk is read again.
_MODELS: OrderedDict[tuple[str, int, int, type[BaseModel]], BaseModel] = OrderedDict()
_MODELS_LOCK = threading.Lock()


def _read(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_YAML_BYTES:
            raise CatalogError([Problem(path, f"file is larger than {MAX_YAML_BYTES} bytes")])
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogError([Problem(path, "file not found")]) from None
    except UnicodeDecodeError:
        raise CatalogError([Problem(path, "not UTF-8 text")]) from None


def _parse(path: Path, text: str, compose: bool) -> Any:
    """The data of a YAML text, or with `compose` its node tree (which keeps line numbers)."""
    try:
        return yaml.compose(text, Loader=_LOADER) if compose else yaml.load(text, Loader=_LOADER)  # noqa: S506
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = mark.line + 1 if mark is not None else None
        raise CatalogError([Problem(path, f"YAML syntax error: {exc.problem}", line)]) from None
    except yaml.YAMLError as exc:
        raise CatalogError([Problem(path, f"YAML error: {exc}")]) from None


def load_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    """Parse a YAML file safely, with its node tree; syntax errors become a located CatalogError."""
    text = _read(path)
    return _parse(path, text, compose=False), _parse(path, text, compose=True)


def load_model(path: Path, model: type[M]) -> M:
    """Load a YAML file into a pydantic model; every validation error is reported with its line and field.

    A file already loaded into the same model, unchanged since, is not parsed again: each caller gets its own copy.
    """
    try:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, model)
    except OSError:
        key = None
    if key is not None:
        with _MODELS_LOCK:
            cached = _MODELS.get(key)
            if cached is not None:
                _MODELS.move_to_end(key)
        if cached is not None:
            return cached.model_copy(deep=True)  # type: ignore[return-value]
    text = _read(path)
    data = _parse(path, text, compose=False)
    if not isinstance(data, dict):
        raise CatalogError([Problem(path, f"expected a mapping at the top level, found {type(data).__name__}", 1)])
    try:
        loaded = model.model_validate(data)
    except ValidationError as exc:
        node = _parse(path, text, compose=True)  # only now: the line numbers of the errors
        problems = [
            Problem(path, err["msg"], _line_of(node, tuple(err["loc"])), ".".join(map(str, err["loc"])) or None)
            for err in exc.errors()
        ]
        raise CatalogError(problems) from None
    if key is not None:
        with _MODELS_LOCK:
            _MODELS[key] = loaded
            while len(_MODELS) > _CACHE_SIZE:
                _MODELS.popitem(last=False)
    return loaded.model_copy(deep=True)
