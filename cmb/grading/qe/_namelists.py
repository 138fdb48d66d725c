"""Namelist groups read as pw.x 6.7 reads them: typed by its declarations, in its reading order."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from cmb.grading._compare import show
from cmb.grading.qe._defaults import parse_declaration, qe_table
from cmb.grading.qe._evaluator import Evaluator
from cmb.grading.qe._input import MAX_PROBLEMS, Problem, element_key
from cmb.grading.qe._lexer import GROUP_START, INTEGER, Token, fortran_real, lex_group

MAX_ASSIGNMENTS = 20000  # namelist items one input may hold (values, names, commas; repeat counts included)
MAX_GROUPS = 20  # namelist groups read from one file
FORTRAN_INT_MAX = 2**31 - 1

_INDEX = re.compile(r"[ \t]*[+-]?\d{1,9}[ \t]*(?:,[ \t]*[+-]?\d{1,9}[ \t]*)*$")
_LOGICAL = re.compile(r"\.?([tTfF])")


@dataclass
class _Group:
    name: str
    line: int
    end_line: int  # index of the first line after the terminator
    values: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def _convert(token: Token, vtype: str, setting: str) -> Any:
    """A value as gfortran reads it into a variable of `vtype`; a Problem when it cannot."""
    text = token.text
    if token.quoted:
        if vtype == "str":
            return text
        return Problem(f"{setting}: a quoted string where pw.x expects {_KIND[vtype]}", token.line, (setting,))
    if vtype == "str":
        return Problem(f"{setting}: character values must be quoted ({show(text)!r})", token.line, (setting,))
    if vtype == "bool":
        m = _LOGICAL.match(text)
        if m is None:
            return Problem(f"{setting}: {show(text)!r} is not a logical (.true./.false.)", token.line, (setting,))
        return m.group(1) in "tT"
    if vtype == "int":
        if len(text) > 12 or not INTEGER.match(text) or abs(int(text)) > FORTRAN_INT_MAX:
            return Problem(f"{setting}: {show(text)!r} is not an integer", token.line, (setting,))
        return int(text)
    value = fortran_real(text)
    if value is None:
        return Problem(f"{setting}: {show(text)!r} is not a finite real number", token.line, (setting,))
    return value


_KIND = {"str": "a character string", "int": "an integer", "float": "a real number", "bool": "a logical"}


def _next_index(index: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...] | None:
    """The next array element in Fortran (column-major) order, or None past the end."""
    nxt = list(index)
    for d in range(len(dims)):
        nxt[d] += 1
        if nxt[d] <= dims[d]:
            return tuple(nxt)
        nxt[d] = 1
    return None


class _GroupReader:
    """Assignments of one group, typed by the namelist's declarations (None: a namelist pw.x does not read)."""

    def __init__(self, group: _Group, decls: dict[str, str] | None, budget: list[int]) -> None:
        self.group, self.decls, self.budget = group, decls, budget
        self.base: str | None = None  # the variable being assigned, None after an error
        self.vtype = ""
        self.dims: tuple[int, ...] = ()
        self.index: tuple[int, ...] | None = None  # next element; None for a scalar
        self.exhausted = False
        self.after_value = False
        self.last_problem_line = 0

    def problem(self, message: str, line: int, involves: tuple[str, ...] = ()) -> None:
        if self.decls is not None and len(self.group.problems) < MAX_PROBLEMS:
            self.group.problems.append(Problem(message, line, involves))
        self.last_problem_line = line

    @property
    def hopeless(self) -> bool:
        """Too many problems or assignments: reading on would only cost time."""
        return len(self.group.problems) >= MAX_PROBLEMS or self.budget[0] < 0

    def name(self, tok: Token) -> None:
        g = self.group
        setting = f"{g.name}.{tok.text}"
        self.base, self.exhausted, self.after_value = None, False, False
        if self.decls is None:
            return
        decl = self.decls.get(tok.text)
        if decl is None:
            self.problem(f"{tok.text!r} is not a variable of namelist &{g.name} in pw.x 6.7", tok.line, (setting,))
            return
        self.vtype, self.dims = parse_declaration(decl)
        if tok.index is None:
            self.index = (1,) * len(self.dims) if self.dims else None
        elif not self.dims:
            self.problem(f"{setting} is not an array", tok.line, (setting,))
            return
        elif not _INDEX.match(tok.index):
            self.problem(f"{setting}({tok.index}): unsupported array index", tok.line, (setting,))
            return
        else:
            index = tuple(int(x) for x in tok.index.split(","))
            if len(index) != len(self.dims) or any(not 1 <= i <= d for i, d in zip(index, self.dims, strict=False)):
                self.problem(f"{setting}({tok.index}): index out of bounds {self.dims}", tok.line, (setting,))
                return
            self.index = index
        self.base = setting

    def comma(self, tok: Token) -> None:
        if not self.after_value and self.base is not None:
            self._assign(1, None, tok.line)  # a null value leaves an element as it was
        self.after_value = False

    def value(self, tok: Token) -> None:
        if self.decls is None:
            return
        if self.base is None:
            if self.last_problem_line != tok.line:
                self.problem(f"value {show(tok.text)!r} without a valid variable name", tok.line)
            return
        converted = None
        if tok.text or tok.quoted:
            converted = _convert(tok, self.vtype, self.base)
            if isinstance(converted, Problem):
                self.problem(converted.message, converted.line or tok.line, converted.involves)
                self.base = None
                return
        self._assign(tok.repeat, converted, tok.line)
        self.after_value = True

    def _assign(self, repeat: int, value: Any, line: int) -> None:
        for _ in range(repeat):
            if self.base is None:
                return
            if self.exhausted:
                if value is None:
                    return  # gfortran lets null values run past the end
                what = "more values than the array holds" if self.dims else "more than one value for a scalar"
                self.problem(f"{self.base}: {what}", line, (self.base,))
                self.base = None
                return
            self.budget[0] -= 1
            if self.budget[0] < 0:
                self.problem("too many values assigned in the namelists", line)
                self.base = None
                return
            if value is not None:
                key = element_key(self.base, self.index)
                self.group.values[key] = value
                self.group.lines[key] = line
            if self.index is None:
                self.exhausted = True
            else:
                nxt = _next_index(self.index, self.dims)
                self.exhausted = nxt is None
                self.index = nxt or self.index


