"""Leakage scan: no reference value and no reference file may appear in anything an agent can see."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cmb.catalog._errors import Problem
from cmb.models import Reference

# A number as written in text: sign, digits, optional fraction and exponent (Fortran D exponents too).
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eEdD][-+]?\d+)?(?![\w.])")
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


def _significant_digits(token: str) -> int:
    mantissa = re.split(r"[eEdD]", token.lstrip("+-"))[0]
    digits = mantissa.replace(".", "").lstrip("0")
    return len(digits)


def _decimals(token: str) -> int:
    """Decimal places a token is written to (negative for 12e3-style tokens)."""
    mantissa, *exp = re.split(r"[eEdD]", token)
    return len(mantissa.partition(".")[2]) - (int(exp[0]) if exp else 0)


def number_leaks(text: str, value: float) -> str | None:
    """A numeric token in `text` that writes `value` rounded to the token's own precision, if any."""
    if value == 0:
        return None
    for match in _NUMBER.finditer(text):
        token = match.group(0)
        if _significant_digits(token) < MIN_SIGNIFICANT_DIGITS:
            continue
        try:
            written = float(token.replace("d", "e").replace("D", "e"))
        except ValueError:
            continue
        # The token leaks the value if it is the value rounded to the token's own precision.
        if abs(value - written) <= 0.5 * 10.0 ** (-_decimals(token)) * (1 + 1e-9):
            return token
    return None


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
        for name, block in ref_snippets:
            if block in flat:
                problems.append(Problem(path, f"contains the whole of reference file {name}"))
        for key, ref in reference.values.items():
            if ref.public:
                continue
            for number in _numbers(ref.value):
                token = number_leaks(text, number)
                if token is not None:
                    problems.append(Problem(path, f"writes reference value {key}={number:g} as {token!r}"))
                    break
    return problems
