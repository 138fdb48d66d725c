"""Check family `qe`: Quantum ESPRESSO pw.x inputs, graded by the values pw.x 6.7 will actually use.

An agent's input is judged by its *effective* settings: what pw.x 6.7 runs with once its defaults and its
conditional rules are applied (ecutrho absent = 4 × ecutwfc; tprnfor forced on for relax; smearing ignored
unless occupations='smearing'; vdw_corr='d3' silently means no correction). Those rules live as data in
`data/qe67_defaults.yaml`, each with its source, and one generic evaluator applies them.

Reading follows pw.x (gfortran namelist input, then the cards), not a lenient parser: a value that pw.x
would not read (unquoted text, `T` vs `.true.` are both fine, `1.0` for an integer is not, `#` comments are
not) is a problem pw.x stops on, reported by `qe.valid`. qe-tools' own namelist reader silently drops
settings written `a=1 b=2` or `ecutwfc=30 /` and its regular expressions take quadratic time on hostile
text, so the namelists and cards are read here in linear time, and qe-tools only turns validated numbers
(ibrav, celldm or A..cosBC, CELL_PARAMETERS) into a cell: the lattice generation it shares with pw.x.

Check types: `qe.valid` (pw.x would accept the input), `qe.param` (one effective setting), `qe.kpoints`,
`qe.species`, `qe.structure` (cell + positions + magnetic order vs a hidden reference).
"""

from __future__ import annotations

import functools
import math
import operator
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pymatgen.core.lattice import Lattice
from pymatgen.core.periodic_table import Element
from pymatgen.core.structure import Structure
from qe_tools.parsers import PwInputFile

from cmb.grading._compare import compare_number, show
from cmb.grading._registry import CheckContext, GraderConfigError, Outcome, register
from cmb.grading._structure import MAX_SITES, StructureParams, compare_structures, read_reference_structure
from cmb.grading._submission import SubmissionError, is_finite_number

TABLE_FILE = "qe67_defaults.yaml"
BOHR_TO_ANG = 0.52917720859  # QE 6.7's BOHR_RADIUS_ANGS, also qe-tools' CONSTANTS.bohr_to_ang
CARD_LINE_CHARS = 256  # pw.x reads card lines as CHARACTER(256): anything beyond is cut off
MAX_TOKEN_CHARS = 256
MAX_ASSIGNMENTS = 20000  # namelist elements one input may assign (repeat counts included)
MAX_KPOINTS = 40000  # pw.x's npk
MAX_PROBLEMS = 50
MAX_LINES = 200_000  # 40000 k-points and thousands of atoms fit; more only costs grading time
MAX_GROUPS = 20  # namelist groups read from one file
FORTRAN_INT_MAX = 2**31 - 1


# ==================================================================================================
# The data table


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Term(_Strict):
    """Another setting's effective value times a factor: {of: system.ecutwfc, times: 4}."""

    of: str = Field(description="Curated setting, namelist.variable")
    times: float = Field(default=1.0, description="Factor applied to its value")


class MinOf(_Strict):
    """The smallest of several values."""

    min_of: list[Term | float] = Field(min_length=1, description="Terms or numbers")


class DependsOn(_Strict):
    """A value pw.x takes from somewhere the grader cannot see."""

    depends_on: Literal["pseudopotential"] = Field(description="Where pw.x takes the value from")


Expr = MinOf | DependsOn | Term | bool | int | float | str | None


class Predicate(_Strict):
    """Comparisons a setting must satisfy, all of them (a plain list in YAML means `in`)."""

    in_: list[Any] | None = Field(default=None, alias="in", description="One of these canonical values")
    not_in: list[Any] | None = Field(default=None, description="None of these canonical values")
    is_set: bool | None = Field(default=None, alias="set", description="Whether the input gives the setting")
    lt: Term | float | None = Field(default=None, description="Below")
    le: Term | float | None = Field(default=None, description="At most")
    gt: Term | float | None = Field(default=None, description="Above")
    ge: Term | float | None = Field(default=None, description="At least")
    eq: Term | float | None = Field(default=None, description="Equal")
    ne: Term | float | None = Field(default=None, description="Not equal")
    of_input: bool = Field(default=False, description="Test the value as written, before defaults and rules")


Condition = dict[str, Predicate | list[Any]]


class Rule(_Strict):
    """A conditional value: a default under `when`, or with `force` an override of the input too."""

    when: Condition = Field(description="Settings and predicates, all of which must hold")
    value: Expr = Field(description="The value then")
    force: bool = Field(default=False, description="pw.x uses it even when the input gives another value")
    note: str | None = Field(default=None, description="Why, shown in messages")


class Fallback(_Strict):
    """What pw.x uses instead of a spelling it does not know."""

    fallback: Any = Field(description="Canonical value used instead")
    note: str = Field(description="What pw.x does, shown in messages")


class VarSpec(_Strict):
    """One curated setting."""

    type: Literal["str", "int", "float", "bool"] = Field(description="Fortran type")
    default: Expr = Field(default=None, description="Value when absent; null = not set")
    values: dict[str, list[str]] | None = Field(default=None, description="Canonical value -> accepted spellings")
    unknown_value: Literal["error"] | Fallback | None = Field(default=None, description="Other spellings")
    case_sensitive: bool = Field(default=True, description="Whether pw.x compares the spelling exactly")
    rules: list[Rule] = Field(default_factory=list, description="Conditional values, first match wins")
    unset_when: Predicate | None = Field(default=None, description="Input values pw.x treats as absent")
    clamp: tuple[float, float] | None = Field(default=None, description="pw.x brings the value into this range")
    per_species: bool = Field(default=False, description="An array indexed by species (1..ntyp)")
    unit: str | None = Field(default=None, description="Unit of the value")
    meaning: str | None = Field(default=None, description="What the effective value stands for")
    note: str | None = Field(default=None, description="Remark shown with default values")
    source: str = Field(description="Documentation page and variable, and/or source file and routine")


class FatalRule(_Strict):
    """An input combination on which pw.x stops."""

    when: Condition = Field(description="Settings and predicates, all of which must hold")
    message: str = Field(description="pw.x's error message")
    involves: list[str] | None = Field(default=None, description="Settings at fault (default: those in when)")
    source: str = Field(description="Where pw.x checks it")


class NamelistSpec(_Strict):
    """A namelist pw.x reads, in reading order."""

    name: str = Field(description="Namelist name, lower case")
    read_when: Condition | None = Field(default=None, description="Read only when this holds (default always)")
    required_when: Condition | None = Field(default=None, description="Required when this holds (default always)")


class CardSpec(_Strict):
    """How pw.x reads a card's option."""

    options: list[tuple[str, str]] = Field(description="(substring of the upper-cased line, option) in order")
    bare: str = Field(description="Option when none is given")
    unknown_option: Literal["error", "bare"] = Field(description="What an unrecognised option does")
    when_absent: str | None = Field(default=None, description="Option pw.x assumes when the card is absent")
    note: str | None = Field(default=None, description="Remark")
    source: str = Field(description="Documentation and source")


class CardsTable(_Strict):
    """Cards pw.x knows and the options of those graded here."""

    known: list[str] = Field(description="Card names pw.x 6.7 recognises")
    ATOMIC_POSITIONS: CardSpec
    CELL_PARAMETERS: CardSpec
    K_POINTS: CardSpec


class QeTable(_Strict):
    """`data/qe67_defaults.yaml`."""

    version: int
    code: str
    qe_version: str
    sources: dict[str, str]
    namelists: list[NamelistSpec]
    declarations: dict[str, dict[str, str]]
    anchors: dict[str, list[str]] = Field(default_factory=dict)
    variables: dict[str, VarSpec]
    fatal: list[FatalRule]
    cards: CardsTable
    functionals: dict[str, list[str]]

    @model_validator(mode="after")
    def _consistent(self) -> QeTable:
        for key, spec in self.variables.items():
            nl, _, name = key.partition(".")
            decl = self.declarations.get(nl, {}).get(name)
            if decl is None:
                raise ValueError(f"variables.{key}: not declared in namelist &{nl}")
            vtype, dims = parse_declaration(decl)
            if vtype != spec.type:
                raise ValueError(f"variables.{key}: type {spec.type} but declared {vtype}")
            if spec.per_species and len(dims) != 1:
                raise ValueError(f"variables.{key}: per_species needs a 1-D array")
            if spec.values is not None and spec.type != "str":
                raise ValueError(f"variables.{key}: spellings are for strings")
            for rule in spec.rules:
                self._check_condition(f"variables.{key}", rule.when)
                self._check_expr(f"variables.{key}", rule.value)
            self._check_expr(f"variables.{key}", spec.default)
        for i, fatal in enumerate(self.fatal):
            self._check_condition(f"fatal[{i}]", fatal.when)
            for name in fatal.involves or []:
                self._check_setting(f"fatal[{i}]", name)
        for nls in self.namelists:
            for cond in (nls.read_when, nls.required_when):
                if cond is not None:
                    self._check_condition(f"namelists.{nls.name}", cond)
        return self

    def _check_setting(self, where: str, name: str) -> VarSpec:
        if name not in self.variables:
            raise ValueError(f"{where}: {name!r} is not a curated variable")
        return self.variables[name]

    def _check_expr(self, where: str, expr: Any) -> None:
        terms = expr.min_of if isinstance(expr, MinOf) else [expr]
        for t in terms:
            if isinstance(t, Term):
                self._check_setting(where, t.of)

    def _check_condition(self, where: str, cond: Condition) -> None:
        for name, pred in cond.items():
            spec = self._check_setting(where, name)
            compared = isinstance(pred, list) or any(
                v is not None for v in (pred.in_, pred.not_in, pred.lt, pred.le, pred.gt, pred.ge, pred.eq, pred.ne)
            )
            if spec.per_species and compared:
                raise ValueError(f"{where}: {name} is per species; only `set` can be tested")
            if isinstance(pred, Predicate):
                for bound in (pred.lt, pred.le, pred.gt, pred.ge, pred.eq, pred.ne):
                    self._check_expr(where, bound)
            values = pred if isinstance(pred, list) else (pred.in_ or []) + (pred.not_in or [])
            if spec.values is not None:
                unknown = [v for v in values if v not in spec.values]
                if unknown:
                    raise ValueError(f"{where}: {unknown} are not canonical values of {name}")


