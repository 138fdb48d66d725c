"""Shared comparison primitives: numbers within a tolerance, arrays element-wise."""

from __future__ import annotations

import math
from typing import Any

from cmb.grading._registry import GraderConfigError, Outcome
from cmb.grading._submission import is_finite_number
from cmb.models import Tolerance

_SHOW = 200


def show(value: Any) -> Any:
    """A JSON-safe, bounded rendering of a submitted value for reports."""
    if isinstance(value, bool) or value is None or isinstance(value, int | str):
        if isinstance(value, str) and len(value) > _SHOW:
            return value[:_SHOW] + "…"
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
            return f"<integer with {len(str(abs(value)))} digits>"
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, list | tuple):
        items = [show(v) for v in list(value)[:20]]
        return items + ["…"] if len(value) > 20 else items
    if isinstance(value, dict):
        return {str(k)[:50]: show(v) for k, v in list(value.items())[:20]}
    return repr(value)[:_SHOW]


def compare_number(actual: Any, expected: float, tol: Tolerance, unit: str | None = None) -> Outcome:
    """|actual - expected| within the tolerance; non-numbers and non-finite values fail."""
    u = f" {unit}" if unit else ""
    if not is_finite_number(actual):
        kind = "not a finite number" if isinstance(actual, float) else f"not a number ({type(actual).__name__})"
        return Outcome(False, f"{show(actual)!r} is {kind}", expected, show(actual))
    if not is_finite_number(expected):
        raise GraderConfigError(f"reference {expected!r} is not a finite number")
    a, e = float(actual), float(expected)
    err = abs(a - e)
    if tol.is_relative:
        if e == 0:
            raise GraderConfigError("relative tolerance on a zero reference; use an absolute tolerance")
        bound = tol.width * abs(e)
    else:
        bound = tol.width
    deviation = err / bound if bound > 0 else (0.0 if err == 0 else math.inf)
    ok = err <= bound
    verdict = "within" if ok else "outside"
    msg = f"{a:.6g}{u} vs reference {e:.6g}{u}: {verdict} {tol.describe()} (deviation {deviation:.3g}× tolerance)"
    return Outcome(ok, msg, e, a, deviation)


def compare_array(actual: Any, expected: list[Any], tol: Tolerance, unit: str | None = None) -> Outcome:
    """Element-wise comparison of equal-shape numeric arrays; reports the worst element."""
    flat_e = _flatten(expected)
    try:
        flat_a = _flatten(actual)
        shape_ok = _shape(actual) == _shape(expected)
    except TypeError:
        return Outcome(False, f"{show(actual)!r} is not an array", expected, show(actual))
    if not shape_ok:
        return Outcome(
            False,
            f"shape {_shape(actual)} differs from the reference shape {_shape(expected)}",
            expected,
            show(actual),
        )
    worst: Outcome | None = None
    worst_index = -1
    for i, (a, e) in enumerate(zip(flat_a, flat_e, strict=True)):
        out = compare_number(a, e, tol, unit)
        if not out.passed and (out.deviation is None):
            return Outcome(False, f"element {i}: {out.message}", expected, show(actual))
        if worst is None or (out.deviation or 0) > (worst.deviation or 0):
            worst, worst_index = out, i
    if worst is None:
        return Outcome(True, "empty arrays match", expected, show(actual), 0.0)
    verdict = "all elements within" if worst.passed else f"element {worst_index} outside"
    return Outcome(
        worst.passed,
        f"{verdict} {tol.describe()}; worst element {worst_index}: {worst.message}",
        expected,
        show(actual),
        worst.deviation,
    )


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        out: list[Any] = []
        for v in value:
            out.extend(_flatten(v) if isinstance(v, list | tuple) else [v])
        return out
    raise TypeError("not a list")


def _shape(value: Any) -> tuple[int, ...]:
    if isinstance(value, list | tuple):
        inner = {_shape(v) for v in value} if value else {()}
        if len(inner) != 1:
            return (len(value), -1)
        return (len(value), *inner.pop())
    return ()