def _read_group(lines: list[str], start: int, name: str, col: int, budget: list[int]) -> _Group:
    decls = qe_table().declarations.get(name)
    group = _Group(name, start + 1, len(lines))
    reader = _GroupReader(group, decls, budget)
    for item in lex_group(lines, start, col):
        budget[0] -= not isinstance(item, int)  # every item costs, or a line of 100,000 bare commas reads forever
        if reader.hopeless:
            group.problems.append(Problem("too many problems or values; the rest of the file is not read", None))
            group.end_line = len(lines)
            break
        if isinstance(item, int):
            group.end_line = item
        elif isinstance(item, Problem):
            reader.problem(item.message, item.line or 0)
        elif item.kind == "name":
            reader.name(item)
        elif item.kind == "value":
            reader.value(item)
        elif item.kind == "comma":
            reader.comma(item)
    return group


def scan_groups(lines: list[str]) -> list[_Group]:
    """Every namelist group of the file, in order."""
    groups: list[_Group] = []
    budget = [MAX_ASSIGNMENTS]
    candidates = [i for i, line in enumerate(lines) if "&" in line]
    next_free = 0
    for i in candidates:
        if i < next_free:
            continue
        m = GROUP_START.match(lines[i])
        if m is None or m.group(1).lower() == "end":
            continue
        if len(groups) >= MAX_GROUPS:
            break  # an input has a handful; the rest is read as cards (and ignored)
        group = _read_group(lines, i, m.group(1).lower(), m.end(), budget)
        groups.append(group)
        next_free = max(group.end_line, i + 1)
    return groups


def read_namelists(
    groups: list[_Group],
) -> tuple[dict[str, Any], dict[str, int], list[str], int, list[Problem], list[str]]:
    """Simulate pw.x's sequential READs: (values, lines, namelists read, first card line, problems, notes)."""
    values: dict[str, Any] = {}
    lines: dict[str, int] = {}
    read: list[str] = []
    problems: list[Problem] = []
    notes: list[str] = []
    cursor = 0
    cards_start = 0
    used: set[int] = set()
    for spec in qe_table().namelists:
        ev = Evaluator(values)
        if spec.read_when is not None and not ev.matches(spec.read_when):
            continue
        idx = next((i for i in range(cursor, len(groups)) if groups[i].name == spec.name), None)
        if idx is None:
            required = spec.required_when is None or ev.matches(spec.required_when)
            earlier = any(g.name == spec.name for g in groups[:cursor])
            if earlier:
                problems.append(
                    Problem(
                        f"namelist &{spec.name.upper()} comes too early: pw.x reads "
                        + ", ".join("&" + n.name.upper() for n in qe_table().namelists)
                        + " in this order"
                    )
                )
            elif required:
                problems.append(Problem(f"namelist &{spec.name.upper()} is missing (pw.x stops: could not find it)"))
            continue
        group = groups[idx]
        used.add(idx)
        values.update(group.values)
        lines.update(group.lines)
        problems.extend(group.problems)
        read.append(spec.name)
        cursor = idx + 1
        cards_start = group.end_line
    for i, g in enumerate(groups):
        if i not in used:
            notes.append(f"line {g.line}: namelist &{g.name.upper()} is not read by pw.x 6.7 here; ignored")
    return values, lines, read, cards_start, problems, notes
