"""Lines and words of a LAMMPS script as LAMMPS splits them: continuation, quotes, triple quotes."""

from __future__ import annotations

import re

from cmb.grading.lammps._state import WS, LammpsError, Unknown, Word


def logical_lines(text: str) -> list[tuple[int, str]]:
    """Join continued lines as LAMMPS does; returns (first line number, text) pairs.

    A final '&' is dropped and the next line appended directly (its leading blanks kept); an odd number of
    triple quotes keeps the line open.
    """
    physical = text.split("\n")
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(physical):
        start = i + 1
        parts: list[str] = []
        triples = 0
        while True:
            stripped = physical[i].rstrip(WS)
            i += 1
            triples += stripped.count('"""')
            if stripped.endswith("&"):
                parts.append(stripped[:-1])
                if i < len(physical):
                    continue
            elif triples % 2 and i < len(physical):
                parts.append(stripped + "\n")
                continue
            else:
                parts.append(stripped)
            break
        out.append((start, "".join(parts)))
    return out


def first_words(text: str) -> list[str]:
    return text.split("#", 1)[0].split()


_BLANKS = re.compile(r"[ \t\n\v\f\r]*")
_NONBLANK = re.compile(r"[^ \t\n\v\f\r]*")
_WORD = re.compile(r"[^ \t\n\v\f\r]+")
_QUOTE_OR_MARK = re.compile("[\"'\0]")


def split_words(text: str, reasons: list[str]) -> list[Word]:
    """LAMMPS's word splitting: whitespace, with '...', "..." and triple-quoted words."""
    if not _QUOTE_OR_MARK.search(text):
        return list(_WORD.findall(text))
    words: list[Word] = []
    n = len(text)
    i = _BLANKS.match(text, 0).end()  # type: ignore[union-attr]
    while i < n:
        quoted = True
        if text.startswith('"""', i):
            stop = text.find('"""', i + 3)
            if stop < 0:
                raise LammpsError("Unbalanced quotes in input line")
            word, i = text[i + 3 : stop], stop + 3
        elif text[i] in "\"'":
            stop = text.find(text[i], i + 1)
            if stop < 0:
                raise LammpsError("Unbalanced quotes in input line")
            word, i = text[i + 1 : stop], stop + 1
        else:
            quoted = False
            j = _NONBLANK.match(text, i).end()  # type: ignore[union-attr]
            word, i = text[i:j], j
        if quoted and i < n and text[i] not in WS:
            raise LammpsError("Input line quote not followed by white-space")
        if "\0" in word:
            index = word.split("\0")[1]
            words.append(Unknown(reasons[int(index)] if index.isdigit() else "unknown value"))
        else:
            words.append(word)
        i = _BLANKS.match(text, i).end()  # type: ignore[union-attr]
    return words
