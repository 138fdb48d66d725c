"""The namelist lexer: gfortran's namelist input as pw.x reads it, in linear time on any text.

No blank between a name and its index, blanks (even a line break) before '=', values separated by blanks,
commas or semicolons, `r*value` repeats, quoted strings with doubled quotes, `!` comments; `#` is no comment.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from cmb.grading.qe._input import Problem

MAX_TOKEN_CHARS = 256

# gfortran: no blank between a name and its index, blanks (even a line break) before '='
_NAME_EQ = re.compile(r"([A-Za-z][A-Za-z0-9_]*)(\(([^()\n]*)\))?[ \t]*=")
_NAME = re.compile(r"([A-Za-z][A-Za-z0-9_]*)(\(([^()\n]*)\))?[ \t]*(?:!.*)?$")
_BARE = re.compile(r"[^\s,;/!'\"=&]+")
GROUP_START = re.compile(r"[ \t]*&([A-Za-z][A-Za-z0-9_]*)")
END_GROUP = re.compile(r"&end\b", re.IGNORECASE)
INTEGER = re.compile(r"[+-]?\d+$")
REAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eEdDqQ][+-]?\d+)?$")
_REPEAT = re.compile(r"(\d+)\*(.*)$")
_BLANKS = re.compile(r"[ \t\r]+")


@dataclass
class Token:
    """One lexeme of a namelist group."""

    kind: Literal["name", "value", "comma", "end"]
    line: int
    text: str = ""
    index: str | None = None
    quoted: bool = False
    repeat: int = 1  # r*value; an empty unquoted text is r null values


def fortran_real(text: str) -> float | None:
    """A Fortran real literal (1.0, 1.d-8, .5, 3) as a finite float, else None."""
    if len(text) > MAX_TOKEN_CHARS or not REAL.match(text):
        return None
    value = float(text.translate(str.maketrans("dDqQ", "eEeE")))
    return value if math.isfinite(value) else None


def lex_group(lines: list[str], start: int, col: int) -> Iterator[Token | Problem | int]:
    """Tokens of one namelist group from (start, col); yields the index of the line after it last."""
    i = start
    while i < len(lines):
        line, lineno = lines[i], i + 1
        if col == 0 and i > start and "&" in line and GROUP_START.match(line) and not END_GROUP.match(line.lstrip()):
            # A new group starts before this one is closed: pw.x fails; end here so the next group is read.
            yield Problem("namelist not closed with '/' before the next namelist", lineno)
            yield i
            return
        n = len(line)
        while col < n:
            ch = line[col]
            if ch in " \t\r":
                col = _BLANKS.match(line, col).end()  # type: ignore[union-attr]  # always matches here
            elif ch == "!":
                break
            elif ch in ",;":  # gfortran takes a semicolon as a value separator too
                yield Token("comma", lineno)
                col += 1
            elif ch == "/":
                yield Token("end", lineno)
                yield i + 1
                return
            elif ch in "'\"":
                end, text = fortran_string(line, col)
                if end < 0:
                    yield Problem("unterminated character string", lineno)
                    break
                yield Token("value", lineno, text, quoted=True)
                col = end
            elif ch == "#":
                yield Problem("'#' does not start a comment inside a namelist (use '!')", lineno)
                break
            elif ch == "&":
                if END_GROUP.match(line, col):
                    yield Token("end", lineno)
                    yield i + 1
                    return
                yield Problem("unexpected '&' inside a namelist", lineno)
                break
            elif (m := _NAME_EQ.match(line, col)) is not None:
                yield Token("name", lineno, m.group(1).lower(), m.group(3))
                col = m.end()
            elif (m := _NAME.match(line, col)) is not None and (nxt := _equals_below(lines, i + 1)) is not None:
                # 'ecutwfc' alone on its line, '= 30' on the next: still an assignment for gfortran
                yield Token("name", lineno, m.group(1).lower(), m.group(3))
                i, col = nxt
                line, lineno, n = lines[i], i + 1, len(lines[i])
            elif (m := _BARE.match(line, col)) is not None:
                text = m.group(0)
                col = m.end()
                repeat, rep = 1, _REPEAT.match(text)
                if rep is not None:
                    if len(rep.group(1)) > 6:
                        yield Problem("repeat count too large", lineno)
                        break
                    repeat, text = int(rep.group(1)), rep.group(2)
                if rep is not None and not text and col < n and line[col] in "'\"":  # r*'string'
                    end, quoted = fortran_string(line, col)
                    if end < 0:
                        yield Problem("unterminated character string", lineno)
                        break
                    yield Token("value", lineno, quoted, quoted=True, repeat=repeat)
                    col = end
                else:
                    yield Token("value", lineno, text, repeat=repeat)
            else:
                yield Problem(f"unexpected {ch!r}", lineno)
                break
        i, col = i + 1, 0
    yield Problem("namelist not closed with '/' before the end of the file", len(lines))
    yield len(lines)


def _equals_below(lines: list[str], i: int) -> tuple[int, int] | None:
    """(line, column after '=') when the next non-blank line starts with '=', else None."""
    while i < len(lines) and not lines[i].split("!", 1)[0].strip():
        i += 1
    if i < len(lines) and lines[i].lstrip().startswith("="):
        return i, lines[i].index("=") + 1
    return None


def fortran_string(line: str, col: int) -> tuple[int, str]:
    """A quoted Fortran string starting at col: (end column, contents), or (-1, '') if unterminated."""
    quote, j, out = line[col], col + 1, []
    while True:
        k = line.find(quote, j)
        if k < 0:
            return -1, ""
        out.append(line[j:k])
        if line.startswith(quote, k + 1):  # a doubled quote stands for one
            out.append(quote)
            j = k + 2
            continue
        return k + 1, "".join(out)