def parse_declaration(decl: str) -> tuple[str, tuple[int, ...]]:
    """'float*3*10' -> ('float', (3, 10)); 'int' -> ('int', ())."""
    vtype, *dims = decl.split("*")
    return vtype, tuple(int(d) for d in dims)


@functools.cache
def qe_table() -> QeTable:
    """The QE 6.7 table, loaded and validated once."""
    text = resources.files("cmb.grading").joinpath("data", TABLE_FILE).read_text(encoding="utf-8")
    try:
        return QeTable.model_validate(yaml.safe_load(text))
    except ValidationError as exc:
        raise GraderConfigError(f"{TABLE_FILE}: {exc}") from None


@functools.cache
def _functional_tokens() -> dict[str, str]:
    return {token: family for family, tokens in qe_table().functionals.items() for token in [family, *tokens]}


# ==================================================================================================
# The parsed input


@dataclass(frozen=True)
class Problem:
    """Something in the input on which pw.x 6.7 stops."""

    message: str
    line: int | None = None
    involves: tuple[str, ...] = ()

    def text(self) -> str:
        """The message with its line number."""
        return f"line {self.line}: {self.message}" if self.line else self.message


@dataclass(frozen=True)
class Species:
    """One ATOMIC_SPECIES line."""

    label: str
    mass: float
    pseudo: str
    line: int


@dataclass(frozen=True)
class Positions:
    """The ATOMIC_POSITIONS card."""

    unit: str
    labels: tuple[str, ...]
    coords: tuple[tuple[float, float, float], ...]
    line: int


@dataclass(frozen=True)
class CellCard:
    """The CELL_PARAMETERS card ('none' = no unit given)."""

    unit: str
    vectors: tuple[tuple[float, float, float], ...]
    line: int


@dataclass(frozen=True)
class KPoints:
    """The K_POINTS card: kind is automatic, gamma, tpiba, crystal, tpiba_b, crystal_b, tpiba_c or crystal_c."""

    kind: str
    mesh: tuple[int, int, int] | None = None
    shift: tuple[int, int, int] | None = None
    points: tuple[tuple[float, float, float, float], ...] = ()
    absent: bool = False
    line: int | None = None


@dataclass(frozen=True)
class PwInput:
    """A pw.x input as pw.x 6.7 reads it."""

    name: str
    values: Mapping[str, Any]  # 'system.ecutwfc' -> 30.0, 'system.celldm(1)' -> 10.26, as typed by pw.x
    lines: Mapping[str, int]
    namelists: tuple[str, ...]  # namelists read, in order
    species: tuple[Species, ...]
    positions: Positions | None
    cell: CellCard | None
    kpoints: KPoints | None
    problems: tuple[Problem, ...]  # reading problems on which pw.x stops
    notes: tuple[str, ...]  # things pw.x ignores or warns about


# ==================================================================================================
# Namelists (gfortran namelist input, as pw.x reads it)

# gfortran: no blank between a name and its index, blanks (even a line break) before '='
_NAME_EQ = re.compile(r"([A-Za-z][A-Za-z0-9_]*)(\(([^()\n]*)\))?[ \t]*=")
_NAME = re.compile(r"([A-Za-z][A-Za-z0-9_]*)(\(([^()\n]*)\))?[ \t]*(?:!.*)?$")
_BARE = re.compile(r"[^\s,;/!'\"=&]+")
_GROUP_START = re.compile(r"[ \t]*&([A-Za-z][A-Za-z0-9_]*)")
_END_GROUP = re.compile(r"&end\b", re.IGNORECASE)
_INDEX = re.compile(r"[ \t]*[+-]?\d{1,9}[ \t]*(?:,[ \t]*[+-]?\d{1,9}[ \t]*)*$")
_INT = re.compile(r"[+-]?\d+$")
_REAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eEdDqQ][+-]?\d+)?$")
_LOGICAL = re.compile(r"\.?([tTfF])")
_REPEAT = re.compile(r"(\d+)\*(.*)$")
_FIRST_WORD = re.compile(r"[^\s,/]*")
_BLANKS = re.compile(r"[ \t\r]+")


@dataclass
class _Group:
    name: str
    line: int
    end_line: int  # index of the first line after the terminator
    values: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


@dataclass
class _Token:
    kind: Literal["name", "value", "comma", "end"]
    line: int
    text: str = ""
    index: str | None = None
    quoted: bool = False
    repeat: int = 1  # r*value; an empty unquoted text is r null values


def fortran_real(text: str) -> float | None:
    """A Fortran real literal (1.0, 1.d-8, .5, 3) as a finite float, else None."""
    if len(text) > MAX_TOKEN_CHARS or not _REAL.match(text):
        return None
    value = float(text.translate(str.maketrans("dDqQ", "eEeE")))
    return value if math.isfinite(value) else None


def _lex_group(lines: list[str], start: int, col: int) -> Iterator[_Token | Problem | int]:
    """Tokens of one namelist group from (start, col); yields the index of the line after it last."""
    i = start
    while i < len(lines):
        line, lineno = lines[i], i + 1
        if col == 0 and i > start and "&" in line and _GROUP_START.match(line) and not _END_GROUP.match(line.lstrip()):
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
                yield _Token("comma", lineno)
                col += 1
            elif ch == "/":
                yield _Token("end", lineno)
                yield i + 1
                return
            elif ch in "'\"":
                end, text = _string(line, col)
                if end < 0:
                    yield Problem("unterminated character string", lineno)
                    break
                yield _Token("value", lineno, text, quoted=True)
                col = end
            elif ch == "#":
                yield Problem("'#' does not start a comment inside a namelist (use '!')", lineno)
                break
            elif ch == "&":
                if _END_GROUP.match(line, col):
                    yield _Token("end", lineno)
                    yield i + 1
                    return
                yield Problem("unexpected '&' inside a namelist", lineno)
                break
            elif (m := _NAME_EQ.match(line, col)) is not None:
                yield _Token("name", lineno, m.group(1).lower(), m.group(3))
                col = m.end()
            elif (m := _NAME.match(line, col)) is not None and (nxt := _equals_below(lines, i + 1)) is not None:
                # 'ecutwfc' alone on its line, '= 30' on the next: still an assignment for gfortran
                yield _Token("name", lineno, m.group(1).lower(), m.group(3))
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
                    end, quoted = _string(line, col)
                    if end < 0:
                        yield Problem("unterminated character string", lineno)
                        break
                    yield _Token("value", lineno, quoted, quoted=True, repeat=repeat)
                    col = end
                else:
                    yield _Token("value", lineno, text, repeat=repeat)
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


def _string(line: str, col: int) -> tuple[int, str]:
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


def _convert(token: _Token, vtype: str, setting: str) -> Any:
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
        if len(text) > 12 or not _INT.match(text) or abs(int(text)) > FORTRAN_INT_MAX:
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


def _key(base: str, index: tuple[int, ...] | None) -> str:
    return base if index is None else f"{base}({','.join(map(str, index))})"


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

    def name(self, tok: _Token) -> None:
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

    def comma(self, tok: _Token) -> None:
        if not self.after_value and self.base is not None:
            self._assign(1, None, tok.line)  # a null value leaves an element as it was
        self.after_value = False

    def value(self, tok: _Token) -> None:
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
                key = _key(self.base, self.index)
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
    for item in _lex_group(lines, start, col):
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


def _scan_groups(lines: list[str]) -> list[_Group]:
    """Every namelist group of the file, in order."""
    groups: list[_Group] = []
    budget = [MAX_ASSIGNMENTS]
    candidates = [i for i, line in enumerate(lines) if "&" in line]
    next_free = 0
    for i in candidates:
        if i < next_free:
            continue
        m = _GROUP_START.match(lines[i])
        if m is None or m.group(1).lower() == "end":
            continue
        if len(groups) >= MAX_GROUPS:
            break  # an input has a handful; the rest is read as cards (and ignored)
        group = _read_group(lines, i, m.group(1).lower(), m.end(), budget)
        groups.append(group)
        next_free = max(group.end_line, i + 1)
    return groups


# ==================================================================================================
# Effective values


