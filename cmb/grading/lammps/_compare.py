"""Script values against expected ones: numbers within a tolerance, words exactly, lists element-wise."""

from __future__ import annotations

from typing import Any

from cmb.grading._compare import compare_number, show
from cmb.grading._registry import GraderConfigError, Outcome
from cmb.grading.lammps._state import Absent, Unknown, parse_number
from cmb.models import Tolerance


def display(value: Any) -> Any:
    if isinstance(value, Unknown | Absent):
        return f"<{'unknown' if isinstance(value, Unknown) else 'absent'}: {value.reason}>"
    if isinstance(value, list | tuple):
        return [display(v) for v in value]
    return value


def first_unknown(value: Any) -> Unknown | Absent | None:
    if isinstance(value, Unknown | Absent):
        return value
    if isinstance(value, list | tuple):
        for v in value:
            found = first_unknown(v)
            if found is not None:
                return found
    return None


_YES = {"yes", "on", "true"}
_NO = {"no", "off", "false"}


def compare(actual: Any, expected: Any, tol: Tolerance, unit: str | None = None) -> Outcome:
    """A script value against an expected one.

    Numbers within the tolerance (a zero reference under a relative tolerance must be exactly zero), integers
    exactly, strings exactly (LAMMPS is case-sensitive), lists element-wise, None accepts anything.
    """
    if expected is None:
        return Outcome(True, "any value accepted", None, display(actual), 0.0)
    blocker = first_unknown(actual)
    if blocker is not None and not isinstance(expected, list):
        return Outcome(False, blocker.reason, expected, display(actual))
    if isinstance(expected, list):
        if not isinstance(actual, list | tuple):
            return Outcome(False, f"{show(display(actual))!r} is not a list", expected, display(actual))
        if len(actual) != len(expected):
            return Outcome(False, f"{len(actual)} values where {len(expected)} are expected", expected,
                           display(actual))  # fmt: skip
        worst = 0.0
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            out = compare(a, e, tol, unit)
            if not out.passed:
                return Outcome(False, f"value {i}: {out.message}", expected, display(actual), out.deviation)
            worst = max(worst, out.deviation or 0.0)
        return Outcome(True, f"{display(actual)} matches {expected}", expected, display(actual), worst)
    if isinstance(expected, bool):
        word = str(actual).lower()
        ok = word in (_YES if expected else _NO)
        return Outcome(ok, f"{actual!r} {'means' if ok else 'does not mean'} {expected}", expected, actual)
    if isinstance(expected, int | float):
        number = parse_number(actual)
        if number is None:
            return Outcome(False, f"{show(actual)!r} is not a number", expected, display(actual))
        if isinstance(expected, int) and isinstance(actual, int) and not isinstance(actual, bool):
            ok = actual == expected
            return Outcome(ok, f"{actual} {'==' if ok else '!='} {expected}", expected, actual, 0.0 if ok else None)
        if tol.is_relative and expected == 0:
            ok = number == 0
            return Outcome(ok, f"{number:g} {'==' if ok else '!='} 0 (a zero reference is matched exactly)",
                           expected, number, 0.0 if ok else None)  # fmt: skip
        return compare_number(number, float(expected), tol, unit)
    if isinstance(expected, str):
        if not isinstance(actual, str):
            number, wanted = parse_number(actual), parse_number(expected)
            if number is not None and wanted is not None:
                return compare(actual, wanted, tol, unit)
            return Outcome(False, f"{show(actual)!r} is not {expected!r}", expected, display(actual))
        ok = actual == expected
        return Outcome(ok, f"{actual!r} {'==' if ok else '!='} {expected!r}", expected, actual, 0.0 if ok else None)
    raise GraderConfigError(f"cannot compare against a {type(expected).__name__} ({expected!r})")
