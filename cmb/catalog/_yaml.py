"""YAML loading that keeps line numbers, so pydantic errors point at the offending line."""

from __future__ import annotations

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


def load_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    """Parse a YAML file safely; syntax errors become a located CatalogError."""
    try:
        if path.stat().st_size > MAX_YAML_BYTES:
            raise CatalogError([Problem(path, f"file is larger than {MAX_YAML_BYTES} bytes")])
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogError([Problem(path, "file not found")]) from None
    except UnicodeDecodeError:
        raise CatalogError([Problem(path, "not UTF-8 text")]) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = mark.line + 1 if mark is not None else None
        raise CatalogError([Problem(path, f"YAML syntax error: {exc.problem}", line)]) from None
    except yaml.YAMLError as exc:
        raise CatalogError([Problem(path, f"YAML error: {exc}")]) from None
    return data, node


def load_model(path: Path, model: type[M]) -> M:
    """Load a YAML file into a pydantic model; every validation error is reported with its line and field."""
    data, node = load_yaml(path)
    if not isinstance(data, dict):
        raise CatalogError([Problem(path, f"expected a mapping at the top level, found {type(data).__name__}", 1)])
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = [
            Problem(path, err["msg"], _line_of(node, tuple(err["loc"])), ".".join(map(str, err["loc"])) or None)
            for err in exc.errors()
        ]
        raise CatalogError(problems) from None