@dataclass(frozen=True)
class Effective:
    """The value pw.x 6.7 uses for one setting, and how it came to be."""

    setting: str
    value: Any = None
    origin: Literal["input", "default", "rule", "forced", "unknown", "error"] = "default"
    note: str = ""
    written: Any = None  # the value as written in the input, when it was

    @property
    def known(self) -> bool:
        """Whether the grader can tell the value."""
        return self.origin not in ("unknown", "error")

    def describe(self, unit: str | None = None) -> str:
        """Human-readable value and provenance."""
        u = f" {unit}" if unit and is_finite_number(self.value) else ""
        shown = "not set" if self.value is None else f"{_fmt(self.value)}{u}"
        if self.origin == "input":
            return shown + (f" ({self.note})" if self.note else "")
        if self.origin == "default":
            return f"{shown} (not in the input: pw.x 6.7 default{': ' + self.note if self.note else ''})"
        if self.origin == "rule":
            return f"{shown} (not in the input: {self.note})"
        if self.origin == "forced":
            written = "" if self.written is None else f"; the input's {_fmt(self.written)} is overridden"
            return f"{shown} ({self.note}{written})"
        return self.note


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return ".true." if value else ".false."
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, str):
        return repr(value)
    return str(value)


class _Undetermined(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _split_key(key: str) -> tuple[str, str | None]:
    base, _, rest = key.partition("(")
    return base, (rest[:-1] if rest else None)


class Evaluator:
    """Effective values of curated settings, by the table's defaults and rules (one generic procedure)."""

    def __init__(self, values: Mapping[str, Any], table: QeTable | None = None) -> None:
        self.values = values
        self.table = table or qe_table()
        self._cache: dict[str, Effective] = {}
        self._stack: set[str] = set()

    def is_set(self, base: str) -> bool:
        """Whether the input gives the setting (any element, for arrays) with a value pw.x counts as given."""
        spec = self.table.variables.get(base)
        keys = [k for k in self.values if k == base or k.startswith(base + "(")]
        if spec is None or spec.unset_when is None:
            return bool(keys)
        return any(not self._holds(spec.unset_when, self.values[k]) for k in keys)

    def written(self, key: str) -> tuple[bool, Any]:
        """(given, value) as written, with `unset_when` values counted as not given."""
        if key not in self.values:
            return False, None
        spec = self.table.variables.get(_split_key(key)[0])
        raw = self.values[key]
        if spec is not None and spec.unset_when is not None and self._holds(spec.unset_when, raw):
            return False, raw
        return True, raw

    def effective(self, key: str) -> Effective:
        """The value pw.x uses for `key` ('system.ecutrho', 'system.starting_magnetization(2)')."""
        if key in self._cache:
            return self._cache[key]
        if key in self._stack:
            raise GraderConfigError(f"{TABLE_FILE}: rules of {key} depend on themselves")
        self._stack.add(key)
        try:
            result = self._effective(key)
        except _Undetermined as exc:
            result = Effective(key, None, "unknown", exc.reason)
        finally:
            self._stack.discard(key)
        self._cache[key] = result
        return result

    def _effective(self, key: str) -> Effective:
        base, _ = _split_key(key)
        spec = self.table.variables.get(base)
        given, raw = self.written(key)
        if spec is None:  # declared but not curated: only what the input says is known
            if given:
                return Effective(key, raw.rstrip() if isinstance(raw, str) else raw, "input", written=raw)
            return Effective(key, None, "unknown", f"{key} is not in the input and the grader knows no default")
        for rule in spec.rules:
            if rule.force and self._matches(rule.when):
                value = self._expr(rule.value)
                shown_written = raw if given and raw != value else None
                return Effective(key, value, "forced", rule.note or "set by pw.x", shown_written)
        if given:
            return self._canonical(key, spec, raw)
        for rule in spec.rules:
            if not rule.force and self._matches(rule.when):
                return Effective(key, self._expr(rule.value), "rule", rule.note or _describe_when(rule.when))
        value = self._expr(spec.default)
        return Effective(key, value, "default", _describe_expr(spec.default) or (spec.note or ""))

    def _canonical(self, key: str, spec: VarSpec, raw: Any) -> Effective:
        value = raw
        note = ""
        if spec.type == "str":
            text = str(raw).rstrip()  # Fortran TRIM
            if spec.values is not None:
                canon = canonical_spelling(spec, text, exact=spec.case_sensitive)
                if canon is None:
                    accepted = sorted({s for spellings in spec.values.values() for s in spellings if s})
                    if isinstance(spec.unknown_value, Fallback):
                        fb = spec.unknown_value
                        return Effective(key, fb.fallback, "forced", f"{fb.note}: {text!r} is not a spelling it knows")
                    return Effective(
                        key,
                        None,
                        "error",
                        f"pw.x 6.7 stops: {key} = {text!r} is not accepted (accepted spellings: {accepted})",
                        raw,
                    )
                value = canon
                if canon != text:
                    note = f"written {text!r}"
            else:
                value = text if spec.case_sensitive else text.lower()
        if spec.clamp is not None and is_finite_number(value):
            lo, hi = spec.clamp
            clamped = min(max(float(value), lo), hi)
            if clamped != value:
                note = f"written {_fmt(raw)}, brought into [{lo:g}, {hi:g}] by pw.x"
            value = clamped
        return Effective(key, value, "input", note, raw)

    def _expr(self, expr: Any) -> Any:
        if isinstance(expr, DependsOn):
            raise _Undetermined(f"not in the input: pw.x 6.7 takes it from the {expr.depends_on} files")
        if isinstance(expr, MinOf):
            return min(self._expr(t) for t in expr.min_of)
        if isinstance(expr, Term):
            eff = self.effective(expr.of)
            if not eff.known:
                raise _Undetermined(f"depends on {expr.of}: {eff.note}")
            if not is_finite_number(eff.value):
                raise _Undetermined(f"depends on {expr.of}, which is not set")
            return float(eff.value) * expr.times
        return expr

    def matches(self, cond: Condition) -> bool | None:
        """Whether the condition holds; None when it depends on a value the grader cannot tell."""
        try:
            return self._matches(cond)
        except _Undetermined:
            return None

    def _matches(self, cond: Condition) -> bool:
        for name, pred in cond.items():
            if isinstance(pred, list):
                pred = Predicate(**{"in": pred})
            if pred.is_set is not None and self.is_set(name) != pred.is_set:
                return False
            if pred.is_set is False:
                continue  # nothing else to compare on an absent setting
            if pred.of_input:
                if name not in self.values:
                    return False  # nothing written to test
                value = self.values[name]
            else:
                eff = self.effective(name) if not self.table.variables[name].per_species else None
                if eff is not None and not eff.known:
                    raise _Undetermined(f"{name}: {eff.note}")
                value = eff.value if eff is not None else None
            if not self._holds(pred, value):
                return False
        return True

    def _holds(self, pred: Predicate, value: Any) -> bool:
        if pred.in_ is not None and value not in pred.in_:
            return False
        if pred.not_in is not None and value in pred.not_in:
            return False
        checks = (
            (pred.lt, operator.lt),
            (pred.le, operator.le),
            (pred.gt, operator.gt),
            (pred.ge, operator.ge),
            (pred.eq, operator.eq),
            (pred.ne, operator.ne),
        )
        for bound, op in checks:
            if bound is None:
                continue
            if not is_finite_number(value):
                return False
            if not op(float(value), float(self._expr(bound))):
                return False
        return True


def canonical_spelling(spec: VarSpec, text: str, *, exact: bool) -> str | None:
    """The canonical value a spelling stands for, or None."""
    assert spec.values is not None
    for canon, spellings in spec.values.items():
        for s in [*spellings, canon] if not exact else spellings:
            if (s == text) if exact else (s.lower() == text.lower()):
                return canon
    return None


def _describe_expr(expr: Any) -> str:
    if isinstance(expr, Term):
        return f"{_fmt(expr.times)} × {expr.of}" if expr.times != 1 else expr.of
    if isinstance(expr, MinOf):
        return "min(" + ", ".join(_describe_expr(t) if isinstance(t, Term) else _fmt(t) for t in expr.min_of) + ")"
    return ""


def _describe_when(cond: Condition) -> str:
    parts = []
    for name, pred in cond.items():
        if isinstance(pred, list):
            parts.append(f"{name} in {pred}")
        else:
            parts.append(f"{name} {pred.model_dump(exclude_defaults=True, by_alias=True)}")
    return "pw.x 6.7 rule when " + " and ".join(parts)


def fatal_problems(pw: PwInput) -> list[Problem]:
    """Table rules on which pw.x stops, in the order pw.x checks them."""
    ev = Evaluator(pw.values)
    found: list[Problem] = []
    for key in pw.values:  # values pw.x rejects as it reads them (calculation='SCF', smearing='COLD')
        if _split_key(key)[0] in qe_table().variables:
            eff = ev.effective(key)
            if eff.origin == "error":
                found.append(
                    Problem(eff.note.removeprefix("pw.x 6.7 stops: "), pw.lines.get(key), (_split_key(key)[0],))
                )
    for rule in qe_table().fatal:
        if ev.matches(rule.when):
            involves = tuple(rule.involves or rule.when.keys())
            lines = [pw.lines[k] for k in pw.lines if _split_key(k)[0] in involves]
            found.append(Problem(f"{rule.message} ({rule.source})", min(lines) if lines else None, involves))
    return found


# ==================================================================================================
# Reading the namelists in pw.x's order


def _read_namelists(
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


# ==================================================================================================
# Cards


class _CardState:
    def __init__(self, lines: list[str], values: Mapping[str, Any]) -> None:
        self.lines = lines
        self.values = values
        self.species: list[Species] = []
        self.positions: Positions | None = None
        self.cell: CellCard | None = None
        self.kpoints: KPoints | None = None
        self.problems: list[Problem] = []
        self.notes: list[str] = []

    def problem(self, message: str, line: int | None, card: str) -> None:
        self.problems.append(Problem(message, line, (card,)))

    def data_line(self, i: int) -> tuple[int, str | None]:
        """pw.x's read_line: the next line that is not blank and does not start with '#'."""
        while i < len(self.lines):
            line = self.lines[i][:CARD_LINE_CHARS]
            i += 1
            if line.strip() and not line.startswith("#"):
                return i, line
        return i, None

    def count(self, name: str) -> int | None:
        value = self.values.get(f"system.{name}")
        return value if isinstance(value, int) and not isinstance(value, bool) else None


def _card_option(card: str, header: str, line: int, state: _CardState) -> str | None:
    spec: CardSpec = getattr(qe_table().cards, card)
    upper = header.upper()
    for substring, option in spec.options:
        if substring in upper[len(card) :]:
            return option
    if header.strip() == card or spec.unknown_option == "bare":
        if header.strip() == card and card != "K_POINTS":
            meaning = spec.note or spec.bare
            state.notes.append(f"line {line}: {card} without units (deprecated): pw.x 6.7 assumes {meaning}")
        return spec.bare
    state.problem(f"unknown option for {card}: {show(header.strip())!r}", line, card)
    return None


def _list_items(line: str) -> list[str]:
    """Items of a Fortran list-directed READ: separated by blanks or commas, ending at '/'."""
    return [t for t in re.split(r"[\s,]+", line.split("/", 1)[0].strip()) if t]


def _read_species(state: _CardState, header: str, i: int) -> int:
    line_no = i
    ntyp = state.count("ntyp")
    if ntyp is None or not 1 <= ntyp <= 10:
        state.problem("ATOMIC_SPECIES: system.ntyp must be set (1 to 10) to read it", line_no, "ATOMIC_SPECIES")
        return i
    for _ in range(ntyp):
        i, line = state.data_line(i)
        if line is None:
            state.problem("ATOMIC_SPECIES: end of file before all ntyp species", line_no, "ATOMIC_SPECIES")
            return i
        items = _list_items(line)
        mass = fortran_real(items[1]) if len(items) >= 3 else None
        if mass is None:
            state.problem(f"cannot read atomic species from {show(line.strip())!r}", i, "ATOMIC_SPECIES")
            continue
        label = items[0]
        if len(label) > 3:
            state.problem(f"species label {label!r} is longer than 3 characters (pw.x cuts it)", i, "ATOMIC_SPECIES")
            continue
        if any(s.label == label for s in state.species):
            state.problem(f"two occurrences of the same atomic label {label!r}", i, "ATOMIC_SPECIES")
            continue
        state.species.append(Species(label, mass, items[2], i))
    return i


def _read_positions(state: _CardState, header: str, i: int) -> int:
    line_no = i
    unit = _card_option("ATOMIC_POSITIONS", header, line_no, state)
    if not state.species:
        state.problem("ATOMIC_SPECIES must be present before ATOMIC_POSITIONS", line_no, "ATOMIC_POSITIONS")
        return i
    nat = state.count("nat")
    if unit is None or nat is None or nat < 1:
        return i
    if unit == "crystal_sg":
        state.problem("crystal_sg (Wyckoff) positions are not supported by this grader", line_no, "ATOMIC_POSITIONS")
        return i
    labels: list[str] = []
    coords: list[tuple[float, float, float]] = []
    known = {s.label for s in state.species}
    for _ in range(nat):
        i, line = state.data_line(i)
        if line is None:
            state.problem("end of file reading atomic positions", line_no, "ATOMIC_POSITIONS")
            return i
        fields = line.split("!", 1)[0].split()
        if len(fields) not in (4, 7):
            state.problem("wrong number of columns in ATOMIC_POSITIONS", i, "ATOMIC_POSITIONS")
            continue
        xyz = [fortran_real(f) if _REAL.match(f) else eval_infix(f) for f in fields[1:4]]
        if any(v is None for v in xyz):
            state.problem(f"cannot read a position from {show(line.strip())!r}", i, "ATOMIC_POSITIONS")
            continue
        if fields[0] not in known:
            state.problem(f"species {fields[0]} in ATOMIC_POSITIONS is nonexistent", i, "ATOMIC_POSITIONS")
            continue
        labels.append(fields[0])
        coords.append((float(xyz[0]), float(xyz[1]), float(xyz[2])))  # type: ignore[arg-type]
    state.positions = Positions(unit, tuple(labels), tuple(coords), line_no)
    return i


def _read_cell(state: _CardState, header: str, i: int) -> int:
    line_no = i
    unit = _card_option("CELL_PARAMETERS", header, line_no, state) or "none"
    vectors: list[tuple[float, float, float]] = []
    for _ in range(3):
        i, line = state.data_line(i)
        items = _list_items(line) if line is not None else []
        nums = [fortran_real(t) for t in items[:3]]
        if len(nums) < 3 or any(v is None for v in nums):
            state.problem("CELL_PARAMETERS: three real numbers expected per line", i, "CELL_PARAMETERS")
            return i
        vectors.append((float(nums[0]), float(nums[1]), float(nums[2])))  # type: ignore[arg-type]
    state.cell = CellCard(unit, tuple(vectors), line_no)
    return i


def _read_kpoints(state: _CardState, header: str, i: int) -> int:
    line_no = i
    kind = _card_option("K_POINTS", header, line_no, state) or "tpiba"
    upper = header.upper()
    if kind in ("tpiba", "crystal"):
        kind += "_b" if "_B" in upper else "_c" if "_C" in upper else ""
    if kind == "gamma":
        state.kpoints = KPoints("gamma", line=line_no)
        return i
    i, line = state.data_line(i)
    items = _list_items(line) if line is not None else []
    if kind == "automatic":
        ints = [int(t) if _INT.match(t) and len(t) < 10 else None for t in items[:6]]
        if len(ints) < 6 or any(v is None for v in ints):
            state.problem("K_POINTS automatic: six integers nk1 nk2 nk3 k1 k2 k3 expected", i, "K_POINTS")
            return i
        nk1, nk2, nk3, k1, k2, k3 = (int(v) for v in ints)  # type: ignore[arg-type]
        if min(nk1, nk2, nk3) <= 0:
            state.problem("invalid values for nk1, nk2, nk3", i, "K_POINTS")
            return i
        if any(k not in (0, 1) for k in (k1, k2, k3)):
            state.problem("invalid offsets: must be 0 or 1", i, "K_POINTS")
            return i
        state.kpoints = KPoints("automatic", (nk1, nk2, nk3), (k1, k2, k3), line=line_no)
        return i
    if not items or not _INT.match(items[0]) or len(items[0]) > 9:
        state.problem("K_POINTS: the number of k-points is missing", i, "K_POINTS")
        return i
    nks = int(items[0])
    if not 1 <= nks <= MAX_KPOINTS:
        state.problem(f"K_POINTS: {nks} k-points (1 to {MAX_KPOINTS} allowed)", i, "K_POINTS")
        return i
    points: list[tuple[float, float, float, float]] = []
    for _ in range(nks):
        i, line = state.data_line(i)
        nums = [fortran_real(t) for t in (_list_items(line) if line is not None else [])[:4]]
        if len(nums) < 4 or any(v is None for v in nums):
            state.problem("K_POINTS: x y z weight expected for each k-point", i, "K_POINTS")
            return i
        points.append(tuple(float(v) for v in nums))  # type: ignore[arg-type]
    state.kpoints = KPoints(kind, points=tuple(points), line=line_no)
    return i


_CARD_READERS = {
    "ATOMIC_SPECIES": _read_species,
    "ATOMIC_POSITIONS": _read_positions,
    "CELL_PARAMETERS": _read_cell,
    "K_POINTS": _read_kpoints,
}


def _read_cards(lines: list[str], start: int, values: Mapping[str, Any]) -> _CardState:
    state = _CardState(lines, values)
    known = qe_table().cards.known
    prefixes = tuple(known)
    seen: set[str] = set()
    ignored = 0
    i = start
    while i < len(lines):
        line = lines[i][:CARD_LINE_CHARS]
        i += 1
        stripped = line.strip()
        if not stripped or line[0] in "#!":
            continue
        m = _FIRST_WORD.match(stripped)
        first = m.group(0) if m is not None else stripped
        if first in known:
            if first in seen:
                state.problem(f"card {first} appears twice", i, first)
                continue
            seen.add(first)
            reader = _CARD_READERS.get(first)
            if reader is not None:
                i = reader(state, line, i)
            continue
        ignored += 1
        if ignored > 10:
            continue  # enough said; the rest is skipped as pw.x skips it
        upper = first.upper()
        if upper.startswith(prefixes):
            hint = next(k for k in known if upper.startswith(k))
            state.notes.append(
                f"line {i}: {show(first)!r} is not a card for pw.x 6.7, which ignores it (write {hint} in upper "
                "case, followed by a blank before its option)"
            )
        else:
            state.notes.append(f"line {i}: ignored by pw.x ({show(stripped)!r})")
    if state.kpoints is None and "K_POINTS" not in seen:
        state.kpoints = KPoints("gamma", absent=True)
    for card in ("ATOMIC_SPECIES", "ATOMIC_POSITIONS"):
        if card not in seen:
            state.problems.append(Problem(f"card {card} is missing", None, (card,)))
    return state


# ==================================================================================================
# Arithmetic in ATOMIC_POSITIONS (pw.x evaluates + - * / ^ and parentheses there)

_INFIX = re.compile(r"\s*(?:((?:\d+\.?\d*|\.\d+)(?:[eEdD][+-]?\d+)?)|(\S))")


def eval_infix(text: str) -> float | None:
    """The value of an arithmetic expression like '1/3' or '2*(1/8)', or None; never executes anything."""
    if len(text) > MAX_TOKEN_CHARS:
        return None
    tokens: list[str | float] = []
    pos = 0
    while pos < len(text):
        m = _INFIX.match(text, pos)
        if m is None:
            break
        number, op = m.groups()
        if number is not None:
            tokens.append(float(number.translate(str.maketrans("dD", "eE"))))
        elif op in "+-*/^()":
            tokens.append(op)
        else:
            return None
        pos = m.end()
    parser = _InfixParser(tokens)
    try:
        value = parser.expr(0)
    except (ValueError, ZeroDivisionError, OverflowError, IndexError, RecursionError):
        return None
    if parser.pos != len(tokens) or not math.isfinite(value):
        return None
    return value


class _InfixParser:
    MAX_DEPTH = 50

    def __init__(self, tokens: list[str | float]) -> None:
        self.tokens, self.pos = tokens, 0

    def peek(self) -> str | float | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str | float:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def expr(self, depth: int) -> float:
        if depth > self.MAX_DEPTH:
            raise ValueError("nested too deeply")
        value = self.term(depth)
        while self.peek() in ("+", "-"):
            value = value + self.term(depth) if self.take() == "+" else value - self.term(depth)
        return value

    def term(self, depth: int) -> float:
        value = self.unary(depth)
        while self.peek() in ("*", "/"):
            value = value * self.unary(depth) if self.take() == "*" else value / self.unary(depth)
        return value

    def unary(self, depth: int) -> float:
        if self.peek() in ("+", "-"):
            sign = -1.0 if self.take() == "-" else 1.0
            return sign * self.unary(depth + 1)
        base = self.primary(depth)
        if self.peek() == "^":
            self.take()
            return math.pow(base, self.unary(depth + 1))
        return base

    def primary(self, depth: int) -> float:
        tok = self.take()
        if isinstance(tok, float):
            return tok
        if tok == "(":
            value = self.expr(depth + 1)
            if self.take() != ")":
                raise ValueError("unbalanced parentheses")
            return value
        raise ValueError(f"unexpected {tok!r}")


# ==================================================================================================
# Parsing an input


def parse_pw_input(text: str, name: str = "pw.in") -> PwInput:
    """Read a pw.x input as pw.x 6.7 does; SubmissionError when it is not a pw.x input at all."""
    if text.count("\n") >= MAX_LINES:
        raise SubmissionError(f"{name}: more than {MAX_LINES} lines is not a plausible pw.x input")
    lines = [ln.rstrip("\r") for ln in text.split("\n")]
    groups = _scan_groups(lines)
    if not any(g.name in ("control", "system", "electrons") for g in groups):
        raise SubmissionError(f"{name}: not a pw.x input (no &CONTROL, &SYSTEM or &ELECTRONS namelist)")
    values, value_lines, read, cards_start, problems, notes = _read_namelists(groups)
    cards = _read_cards(lines, cards_start, values)
    all_problems = (problems + cards.problems)[:MAX_PROBLEMS]
    return PwInput(
        name=name,
        values=values,
        lines=value_lines,
        namelists=tuple(read),
        species=tuple(cards.species),
        positions=cards.positions,
        cell=cards.cell,
        kpoints=cards.kpoints,
        problems=tuple(all_problems),
        notes=tuple(notes + cards.notes),
    )


@functools.lru_cache(maxsize=4)
def _parse_cached(text: str, name: str) -> PwInput:
    return parse_pw_input(text, name)


def read_pw_input(ctx: CheckContext[Any]) -> PwInput:
    """The check's target file, read safely from the submission and parsed (cached across checks)."""
    file = ctx.check.target.file
    return _parse_cached(ctx.submission.read_text(file), file)


# ==================================================================================================
# Elements, cell and structure


def label_element(label: str) -> str | None:
    """The element pw.x associates with a species label (upflib atomic_number: 'Fe1' -> Fe, 'C_h' -> C)."""
    if not label:
        return None
    if len(label) == 1 or label[1].isdigit() or label[1] in "-_":
        symbol = label[0].upper()
    else:
        symbol = label[0].upper() + label[1].lower()
    return symbol if _is_element(symbol) else None


def pseudo_element(filename: str) -> str | None:
    """The element a pseudopotential file name starts with ('Fe.pbe-spn-...', 'fe_pbe_v1.5...'), if any."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    m = re.match(r"([A-Za-z]{1,2})(?=[^A-Za-z]|$)", base)
    if m is None:
        return None
    symbol = m.group(1).capitalize()
    return symbol if _is_element(symbol) else None


def pseudo_functional(filename: str) -> str | None:
    """The functional family named in a pseudopotential file name ('Si.pbesol-n-rrkjus' -> pbesol), if any."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1].lower()
    tokens = _functional_tokens()
    found = {tokens[w] for w in re.split(r"[^a-z0-9]+", base) if w in tokens}
    return found.pop() if len(found) == 1 else None


def functional_family(name: str) -> str | None:
    """A functional or family name ('PBE', 'pz', 'lda') -> family, or None."""
    tokens = _functional_tokens()
    lowered = name.strip().lower()
    if lowered in tokens:
        return tokens[lowered]
    found = {tokens[w] for w in re.split(r"[^a-z0-9]+", lowered) if w in tokens}
    return found.pop() if len(found) == 1 else None


@functools.cache
def _is_element(symbol: str) -> bool:
    try:
        Element(symbol)
    except ValueError:
        return False
    return True


def species_element(sp: Species) -> str | None:
    """The element of a species: the pseudopotential's when its file name says, else the label's."""
    return pseudo_element(sp.pseudo) or label_element(sp.label)


def _number(value: Any) -> str:
    return repr(float(value))


def _cell_text(pw: PwInput) -> str:
    """A minimal canonical pw.x text for qe-tools: only validated numbers, one dummy atom."""
    keys = ["ibrav", *[f"celldm({i})" for i in range(1, 7)], "a", "b", "c", "cosab", "cosac", "cosbc"]
    body = [f"  ibrav = {int(pw.values['system.ibrav'])}"]
    for k in keys[1:]:
        v = pw.values.get(f"system.{k}")
        if is_finite_number(v) and v != 0:
            body.append(f"  {k} = {_number(v)}")
    text = "&SYSTEM\n" + "\n".join(body) + "\n  nat = 1\n  ntyp = 1\n/\n"
    text += "ATOMIC_SPECIES\nX 1.0 X.UPF\nATOMIC_POSITIONS crystal\nX 0.0 0.0 0.0\n"
    if pw.cell is not None:
        text += f"CELL_PARAMETERS {_cell_unit(pw)}\n"
        text += "".join(" ".join(_number(x) for x in vec) + "\n" for vec in pw.cell.vectors)
    return text + "K_POINTS gamma\n"


def _alat_given(pw: PwInput) -> bool:
    return any(is_finite_number(pw.values.get(k)) and pw.values[k] != 0 for k in ("system.celldm(1)", "system.a"))


def _cell_unit(pw: PwInput) -> str:
    assert pw.cell is not None
    if pw.cell.unit != "none":
        return pw.cell.unit
    return "alat" if _alat_given(pw) else "bohr"  # cell_base_init


def pw_cell(pw: PwInput) -> np.ndarray:
    """The cell (rows = lattice vectors, Å) pw.x builds; SubmissionError naming the problem otherwise."""
    ibrav = pw.values.get("system.ibrav")
    if not isinstance(ibrav, int) or isinstance(ibrav, bool):
        raise SubmissionError(f"{pw.name}: ibrav is not set")
    if ibrav == 0 and pw.cell is None:
        raise SubmissionError(f"{pw.name}: ibrav=0 needs a CELL_PARAMETERS card")
    if ibrav != 0 and pw.cell is not None:
        raise SubmissionError(f"{pw.name}: redundant data for cell parameters (ibrav={ibrav} and CELL_PARAMETERS)")
    if pw.cell is not None and _cell_unit(pw) in ("bohr", "angstrom") and _alat_given(pw):
        raise SubmissionError(f"{pw.name}: lattice parameter specified twice (celldm(1) or A, and CELL_PARAMETERS)")
    if all(is_finite_number(pw.values.get(k)) and pw.values[k] != 0 for k in ("system.celldm(1)", "system.a")):
        raise SubmissionError(f"{pw.name}: do not specify both celldm and A, B, C")
    try:
        parsed = PwInputFile(_cell_text(pw), validate_species_names=False)
        cell = np.array(parsed.structure["cell"], dtype=float)
    except Exception as exc:  # qe-tools raises many types (KeyError, InputValidationError...) on bad cells
        why = " ".join(f"{type(exc).__name__}: {exc}".split())
        raise SubmissionError(f"{pw.name}: no cell from ibrav={ibrav} and its parameters ({why})"[:400]) from None
    if ibrav == -9:
        # qe-tools 2.3.0 swaps v1 and v2 of ibrav=-9; pw.x 6.7 (latgen.f90) has v1=(a/2,-b/2,0), v2=(a/2,b/2,0).
        cell = cell[[1, 0, 2]]
    if cell.shape != (3, 3) or not np.all(np.isfinite(cell)) or abs(float(np.linalg.det(cell))) < 1e-6:
        raise SubmissionError(f"{pw.name}: the cell has no volume")
    return cell


def _alat_ang(pw: PwInput, cell: np.ndarray) -> float:
    if is_finite_number(pw.values.get("system.celldm(1)")) and pw.values["system.celldm(1)"] != 0:
        return float(pw.values["system.celldm(1)"]) * BOHR_TO_ANG
    if is_finite_number(pw.values.get("system.a")) and pw.values["system.a"] != 0:
        return float(pw.values["system.a"])
    return float(np.linalg.norm(cell[0]))  # ibrav=0 without celldm/A: alat = |a1|


_POSITION_SCALE = {"angstrom": lambda pw, cell: 1.0, "bohr": lambda pw, cell: BOHR_TO_ANG, "alat": _alat_ang}


def pw_structure(pw: PwInput) -> Structure:
    """Cell, atoms and starting magnetic moments as a pymatgen Structure in Å.

    The `magmom` site property holds the sign of each species' starting magnetization (±1, 0 when zero or
    when the run is not spin-polarised): starting_magnetization is a fraction of the valence charge, not a
    moment, so only the pattern of signs (the magnetic order) is comparable. Non-collinear runs give vectors
    along angle1/angle2.
    """
    if pw.positions is None:
        raise SubmissionError(f"{pw.name}: no readable ATOMIC_POSITIONS card")
    card_problems = [p.text() for p in pw.problems if set(p.involves) & {"ATOMIC_POSITIONS", "ATOMIC_SPECIES"}]
    if card_problems:
        raise SubmissionError(f"{pw.name}: " + "; ".join(card_problems[:3]))
    nat = len(pw.positions.labels)
    if nat > MAX_SITES:
        raise SubmissionError(f"{pw.name}: {nat} atoms is over the {MAX_SITES}-site limit of this grader")
    cell = pw_cell(pw)
    coords = np.array(pw.positions.coords, dtype=float).reshape(-1, 3)
    unit = pw.positions.unit
    if unit == "crystal":
        cart = coords @ cell
    else:
        cart = coords * _POSITION_SCALE[unit](pw, cell)
    by_label = {sp.label: (i + 1, sp) for i, sp in enumerate(pw.species)}
    elements = []
    for label in pw.positions.labels:
        element = species_element(by_label[label][1])
        if element is None:
            raise SubmissionError(f"{pw.name}: no element for species {label!r} (label or pseudopotential name)")
        elements.append(element)
    moments = _moments(pw, [by_label[label][0] for label in pw.positions.labels])
    return Structure(Lattice(cell), elements, cart, coords_are_cartesian=True, site_properties={"magmom": moments})


def _moments(pw: PwInput, species_index: list[int]) -> list[list[float]]:
    ev = Evaluator(pw.values)
    nspin, noncolin = ev.effective("system.nspin").value, ev.effective("system.noncolin").value
    per_species: dict[int, list[float]] = {}
    for idx in set(species_index):
        m = ev.effective(f"system.starting_magnetization({idx})").value
        sign = 0.0 if nspin == 1 or not is_finite_number(m) or abs(m) < 1e-6 else math.copysign(1.0, m)
        if noncolin:
            theta = math.radians(ev.effective(f"system.angle1({idx})").value or 0.0)
            phi = math.radians(ev.effective(f"system.angle2({idx})").value or 0.0)
            vec = [math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi), math.cos(theta)]
            per_species[idx] = [sign * x for x in vec]
        else:
            per_species[idx] = [0.0, 0.0, sign]
    return [per_species[i] for i in species_index]


# ==================================================================================================
# Settings named by checks

_SETTING = re.compile(r"\s*&?([A-Za-z]+)\s*\.\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:\(\s*([^()]*?)\s*\))?\s*$")


@dataclass(frozen=True)
class SettingRef:
    """A setting named by a check: 'system.ecutrho', 'system.starting_magnetization(Fe1)', 'system.celldm(1)'."""

    base: str
    spec: VarSpec | None  # None: declared but not curated (only an explicit value can be graded)
    vtype: str
    dims: tuple[int, ...]
    index: str | None

    def keys(self, pw: PwInput) -> list[tuple[str, str]]:
        """(key, description) for each concrete element; SubmissionError when the species is not there."""
        if self.index is None:
            return [(self.base, self.base)]
        if re.fullmatch(r"[+-]?\d+(\s*,\s*[+-]?\d+)*", self.index):
            key = _key(self.base, tuple(int(x) for x in self.index.split(",")))
            if self.spec is not None and self.spec.per_species and int(self.index) > len(pw.species):
                raise SubmissionError(f"{key}: the input has only {len(pw.species)} species")
            return [(key, key)]
        by_label = [(i + 1, sp) for i, sp in enumerate(pw.species) if sp.label == self.index]
        matched = by_label or [(i + 1, sp) for i, sp in enumerate(pw.species) if species_element(sp) == self.index]
        if not matched:
            labels = [sp.label for sp in pw.species]
            raise SubmissionError(
                f"{self.base}({self.index}): no species labelled or of element {self.index!r} {labels}"
            )
        return [(_key(self.base, (i,)), f"{self.base}({i}: {sp.label})") for i, sp in matched]


def resolve_setting(text: str | None) -> SettingRef:
    """Validate a check's target.setting against the table (a grader error when it is wrong)."""
    m = _SETTING.match(text or "")
    if m is None:
        raise GraderConfigError(f"setting {text!r}: expected namelist.variable, e.g. system.ecutrho")
    nl, name, index = m.group(1).lower(), m.group(2).lower(), m.group(3)
    table = qe_table()
    decl = table.declarations.get(nl, {}).get(name)
    if decl is None:
        raise GraderConfigError(f"setting {text!r}: pw.x 6.7 has no variable {name!r} in namelist &{nl}")
    vtype, dims = parse_declaration(decl)
    spec = table.variables.get(f"{nl}.{name}")
    if dims and index is None:
        raise GraderConfigError(f"setting {text!r}: {name} is an array; name an element, e.g. {name}(1)")
    if not dims and index is not None:
        raise GraderConfigError(f"setting {text!r}: {name} is not an array")
    numeric_index = index is not None and re.fullmatch(r"[+-]?\d+(\s*,\s*[+-]?\d+)*", index)
    if index is not None and not numeric_index:
        if spec is None or not spec.per_species:
            raise GraderConfigError(f"setting {text!r}: only per-species arrays take a species label or element")
    if numeric_index and index is not None:
        idx = tuple(int(x) for x in index.split(","))
        if len(idx) != len(dims) or any(not 1 <= i <= d for i, d in zip(idx, dims, strict=False)):
            raise GraderConfigError(f"setting {text!r}: index out of the array's bounds {dims}")
    return SettingRef(f"{nl}.{name}", spec, vtype, dims, index.replace(" ", "") if index else None)


def canonical_expected(ref: SettingRef, value: Any) -> Any:
    """A grader's expected value in the setting's canonical form (aliases resolved, any letter case)."""
    where = f"expected value {value!r} for {ref.base}"
    if ref.vtype == "bool":
        if not isinstance(value, bool):
            raise GraderConfigError(f"{where}: not a boolean")
        return value
    if ref.vtype == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise GraderConfigError(f"{where}: not an integer")
        return value
    if ref.vtype == "float":
        if not is_finite_number(value):
            raise GraderConfigError(f"{where}: not a finite number")
        return float(value)
    if not isinstance(value, str):
        raise GraderConfigError(f"{where}: not a string")
    spec = ref.spec
    if spec is not None and spec.values is not None:
        canon = canonical_spelling(spec, value.strip(), exact=False)
        if canon is None:
            raise GraderConfigError(f"{where}: pw.x 6.7 knows no such value (known: {sorted(spec.values)})")
        return canon
    return value.strip() if spec is None or spec.case_sensitive else value.strip().lower()


def effective_value(pw: PwInput, key: str) -> Effective:
    """The effective value of one concrete setting key; a pw.x stop involving it makes it an error."""
    eff = Evaluator(pw.values).effective(key)
    base = _split_key(key)[0]
    stops = [p for p in [*pw.problems, *fatal_problems(pw)] if base in p.involves]
    if stops:
        return Effective(key, eff.value, "error", f"pw.x 6.7 stops: {stops[0].text()}", eff.written)
    return eff


# ==================================================================================================
# Check types


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ValidParams(_Params):
    """Parameters of qe.valid."""

    strict: bool = Field(
        default=False, description="Also fail on what pw.x only warns about (ignored lines, deprecated forms)"
    )


@register("qe.valid", params=ValidParams, needs_reference=False)
def valid(ctx: CheckContext[ValidParams]) -> Outcome:
    """pw.x 6.7 would accept the input: namelists, variables, values, cards and cell all readable."""
    pw = read_pw_input(ctx)
    problems = [p.text() for p in [*pw.problems, *fatal_problems(pw)]]
    if not problems and pw.values.get("system.ibrav") is not None:
        try:
            pw_cell(pw)
        except SubmissionError as exc:
            problems.append(str(exc).removeprefix(f"{pw.name}: "))
    notes = list(pw.notes)
    if problems:
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        return Outcome(False, f"{pw.name}: pw.x 6.7 would stop: " + "; ".join(problems[:5]) + more, None, problems[:20])
    if notes and ctx.params.strict:
        return Outcome(False, f"{pw.name}: pw.x 6.7 warns: " + "; ".join(notes[:5]), None, notes[:20])
    tail = f" (warnings: {'; '.join(notes[:3])})" if notes else ""
    return Outcome(True, f"{pw.name}: pw.x 6.7 would read this input{tail}", None, pw.namelists)


class RatioTo(_Params):
    """Bounds on this setting divided by another one."""

    setting: str = Field(description="The other setting, e.g. system.ecutwfc")
    min: float | None = Field(default=None, description="value / other must be at least this")
    max: float | None = Field(default=None, description="value / other must be at most this")


class ParamParams(_Params):
    """Parameters of qe.param (with or without a reference value)."""

    any_of: list[Any] | None = Field(default=None, min_length=1, description="Acceptable values (aliases allowed)")
    not_: list[Any] | None = Field(default=None, alias="not", min_length=1, description="Unacceptable values")
    min: float | None = Field(default=None, description="Lowest acceptable value")
    max: float | None = Field(default=None, description="Highest acceptable value")
    ratio_to: RatioTo | None = Field(default=None, description="Bounds on value / another setting")
    explicit: bool = Field(default=False, description="The input must write the setting (a default does not count)")


def _equal(ref: SettingRef, actual: Any, expected: Any, ctx: CheckContext[Any]) -> Outcome:
    if ref.vtype == "float":
        return compare_number(actual, expected, ctx.check.effective_tolerance, _unit(ref, ctx))
    ok = actual == expected
    return Outcome(ok, f"{'matches' if ok else 'differs from'} {_fmt(expected)}", expected, actual, 0.0 if ok else None)


def _unit(ref: SettingRef, ctx: CheckContext[Any]) -> str | None:
    return ctx.check.unit or (ref.spec.unit if ref.spec is not None else None)


@dataclass(frozen=True)
class _Wanted:
    """A qe.param check's requirements, resolved against the table before any submission is read."""

    ref: SettingRef
    expected: Any = None  # canonical reference value, when the check names one
    has_expected: bool = False
    options: tuple[Any, ...] | None = None
    banned: tuple[Any, ...] | None = None
    ratio_ref: SettingRef | None = None


def _wanted(ctx: CheckContext[ParamParams]) -> _Wanted:
    """Grader mistakes surface here, whatever the submission holds."""
    p = ctx.params
    ref = resolve_setting(ctx.check.target.setting)
    has_rule = any(x is not None for x in (p.any_of, p.not_, p.min, p.max, p.ratio_to)) or p.explicit
    if ctx.check.reference is None and not has_rule:
        raise GraderConfigError(f"check {ctx.check.id!r}: give a reference or any_of/not/min/max/ratio_to/explicit")
    if ref.spec is None and not p.explicit:
        raise GraderConfigError(
            f"check {ctx.check.id!r}: {ref.base} has no curated QE 6.7 default in {TABLE_FILE}; add one or set "
            "params.explicit: true"
        )
    if ref.vtype not in ("int", "float") and (p.min is not None or p.max is not None or p.ratio_to is not None):
        raise GraderConfigError(f"check {ctx.check.id!r}: min/max/ratio_to need a numeric setting")
    ratio_ref = None
    if p.ratio_to is not None:
        ratio_ref = resolve_setting(p.ratio_to.setting)
        if ratio_ref.index is not None or ratio_ref.vtype not in ("int", "float") or ratio_ref.spec is None:
            raise GraderConfigError(f"ratio_to.setting {p.ratio_to.setting!r}: a curated numeric scalar is needed")
    has_expected = ctx.check.reference is not None
    return _Wanted(
        ref=ref,
        expected=canonical_expected(ref, ctx.expected()) if has_expected else None,
        has_expected=has_expected,
        options=tuple(canonical_expected(ref, v) for v in p.any_of) if p.any_of is not None else None,
        banned=tuple(canonical_expected(ref, v) for v in p.not_) if p.not_ is not None else None,
        ratio_ref=ratio_ref,
    )


def _judge(want: _Wanted, eff: Effective, pw: PwInput, ctx: CheckContext[ParamParams]) -> Outcome:
    """One concrete setting against the check's reference and constraints."""
    p, ref = ctx.params, want.ref
    shown = eff.describe(_unit(ref, ctx))
    if not eff.known:
        return Outcome(False, f": {shown}", want.expected, None)
    if p.explicit and eff.origin != "input" and eff.written is None:
        return Outcome(False, f": not written in the input ({shown}); the check requires it", None, eff.value)
    value = eff.value
    failures: list[str] = []
    passes: list[str] = []
    deviation: float | None = None
    if want.has_expected:
        out = _equal(ref, value, want.expected, ctx)
        deviation = out.deviation
        (passes if out.passed else failures).append(f"reference: {out.message}")
    if want.options is not None:
        hit = any(_equal(ref, value, o, ctx).passed for o in want.options)
        (passes if hit else failures).append(f"{'one' if hit else 'none'} of {', '.join(map(_fmt, want.options))}")
    if want.banned is not None:
        hit = any(_equal(ref, value, o, ctx).passed for o in want.banned)
        excluded = ", ".join(map(_fmt, want.banned))
        (failures if hit else passes).append(f"{'one' if hit else 'none'} of the excluded {excluded}")
    for bound, name, op in ((p.min, "min", float.__ge__), (p.max, "max", float.__le__)):
        if bound is None:
            continue
        ok = is_finite_number(value) and op(float(value), float(bound))
        (passes if ok else failures).append(f"{name} {bound:g}")
    if p.ratio_to is not None and want.ratio_ref is not None:
        outcome = _ratio(want.ratio_ref, value, pw, p.ratio_to)
        (passes if outcome.passed else failures).append(outcome.message)
    verdict = "; ".join(failures) if failures else "; ".join(passes)
    return Outcome(
        not failures, f" = {shown}: {'fails ' if failures else ''}{verdict}", want.expected, value, deviation
    )


def _ratio(other_ref: SettingRef, value: Any, pw: PwInput, ratio: RatioTo) -> Outcome:
    other = effective_value(pw, other_ref.base)
    if not other.known or not is_finite_number(other.value) or other.value == 0 or not is_finite_number(value):
        return Outcome(False, f"ratio to {other_ref.base} cannot be computed ({other.describe()})")
    r = float(value) / float(other.value)
    ok = (ratio.min is None or r >= ratio.min) and (ratio.max is None or r <= ratio.max)
    bounds = " and ".join(
        s
        for s in (
            f">= {ratio.min:g}" if ratio.min is not None else "",
            f"<= {ratio.max:g}" if ratio.max is not None else "",
        )
        if s
    )
    return Outcome(ok, f"{r:.4g} × {other_ref.base} ({_fmt(other.value)}), required {bounds}")


@register("qe.param", params=ParamParams, needs_reference=False, numeric=True, thresholds=("min", "max", "ratio_to"))
def param(ctx: CheckContext[ParamParams]) -> Outcome:
    """The value pw.x 6.7 will use for one setting (defaults and rules applied) meets the reference/bounds."""
    want = _wanted(ctx)
    pw = read_pw_input(ctx)
    outcomes = [(desc, _judge(want, effective_value(pw, key), pw, ctx)) for key, desc in want.ref.keys(pw)]
    if len(outcomes) == 1:
        desc, out = outcomes[0]
        return Outcome(out.passed, f"{desc}{out.message}", out.expected, out.actual, out.deviation)
    passed = all(o.passed for _, o in outcomes)
    devs = [o.deviation for _, o in outcomes if o.deviation is not None]
    return Outcome(
        passed,
        "; ".join(f"{d}{o.message}" for d, o in outcomes),
        want.expected,
        [o.actual for _, o in outcomes],
        max(devs) if devs and passed else None,
    )


class KPointsParams(_Params):
    """Parameters of qe.kpoints. Without any, a reference value gives the expected mesh ([8, 8, 8] or 'gamma')."""

    kind: Literal["automatic", "gamma", "list"] | None = Field(
        default=None, description="Required card type; list = explicit tpiba/crystal points"
    )
    mesh: tuple[int, int, int] | None = Field(default=None, description="Exact automatic mesh")
    min_mesh: tuple[int, int, int] | None = Field(default=None, description="Each mesh dimension at least this")
    max_mesh: tuple[int, int, int] | None = Field(default=None, description="Each mesh dimension at most this")
    shift: tuple[int, int, int] | None = Field(default=None, description="Offsets as pw.x writes them (0 or 1 each)")
    max_spacing: float | None = Field(
        default=None, gt=0, description="Largest |b_i|/n_i in Å⁻¹, 2π included (the VASP KSPACING convention)"
    )
    gamma_as_mesh: bool = Field(
        default=True, description="Count K_POINTS gamma as an unshifted 1×1×1 mesh in mesh checks"
    )


@register("qe.kpoints", params=KPointsParams, needs_reference=False, thresholds=("min_mesh", "max_mesh", "max_spacing"))
def kpoints(ctx: CheckContext[KPointsParams]) -> Outcome:
    """The K_POINTS card: type, Monkhorst-Pack mesh and shift, or a maximum spacing."""
    p = ctx.params
    expected_mesh = p.mesh
    expected_kind = p.kind
    if ctx.check.reference is not None:
        value = ctx.expected()
        if value == "gamma":
            expected_kind = "gamma"
        elif isinstance(value, list) and len(value) == 3 and all(isinstance(v, int) for v in value):
            expected_mesh = (value[0], value[1], value[2])
        else:
            raise GraderConfigError(f"check {ctx.check.id!r}: reference must be [n1, n2, n3] or 'gamma'")
    if all(x is None for x in (expected_kind, expected_mesh, p.min_mesh, p.max_mesh, p.shift, p.max_spacing)):
        raise GraderConfigError(f"check {ctx.check.id!r}: give a reference or kind/mesh/min_mesh/max_spacing")
    pw = read_pw_input(ctx)
    card_problems = [x.text() for x in pw.problems if "K_POINTS" in x.involves]
    if card_problems:
        return Outcome(False, f"{pw.name}: K_POINTS: " + "; ".join(card_problems[:3]))
    kp = pw.kpoints or KPoints("gamma", absent=True)
    kind = "list" if kp.kind not in ("automatic", "gamma") else kp.kind
    what = (
        "no K_POINTS card (pw.x uses the Γ point only)"
        if kp.absent
        else "K_POINTS gamma (Γ only, gamma tricks)"
        if kp.kind == "gamma"
        else f"K_POINTS automatic {' '.join(map(str, kp.mesh or ()))} {' '.join(map(str, kp.shift or ()))}"
        if kp.kind == "automatic"
        else f"K_POINTS {kp.kind} with {len(kp.points)} explicit points"
    )
    mesh, shift = kp.mesh, kp.shift
    if kp.kind == "gamma" and p.gamma_as_mesh:
        mesh, shift = (1, 1, 1), (0, 0, 0)
    failures: list[str] = []
    if expected_kind is not None and kind != expected_kind:
        failures.append(f"card type {kind}, required {expected_kind}")
    needs_mesh = any(x is not None for x in (expected_mesh, p.min_mesh, p.max_mesh, p.shift, p.max_spacing))
    if needs_mesh and mesh is None:
        failures.append("no Monkhorst-Pack mesh to compare")
    if mesh is not None:
        if expected_mesh is not None and tuple(mesh) != tuple(expected_mesh):
            failures.append(f"mesh {list(mesh)} differs from {list(expected_mesh)}")
        if p.min_mesh is not None and any(n < m for n, m in zip(mesh, p.min_mesh, strict=True)):
            failures.append(f"mesh {list(mesh)} coarser than the minimum {list(p.min_mesh)}")
        if p.max_mesh is not None and any(n > m for n, m in zip(mesh, p.max_mesh, strict=True)):
            failures.append(f"mesh {list(mesh)} finer than the maximum {list(p.max_mesh)}")
        if p.shift is not None and shift is not None and tuple(shift) != tuple(p.shift):
            failures.append(f"shift {list(shift)} differs from {list(p.shift)}")
        if p.max_spacing is not None:
            recip = Lattice(pw_cell(pw)).reciprocal_lattice.abc
            spacing = [b / n for b, n in zip(recip, mesh, strict=True)]
            if max(spacing) > p.max_spacing:
                failures.append(
                    f"spacing {max(spacing):.3g} Å⁻¹ (|b|/n = {[round(s, 3) for s in spacing]}) "
                    f"exceeds {p.max_spacing:g}"
                )
    actual = {
        "kind": kp.kind,
        "mesh": list(kp.mesh) if kp.mesh else None,
        "shift": list(kp.shift) if kp.shift else None,
    }
    if failures:
        return Outcome(False, f"{what}: " + "; ".join(failures), expected_mesh or expected_kind, actual)
    return Outcome(True, f"{what}: meets the requirements", expected_mesh or expected_kind, actual)


class SpeciesParams(_Params):
    """Parameters of qe.species; a reference value, when named, is the list of elements."""

    elements: list[str] | None = Field(default=None, description="The set of elements the species must cover")
    functional: str | None = Field(
        default=None, description="Functional family every pseudopotential must be for (pbe, pbesol, lda ...)"
    )
    mass_rel_tol: float | None = Field(
        default=None, gt=0, description="Masses within this relative tolerance of the standard atomic weight"
    )
    pseudo_element_must_match: bool = Field(
        default=True, description="A pseudopotential file named for another element than its label fails"
    )


def _element_set(values: list[Any], where: str) -> set[str]:
    out = set()
    for v in values:
        if not isinstance(v, str) or not _is_element(v.strip().capitalize()):
            raise GraderConfigError(f"{where}: {v!r} is not an element symbol")
        out.add(v.strip().capitalize())
    return out


@register("qe.species", params=SpeciesParams, needs_reference=False)
def species(ctx: CheckContext[SpeciesParams]) -> Outcome:
    """ATOMIC_SPECIES: elements, one pseudopotential per species, functional family, masses."""
    p = ctx.params
    want = None
    if ctx.check.reference is not None:
        ref_value = ctx.expected()
        if not isinstance(ref_value, list):
            raise GraderConfigError(f"check {ctx.check.id!r}: reference must be a list of element symbols")
        want = _element_set(ref_value, f"check {ctx.check.id!r} reference")
    if p.elements is not None:
        want = _element_set(p.elements, f"check {ctx.check.id!r} elements")
    required_family = None
    if p.functional is not None:
        required_family = functional_family(p.functional)
        if required_family is None:
            raise GraderConfigError(f"check {ctx.check.id!r}: unknown functional {p.functional!r}")
    pw = read_pw_input(ctx)
    card_problems = [x.text() for x in pw.problems if "ATOMIC_SPECIES" in x.involves]
    if card_problems:
        return Outcome(False, f"{pw.name}: ATOMIC_SPECIES: " + "; ".join(card_problems[:3]))
    if not pw.species:
        return Outcome(False, f"{pw.name}: no species")
    failures: list[str] = []
    got: set[str] = set()
    described = []
    for sp in pw.species:
        by_label, by_pseudo = label_element(sp.label), pseudo_element(sp.pseudo)
        element = by_pseudo or by_label
        described.append(f"{sp.label}: {sp.pseudo}")
        if element is None:
            failures.append(f"species {sp.label!r}: no element from its label or pseudopotential {sp.pseudo!r}")
            continue
        got.add(element)
        if p.pseudo_element_must_match and by_label and by_pseudo and by_label != by_pseudo:
            failures.append(f"species {sp.label!r} ({by_label}) uses pseudopotential {sp.pseudo!r} of {by_pseudo}")
        standard = float(Element(element).atomic_mass)
        mass = sp.mass if sp.mass > 0 else standard  # pw.x replaces a mass <= 0 by the standard weight
        if p.mass_rel_tol is not None and abs(mass - standard) > p.mass_rel_tol * standard:
            failures.append(f"species {sp.label!r}: mass {mass:g} is not {element}'s {standard:.4g}")
    if want is not None and got != want:
        failures.append(f"elements {sorted(got)} differ from {sorted(want)}")
    if required_family is not None:
        failures.extend(_functional_failures(pw, required_family))
    summary = ", ".join(described)
    if failures:
        return Outcome(False, f"{summary}: " + "; ".join(failures), sorted(want) if want else None, sorted(got))
    return Outcome(True, f"{summary}: as required", sorted(want) if want else None, sorted(got))


def _functional_failures(pw: PwInput, family: str) -> list[str]:
    dft = Evaluator(pw.values).effective("system.input_dft")
    if dft.origin == "input":
        actual = functional_family(str(dft.value))
        if actual != family:
            return [f"input_dft = {dft.value!r} overrides the pseudopotentials and is not {family}"]
        return []
    failures = []
    for sp in pw.species:
        found = pseudo_functional(sp.pseudo)
        if found is None:
            failures.append(f"{sp.pseudo!r}: the file name does not say which functional it was made for")
        elif found != family:
            failures.append(f"{sp.pseudo!r} is a {found} pseudopotential, not {family}")
    return failures


class QeStructureParams(StructureParams):
    """Parameters of qe.structure: the structure tolerances plus the hidden reference."""

    reference_file: str = Field(description="Hidden reference beside reference.yaml: a pw.x input or structure file")
    reference_format: Literal["auto", "pw", "poscar", "cif", "extxyz"] = Field(
        default="auto", description="auto = pw.x input when the name ends in .in/.pwi, else by the structure family"
    )
    reference_magmom: list[float] | None = Field(
        default=None, description="Magnetic moments of the reference sites, when its file cannot carry them"
    )


def _reference_structure(ctx: CheckContext[QeStructureParams]) -> Structure:
    p = ctx.params
    fmt = p.reference_format
    if fmt == "auto":
        fmt = "pw" if p.reference_file.lower().endswith((".in", ".pwi", ".pw")) else "auto"
    if fmt == "pw":
        path = ctx.reference_file(p.reference_file)
        try:
            structure = pw_structure(parse_pw_input(path.read_text(encoding="utf-8"), p.reference_file))
        except SubmissionError as exc:
            raise GraderConfigError(f"check {ctx.check.id!r}: reference pw.x input: {exc}") from None
    else:
        structure = read_reference_structure(ctx, p.reference_file, fmt)
    if p.reference_magmom is not None:
        if len(p.reference_magmom) != len(structure):
            raise GraderConfigError(
                f"check {ctx.check.id!r}: reference_magmom has {len(p.reference_magmom)} values for "
                f"{len(structure)} reference sites"
            )
        structure = structure.copy(site_properties={"magmom": list(p.reference_magmom)})
    return structure


@register("qe.structure", params=QeStructureParams, needs_reference=False)
def structure(ctx: CheckContext[QeStructureParams]) -> Outcome:
    """Cell and positions (ibrav/celldm in bohr or A in Å) and magnetic order match the reference crystal."""
    expected = _reference_structure(ctx)
    actual = pw_structure(read_pw_input(ctx))
    return compare_structures(actual, expected, ctx.params)


__all__ = [
    "Effective",
    "Evaluator",
    "KPoints",
    "PwInput",
    "QeTable",
    "SettingRef",
    "canonical_expected",
    "effective_value",
    "eval_infix",
    "fatal_problems",
    "functional_family",
    "label_element",
    "parse_pw_input",
    "pseudo_element",
    "pseudo_functional",
    "pw_cell",
    "pw_structure",
    "qe_table",
    "resolve_setting",
]
