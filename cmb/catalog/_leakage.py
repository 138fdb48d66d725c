"""Leakage scan: no reference value and no reference file may appear in anything an agent can see.

v1 scans every agent-visible file for reference values written to their own precision (four or more significant
digits) and for reference files, whole or in part. v2 scans the prompts for any number within a check's
tolerance of its reference, however few its digits.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from cmb.catalog._errors import Problem
from cmb.models import Check, Reference, Tolerance

# A number as written in text: sign, digits, optional fraction and exponent (Fortran D exponents too).
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?P<mantissa>\d+\.\d*|\.\d+|\d+)(?:[eEdD](?P<exponent>[-+]?\d+))?(?![\w.])")
MIN_SIGNIFICANT_DIGITS = 4  # shorter numbers (300 K, 6x6x6) collide by chance
MIN_FILE_SNIPPET = 64  # a reference text file leaks if any 64-char line run of it appears verbatim


def _numbers(value: Any) -> Iterator[float]:
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int | float):
        yield float(value)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _numbers(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)


class _Significant(NamedTuple):
    """The numbers of a text written to MIN_SIGNIFICANT_DIGITS or more, parsed once for every value scanned."""

    tokens: list[str]
    written: np.ndarray  # the value each token writes
    half_unit: np.ndarray  # half a unit in each token's last written place


def significant_numbers(text: str) -> _Significant:
    """The numeric tokens of `text` precise enough for a match to be more than chance."""
    tokens, written, half = [], [], []
    for match in _NUMBER.finditer(text):
        mantissa, exponent = match.group("mantissa", "exponent")
        if len(mantissa.replace(".", "").lstrip("0")) < MIN_SIGNIFICANT_DIGITS:
            continue
        token = match.group(0)
        value = float(token.replace("d", "e").replace("D", "e"))
        if not math.isfinite(value):  # 1e400 writes no reference value
            continue
        tokens.append(token)
        written.append(value)
        half.append(0.5 * 10.0 ** (int(exponent or 0) - len(mantissa.partition(".")[2])))
    return _Significant(tokens, np.array(written, dtype=float), np.array(half, dtype=float))


def _first_leak(numbers: _Significant, value: float) -> str | None:
    if value == 0 or not numbers.tokens:
        return None
    # A token leaks the value if it is the value rounded to the token's own precision.
    with np.errstate(invalid="ignore", over="ignore"):
        hit = np.abs(value - numbers.written) <= numbers.half_unit * (1 + 1e-9)
    first = int(np.argmax(hit))
    return numbers.tokens[first] if hit[first] else None


def number_leaks(text: str, value: float) -> str | None:
    """A numeric token in `text` that writes `value` rounded to the token's own precision, if any."""
    return _first_leak(significant_numbers(text), value)


def scan(reference: Reference, reference_dir: Path, visible: list[Path]) -> list[Problem]:
    """Problems for every reference value or reference file found in an agent-visible file."""
    problems: list[Problem] = []
    ref_files = [reference_dir / f for f in reference.files if (reference_dir / f).is_file()]
    ref_hashes = {hashlib.sha256(p.read_bytes()).hexdigest(): p.name for p in ref_files}
    ref_snippets: list[tuple[str, str]] = []
    for p in ref_files:
        try:
            lines = [ln.strip() for ln in p.read_text(encoding="utf-8").splitlines() if len(ln.strip()) >= 8]
        except UnicodeDecodeError:
            continue
        block = "\n".join(lines)
        if len(block) >= MIN_FILE_SNIPPET:
            ref_snippets.append((p.name, block))
    for path in visible:
        if not path.is_file():
            continue
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest in ref_hashes:
            problems.append(Problem(path, f"identical to reference file {ref_hashes[digest]}"))
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        flat = "\n".join(ln.strip() for ln in text.splitlines())
        numbers = significant_numbers(text)
        for name, block in ref_snippets:
            if block in flat:
                problems.append(Problem(path, f"contains the whole of reference file {name}"))
        for key, ref in reference.values.items():
            if ref.public:
                continue
            for number in _numbers(ref.value):
                token = _first_leak(numbers, number)
                if token is not None:
                    problems.append(Problem(path, f"writes reference value {key}={number:g} as {token!r}"))
                    break
    return problems


# ------------------------------------------------------------------------------------------------ scan v2: prompts


def _tokens(text: str) -> Iterator[tuple[str, float]]:
    for match in _NUMBER.finditer(text):
        token = match.group(0)
        try:
            yield token, float(token.replace("d", "e").replace("D", "e"))
        except ValueError:
            continue


def _band(value: float, tol: Tolerance) -> float:
    return tol.width * abs(value) if tol.is_relative else tol.width


def near_reference(text: str, value: float, tol: Tolerance, given: Sequence[float] = ()) -> str | None:
    """A number written in `text` within the tolerance `tol` of `value` and not declared given, if any."""
    band = _band(value, tol)
    for token, written in _tokens(text):
        if abs(written - value) <= band * (1 + 1e-9) and not any(
            math.isclose(written, g, rel_tol=1e-9, abs_tol=1e-12) for g in given
        ):
            return token
    return None


def prompt_leaks(
    checks: Sequence[Check],
    reference: Reference,
    prompts: dict[Path, str],
    given: Sequence[float] = (),
    numeric_types: frozenset[str] = frozenset(),
) -> list[Problem]:
    """Scan v2: any number in a prompt within a numeric check's tolerance of its reference is a leak.

    A prompt that hands the agent a starting guess inside the tolerance gives the answer away as surely as one
    that writes it to full precision. Numbers the agent must use are accepted when the task declares them given.
    """
    problems: list[Problem] = []
    for check in checks:
        if check.type not in numeric_types or check.reference is None:
            continue
        ref = reference.values.get(check.reference)
        if ref is None or ref.public:
            continue
        tol = check.effective_tolerance
        for path, text in prompts.items():
            for number in _numbers(ref.value):
                token = near_reference(text, number, tol, given)
                if token is not None:
                    problems.append(
                        Problem(
                            path,
                            f"writes {token!r}, within the {tol.describe()} tolerance of check {check.id!r} "
                            f"(reference {check.reference}={number:g}); declare it under 'given' with a reason if "
                            "the agent must use it",
                        )
                    )
                    break
    return problems
