"""INCAR values as VASP reads them (Fortran-like and strict), and typed equality between them."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from cmb.grading._compare import compare_array, compare_number, show
from cmb.grading._registry import GraderConfigError, Outcome
from cmb.grading._submission import is_finite_number
from cmb.grading.vasp._defaults import TagSpec
from cmb.models import Tolerance

MAX_LIST = 100_000  # expanded length of a numeric list (MAGMOM = 99999999*1 is refused, not allocated)
_INT32 = 2**31 - 1

_INT = re.compile(r"[+-]?\d{1,10}")
_REAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eEdD][+-]?\d{1,4})?")
_BOOL_TRUE = {".TRUE.", "TRUE", "T", ".T.", ".TRUE", ".T"}
_BOOL_FALSE = {".FALSE.", "FALSE", "F", ".F.", ".FALSE", ".F"}
_REPEAT = re.compile(r"(\d{1,9})\*(.+)")


class ValueProblem(ValueError):
    """A value VASP could not read."""


def read_int(token: str) -> int:
    """A Fortran integer (no decimal point, within 32 bits)."""
    if not _INT.fullmatch(token):
        raise ValueProblem(f"{show(token)!r} is not an integer")
    value = int(token)
    if abs(value) > _INT32:
        raise ValueProblem(f"{token} is out of the integer range")
    return value


def read_real(token: str) -> float:
    """A Fortran real (1E-6, 1.0D-5, .5); NaN and overflow are refused."""
    if not _REAL.fullmatch(token):
        raise ValueProblem(f"{show(token)!r} is not a number")
    value = float(token.replace("d", "e").replace("D", "e"))
    if not math.isfinite(value):
        raise ValueProblem(f"{token} is out of range")
    return value


def read_bool(token: str) -> bool:
    """A Fortran logical: .TRUE./.FALSE./T/F."""
    up = token.upper()
    if up in _BOOL_TRUE:
        return True
    if up in _BOOL_FALSE:
        return False
    raise ValueProblem(f"{show(token)!r} is not a logical (.TRUE./.FALSE.)")


def read_real_list(raw: str) -> list[float]:
    """Numbers with N*value repeats, up to the first word that is not one (the rest is a comment)."""
    values: list[float] = []
    for token in raw.split():
        m = _REPEAT.fullmatch(token)
        try:
            if m:
                count, number = int(m.group(1)), read_real(m.group(2))
            else:
                count, number = 1, read_real(token)
        except ValueProblem:
            if not values:
                raise ValueProblem(f"{show(token)!r} is not a number") from None
            break
        if len(values) + count > MAX_LIST:
            raise ValueProblem(f"more than {MAX_LIST} values")
        values.extend([number] * count)
    if not values:
        raise ValueProblem("no values")
    return values


def canonical_keyword(spec: TagSpec | None, raw: Any) -> str:
    """The canonical spelling of a keyword value, by VASP's own matching (exact names, then leading letters)."""
    if isinstance(raw, bool):
        raw = ".TRUE." if raw else ".FALSE."
    text = " ".join(str(raw).split()).upper()
    first = text.split(" ", 1)[0] if text else ""
    choices = spec.choices if spec else []
    for candidate in (text, first):
        for choice in choices:
            if candidate in {choice.name.upper(), *(a.upper() for a in choice.aliases)}:
                return choice.name
    best: tuple[int, str] | None = None
    for choice in choices:
        for prefix in choice.prefixes:
            if first.startswith(prefix.upper()) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), choice.name)
    return best[1] if best else first


def read_typed(spec: TagSpec | None, raw: str) -> Any:
    """Convert an INCAR value to its tag's type; unknown tags get the most specific type that fits."""
    first = raw.split()[0] if raw.split() else ""
    if spec is None:
        return _infer(raw)
    readers: dict[str, Callable[[], Any]] = {
        "int": lambda: read_int(first),
        "float": lambda: read_real(first),
        "bool": lambda: read_bool(first),
        "keyword": lambda: canonical_keyword(spec, raw),
        "string": lambda: " ".join(raw.split()),
        "float_list": lambda: read_real_list(raw),
    }
    return readers[spec.type]()


def _infer(raw: str) -> Any:
    """Type of a value of a tag the table does not know: number(s), logical, else text."""
    tokens = raw.split()
    try:
        values = read_real_list(raw)
    except ValueProblem:
        try:
            return read_bool(tokens[0])
        except ValueProblem:
            return " ".join(tokens)
    if len(values) > 1:
        return values
    try:
        return read_int(tokens[0])
    except ValueProblem:
        return values[0]


def coerce(spec: TagSpec | None, value: Any) -> Any:
    """A grader-side value (reference, rule operand) in the tag's type; mistakes are grader errors."""
    if value is None:
        return None
    kind = spec.type if spec else None
    try:
        if kind == "keyword":
            return canonical_keyword(spec, value)
        if kind == "string":
            return " ".join(str(value).split())
        if kind == "bool":
            return read_bool(value) if isinstance(value, str) else _strict_bool(value)
        if kind == "int":
            if isinstance(value, bool) or not is_finite_number(value) or float(value) != int(value):
                raise ValueProblem(f"{value!r} is not an integer")
            return int(value)
        if kind == "float":
            if isinstance(value, bool) or not is_finite_number(value):
                raise ValueProblem(f"{value!r} is not a number")
            return float(value)
        if kind == "float_list":
            if isinstance(value, str):
                return read_real_list(value)
            if isinstance(value, list) and all(is_finite_number(v) for v in value):
                return [float(v) for v in value]
            raise ValueProblem(f"{value!r} is not a list of numbers")
    except ValueProblem as exc:
        raise GraderConfigError(f"value {value!r}: {exc}") from None
    return value


def _strict_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueProblem(f"{value!r} is not a boolean")
    return value


def same(a: Any, b: Any) -> bool:
    """Equality of two values already in a tag's type (keywords/strings case-insensitively)."""
    if isinstance(a, str) and isinstance(b, str):
        return a.upper() == b.upper()
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if is_finite_number(a) and is_finite_number(b):
        return bool(float(a) == float(b))
    return bool(a == b)


def fmt(value: Any) -> str:
    """A value as an INCAR would write it, for messages."""
    if value is None:
        return "not set"
    if isinstance(value, bool):
        return ".TRUE." if value else ".FALSE."
    if isinstance(value, list):
        return " ".join(fmt(v) for v in value[:12]) + (" …" if len(value) > 12 else "")
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def equals(spec: TagSpec | None, actual: Any, expected: Any, tol: Tolerance) -> Outcome:
    """Typed equality: floats within the tolerance, lists element-wise, others exactly; None is "not set"."""
    if expected is None or actual is None:
        ok = expected is None and actual is None
        return Outcome(ok, f"{fmt(actual)} {'matches' if ok else 'differs from'} {fmt(expected)}", expected, actual)
    if isinstance(expected, list):
        return compare_array(actual, expected, tol)
    is_float = (spec is not None and spec.type == "float") or (
        spec is None and (isinstance(expected, float) or isinstance(actual, float))
    )
    if is_float and is_finite_number(expected) and is_finite_number(actual):
        return compare_number(actual, expected, tol)
    ok = same(actual, expected)
    return Outcome(ok, f"{fmt(actual)} {'matches' if ok else 'differs from'} {fmt(expected)}", expected, actual)
