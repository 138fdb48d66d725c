"""The INCAR reader: `TAG = value` statements as the VASP wiki describes them, stricter where VASP is silent.

Several statements per line separated by `;`, comments after `#` or `!`, a trailing backslash continues a
line, double quotes span lines; tags are case-insensitive. Two deliberate departures: VASP silently ignores
text that is not a `TAG = value` statement (so `ISMEAR 0` is dropped without a word); here such a line fails
the INCAR with a message saying so. And a tag given twice with different values is reported as ambiguous,
because which one VASP uses has differed between versions and is not documented.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from cmb.grading._compare import show
from cmb.grading._submission import SubmissionError
from cmb.grading.vasp._defaults import vasp_defaults
from cmb.grading.vasp._values import ValueProblem, read_typed, same

_TOKEN = re.compile(r'"[^"]*"?|[#!][^\n]*|\\[ \t]*\n|\n|;|[^"#!\\;\n]+|\\')
_TAG = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@dataclass(frozen=True)
class IncarEntry:
    """One `TAG = value` statement."""

    tag: str
    raw: str
    line: int


@dataclass(frozen=True)
class Incar:
    """A parsed INCAR: the statements by tag, and the tags set twice with different values."""

    name: str
    entries: Mapping[str, IncarEntry]
    conflicts: Mapping[str, tuple[IncarEntry, IncarEntry]] = field(default_factory=dict)


def _statements(text: str, name: str) -> list[tuple[int, str]]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    out: list[tuple[int, str]] = []
    line, start, buf = 1, 1, []
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok.startswith('"'):
            if len(tok) == 1 or not tok.endswith('"'):
                raise SubmissionError(f"{name}:{line}: a double quote is never closed")
            buf.append(tok)
            line += tok.count("\n")
        elif tok[0] in "#!":
            continue
        elif tok.startswith("\\") and tok.endswith("\n"):
            buf.append(" ")
            line += 1
        elif tok in ("\n", ";"):
            out.append((start, "".join(buf)))
            buf = []
            line += tok == "\n"
            start = line
        else:
            buf.append(tok)
    out.append((start, "".join(buf)))
    return out


def parse_incar(text: str, name: str = "INCAR") -> Incar:
    """Parse INCAR text. Raises SubmissionError (with the line) on anything VASP would not read as intended."""
    entries: dict[str, IncarEntry] = {}
    conflicts: dict[str, tuple[IncarEntry, IncarEntry]] = {}
    table = vasp_defaults()
    for line, stmt in _statements(text, name):
        stmt = stmt.strip()
        if not stmt:
            continue
        if "=" not in stmt:
            raise SubmissionError(
                f"{name}:{line}: {show(stmt)!r} is not a TAG = value statement (VASP would silently ignore it; "
                "write comments after '#' or '!')"
            )
        tag, _, value = (part.strip() for part in stmt.partition("="))
        if not _TAG.fullmatch(tag):
            raise SubmissionError(f"{name}:{line}: {show(tag)!r} is not a valid INCAR tag name")
        tag = tag.upper()
        if value.startswith('"'):
            value = value[1 : value.index('"', 1)].strip() if '"' in value[1:] else value[1:]
        if not value:
            raise SubmissionError(f"{name}:{line}: {tag} has no value")
        entry = IncarEntry(tag, value, line)
        spec = table.get(tag)
        try:
            typed = read_typed(spec, value)  # known tags must be readable, as VASP requires
        except ValueProblem as exc:
            raise SubmissionError(f"{name}:{line}: {tag} = {show(value)!r}: {exc} (VASP stops with an error)") from None
        previous = entries.get(tag)
        if previous is None:
            entries[tag] = entry
        elif not same(read_typed(spec, previous.raw), typed) and tag not in conflicts:
            conflicts[tag] = (previous, entry)
    if not entries:
        raise SubmissionError(f"{name}: no TAG = value statements")
    return Incar(name, entries, conflicts)
