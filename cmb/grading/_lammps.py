"""Check family `lammps`: the effective settings of a LAMMPS input script, read without running LAMMPS.

The grader never runs the script: LAMMPS scripts can run `shell` and `python` commands, so even `run 0`
would execute agent code. Instead a small interpreter follows the part of LAMMPS that decides what a run
would use: line continuation, comments, quotes, variables and `$` substitution (numeric formulas are
evaluated by a tiny parser, never by `eval`), `include` of files inside the submission, loops built from
`label`/`jump`/`next`, `if` when its condition is statically known, and the defaults of LAMMPS (tabled in
data/lammps_defaults.yaml). It records the state at every `run` and `minimize` (a *stage*); checks read a
setting at the last stage (or at every/any stage), so a fix defined after the last run never counts.

What cannot be known splits three ways:
- LAMMPS itself would stop (undefined variable, `units` after the box exists, wrong number of elements in a
  many-body `pair_coeff` ...): every check on the script fails with that message;
- the grader cannot follow the script (a file outside the submission, nesting or loops past the limits):
  every check fails, saying so;
- a value is known only at run time, or control flow depends on one: only the settings it may change become
  `Unknown`, and only the checks that read them fail.
"""

from __future__ import annotations

import functools
import math
import posixpath
import re
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Literal, cast

import yaml
from pydantic import BaseModel, ConfigDict, Field

from cmb.grading._compare import compare_number, show
from cmb.grading._registry import CheckContext, GraderConfigError, Outcome, register
from cmb.grading._submission import Submission, SubmissionError
from cmb.models import Tolerance

# Bounds that keep hostile scripts cheap; no real input script comes near them.
MAX_COMMANDS = 50_000
MAX_CHARS = 20_000_000
MAX_LINE = 100_000
MAX_NESTING = 16
MAX_READ_BYTES = 64 * 1024 * 1024
MAX_FORMULA_DEPTH = 40
MAX_STAGES = 2_000
MAX_SNAPSHOT_ITEMS = 2_000_000
MAX_TYPES = 10_000

_WS = " \t\n\v\f\r"
_FLOAT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INT = re.compile(r"[+-]?\d+")
_CONTROL = frozenset({"label", "jump", "next", "if", "include", "variable", "clear", "quit"})


# --------------------------------------------------------------------------------------------------- tables
@dataclass(frozen=True)
class _Grammar:
    positional: tuple[tuple[str, int], ...]
    keywords: Mapping[str, int]
    damping: Mapping[str, int]


@dataclass(frozen=True)
class _Tables:
    default_units: str
    time_unit: Mapping[str, str]
    dt: Mapping[str, float]
    skin: Mapping[str, float]
    neighbor_style: str
    settings: Mapping[str, Any]
    box_required: Mapping[str, str]
    box_forbidden: Mapping[str, str]
    suffixes: tuple[str, ...]
    manybody: Mapping[str, tuple[int, bool]]  # style -> (number of files, elements are the last ntypes words)
    per_type_file: frozenset[str]
    fix_grammar: Mapping[str, _Grammar]  # fix style -> grammar
    pressure_keywords: tuple[str, ...]


@functools.cache
def tables() -> _Tables:
    """LAMMPS defaults and command grammars, loaded once from data/lammps_defaults.yaml."""
    text = (resources.files("cmb.grading") / "data" / "lammps_defaults.yaml").read_text(encoding="utf-8")
    raw = yaml.safe_load(text)
    grammars = {
        name: _Grammar(
            tuple((str(p[0]), int(p[1])) for p in g["positional"]),
            {str(k): int(v) for k, v in g["keywords"].items()},
            {str(k): int(v) for k, v in g["damping"].items()},
        )
        for name, g in raw["fixes"]["grammars"].items()
    }
    settings = {k: tuple(v) if isinstance(v, list) else v for k, v in raw["settings"].items() if k != "source"}
    return _Tables(
        default_units=raw["units"]["default"],
        time_unit=raw["units"]["time_unit"],
        dt={k: float(v) for k, v in raw["timestep"]["default"].items()},
        skin={k: float(v) for k, v in raw["neighbor"]["skin"].items()},
        neighbor_style=raw["neighbor"]["style"],
        settings=settings,
        box_required=raw["box"]["required"],
        box_forbidden=raw["box"]["forbidden"],
        suffixes=tuple(raw["pair_styles"]["accelerator_suffixes"]),
        manybody={
            k: (int(v["files"]), v.get("elements") == "last_ntypes") for k, v in raw["pair_styles"]["manybody"].items()
        },
        per_type_file=frozenset(raw["pair_styles"]["per_type_file"]),
        fix_grammar={style: grammars[g] for style, g in raw["fixes"]["styles"].items()},
        pressure_keywords=tuple(raw["fixes"]["pressure_keywords"]),
    )


def base_style(style: str) -> str:
    """A style without its accelerator suffix (sw/omp -> sw)."""
    head, _, tail = style.rpartition("/")
    return head if head and tail in tables().suffixes else style


# --------------------------------------------------------------------------------------------------- values
@dataclass(frozen=True)
class Unknown:
    """A value that cannot be known without running LAMMPS; `reason` says why."""

    reason: str


@dataclass(frozen=True)
class Absent:
    """A setting the script does not define at a stage; `reason` says what is missing."""

    reason: str


Word = str | Unknown


@dataclass(frozen=True)
class _Var:
    style: str
    values: tuple[str, ...] = ()
    index: int = 0
    lo: int = 0
    hi: int = 0
    pad: int = 0


@dataclass(frozen=True)
class _Fix:
    id: str
    group: str
    style: str
    args: tuple[Word, ...]
    keywords: tuple[tuple[str, tuple[Word, ...]], ...]
    where: str
    problem: str | None = None

    def get(self, name: str) -> tuple[Word, ...] | None:
        for key, values in reversed(self.keywords):
            if key == name:
                return values
        return None

    def describe(self) -> str:
        return f"fix {self.id} ({self.style} on group {self.group}, {self.where})"


@dataclass(frozen=True)
class _PairCoeff:
    args: tuple[Word, ...]
    where: str


@dataclass(frozen=True)
class _Mass:
    lo: int
    hi: int | None  # None: up to the number of atom types
    value: float | Unknown


@dataclass(frozen=True)
class Stage:
    """The interpreter's state at one `run` or `minimize` (or at the end of a script that has neither)."""

    kind: str
    where: str
    values: Mapping[str, Any]

    def label(self) -> str:
        """Where the stage is, for messages."""
        return (
            "at the end of the script (it has no run or minimize)"
            if self.kind == "end"
            else (f"at {self.kind} {self.where}")
        )


@dataclass
class Script:
    """The interpreted script: its stages, and why interpretation stopped or drifted, if it did."""

    stages: list[Stage]
    stop: str | None = None
    drift: str | None = None
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------------------- errors
class _Stop(Exception):
    prefix = ""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.where: str | None = None

    def render(self) -> str:
        return f"{self.where or '?'}: {self.prefix}{self.message}"


class _LammpsError(_Stop):
    """LAMMPS itself would stop here with this message."""

    prefix = "LAMMPS stops here: "


class _CannotFollow(_Stop):
    """The grader cannot follow the script past this point."""

    prefix = "the grader cannot follow the script: "


class _Limit(_CannotFollow):
    """A bound of the interpreter was reached: always fatal."""


class _Ambiguous(Exception):
    """A command's effect depends on a value known only at run time."""


# --------------------------------------------------------------------------------------------------- numbers
def _strict_float(word: Word, what: str) -> float | Unknown:
    """A float as LAMMPS's utils::numeric accepts it, or a LAMMPS error."""
    if isinstance(word, Unknown):
        return word
    if not _FLOAT.fullmatch(word):
        raise _LammpsError(f"Expected floating point parameter instead of {word!r} ({what})")
    return float(word)


def _strict_int(word: Word, what: str) -> int | Unknown:
    """An integer as LAMMPS's utils::inumeric accepts it (no 1e4, no 10.0), or a LAMMPS error."""
    if isinstance(word, Unknown):
        return word
    if not _INT.fullmatch(word) or len(word) > 30:
        raise _LammpsError(f"Expected integer parameter instead of {word!r} ({what})")
    return int(word)


def parse_number(value: Any) -> float | None:
    """A number from a script word (LAMMPS's own syntax) or a number; None when it is neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _FLOAT.fullmatch(value.strip()):
        return float(value)
    return None


def _c_format(fmt: str, x: float) -> str | Unknown:
    """printf-style formatting of one float, for the formats LAMMPS users write (%.3f, %g, %10.4e)."""
    if fmt.count("%") != 1 or not re.search(r"%[-+ #0]*\d{0,3}(?:\.\d{1,3})?[eEfgG]", fmt):
        return Unknown(f"format {fmt!r} is not one the grader evaluates")
    return fmt % x


# --------------------------------------------------------------------------------------------------- formulas
_PREC = {"||": 1, "|^": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4,
         "+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "^": 7}  # fmt: skip
_TWO = ("<=", ">=", "==", "!=", "&&", "||", "|^")
_NUMBER_TOKEN = re.compile(r"[\d.]+(?:[eE][+-]?\d*)?")
_NAME_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BOOL_OPERAND = re.compile(r"[^\s()!<>=&|]+")
_CONSTANTS = {"PI": math.pi, "on": 1.0, "yes": 1.0, "true": 1.0, "off": 0.0, "no": 0.0, "false": 0.0}
_RUNTIME_PREFIXES = ("c_", "f_", "i_", "d_")

Value = float | str | Unknown


class _Syntax(Exception):
    """The formula is outside what the grader parses (not necessarily a LAMMPS error)."""


def _tokenize(text: str, boolean: bool) -> list[tuple[str, Any]]:
    tokens: list[tuple[str, Any]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _WS:
            i += 1
            continue
        two = text[i : i + 2]
        if two in _TWO:
            tokens.append(("op", two))
            i += 2
            continue
        if c in "()," or (c in "<>!" if boolean else c in "+-*/^%<>!"):
            tokens.append(("op", c))
            i += 1
            continue
        if boolean:
            m = _BOOL_OPERAND.match(text, i)
            if not m:
                raise _Syntax(f"unexpected {c!r}")
            word = m.group()
            tokens.append(("num", float(word)) if _FLOAT.fullmatch(word) else ("str", word))
            i = m.end()
            continue
        if c.isdigit() or c == ".":
            m = _NUMBER_TOKEN.match(text, i)
            assert m is not None
            try:
                tokens.append(("num", float(m.group())))
            except ValueError:
                raise _Syntax(f"bad number {m.group()!r}") from None
            i = m.end()
            continue
        m = _NAME_TOKEN.match(text, i)
        if not m:
            raise _Syntax(f"unexpected {c!r}")
        if m.end() < n and text[m.end()] == "[":
            raise _Syntax(f"indexed reference {m.group()}[...] is known only at run time")
        tokens.append(("name", m.group()))
        i = m.end()
    return tokens


class _Meter:
    """Counts characters scanned, so that loops over long lines or formulas stay bounded."""

    def __init__(self) -> None:
        self.used = 0

    def charge(self, n: int) -> None:
        self.used += n
        if self.used > MAX_CHARS:
            raise _Limit(
                f"the script makes the grader scan more than {MAX_CHARS} characters (an endless loop, or "
                "exponentially nested variables?); control flow not statically evaluated"
            )


class _Evaluator:
    """Evaluates LAMMPS equal-style formulas and `if` conditions over a state, without eval()."""

    def __init__(self, values: Mapping[str, Any], meter: _Meter | None = None) -> None:
        self.values = values
        self.meter = meter or _Meter()
        self.depth = 0
        self.active: list[str] = []
        self.memo: dict[str, float | Unknown] = {}  # the state does not change during one evaluation

    def formula(self, text: str, boolean: bool = False) -> Value:
        """The value of a formula; Unknown when it needs run-time data or syntax the grader does not parse."""
        depth = self.depth
        self.meter.charge(len(text) + 64)
        try:
            parser = _Parser(_tokenize(text, boolean), self, boolean)
            value = parser.expr(1)
            if parser.pos != len(parser.tokens):
                raise _Syntax(f"unexpected {parser.tokens[parser.pos][1]!r}")
        except _Syntax as exc:
            return Unknown(f"formula {show(text)!r} cannot be evaluated statically ({exc})")
        finally:
            self.depth = depth
        return value

    def variable(self, name: str) -> float | Unknown:
        """The numeric value of v_name."""
        var = self.values.get(f"var.{name}")
        if var is None:
            raise _LammpsError(f"Invalid variable reference v_{name} in variable formula")
        if isinstance(var, Unknown):
            return var
        if name in self.memo:
            return self.memo[name]
        if name in self.active:
            raise _LammpsError(f"Variable {name} has a circular dependency")
        if len(self.active) + self.depth >= MAX_FORMULA_DEPTH:
            return Unknown(f"variable {name}: formulas nested too deeply")
        self.active.append(name)
        try:
            text = var_value(name, var, self)
        finally:
            self.active.pop()
        if isinstance(text, Unknown):
            result: float | Unknown = text
        else:
            number = parse_number(text)
            result = Unknown(f"variable {name} = {show(text)!r} is not a number") if number is None else number
        self.memo[name] = result
        return result

    def name(self, word: str) -> Value:
        """A bare name in a formula: constant, v_ reference, or thermo keyword."""
        if word in _CONSTANTS:
            return _CONSTANTS[word]
        if word.startswith("v_"):
            return self.variable(word[2:])
        if word.startswith(_RUNTIME_PREFIXES):
            return Unknown(f"{word} is computed only while LAMMPS runs")
        if word == "dt":
            box = self.values.get("box")
            if isinstance(box, Unknown):
                return box
            if not box:
                raise _LammpsError("Variable evaluation before simulation box is defined")
            dt = self.values.get("dt")
            return dt if isinstance(dt, float | Unknown) else Unknown("timestep unknown")
        return Unknown(f"{word!r} is known only at run time")


def var_value(name: str, var: _Var, ev: _Evaluator) -> str | Unknown:
    """The text a variable substitutes, as LAMMPS formats it."""
    if var.style in ("index", "string", "internal"):
        return var.values[var.index] if var.index < len(var.values) else Unknown(f"variable {name} exhausted")
    if var.style == "loop":
        return str(var.lo + var.index).zfill(var.pad)
    if var.style == "equal":
        value = ev.formula(var.values[0])
        if isinstance(value, str):  # pragma: no cover - formula mode yields numbers only
            return value
        return value if isinstance(value, Unknown) else f"{value:.15g}"
    if var.style == "format":
        number = ev.variable(var.values[0])
        return number if isinstance(number, Unknown) else _c_format(var.values[1], number)
    return Unknown(f"variable {name} is {var.style}-style, known only when LAMMPS runs")


class _Parser:
    """Precedence climbing over tokens, with LAMMPS's precedence (unary minus binds tighter than ^)."""

    def __init__(self, tokens: list[tuple[str, Any]], ev: _Evaluator, boolean: bool) -> None:
        self.tokens = tokens
        self.pos = 0
        self.ev = ev
        self.boolean = boolean

    def _peek(self) -> tuple[str, Any] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _next(self) -> tuple[str, Any]:
        tok = self._peek()
        if tok is None:
            raise _Syntax("formula ends early")
        self.pos += 1
        return tok

    def _enter(self) -> None:
        self.ev.depth += 1
        if self.ev.depth > MAX_FORMULA_DEPTH:
            raise _Syntax("nested too deeply")

    def expr(self, min_prec: int) -> Value:
        left = self.unary()
        while True:
            tok = self._peek()
            if tok is None or tok[0] != "op" or tok[1] not in _PREC or _PREC[tok[1]] < min_prec:
                return left
            self.pos += 1
            right = self.expr(_PREC[tok[1]] + 1)  # left-associative, ^ included (2^3^2 = 64 in LAMMPS)
            left = self.binary(tok[1], left, right)

    def unary(self) -> Value:
        tok = self._peek()
        if tok is not None and tok[0] == "op" and tok[1] in ("-", "!"):
            self.pos += 1
            self._enter()
            value = self.unary()
            self.ev.depth -= 1
            if isinstance(value, Unknown):
                return value
            if isinstance(value, str):
                return Unknown(f"{tok[1]} applied to the string {value!r}")
            return -value if tok[1] == "-" else float(value == 0.0)
        return self.primary()

    def primary(self) -> Value:
        kind, tok = self._next()
        if kind in ("num", "str"):
            return cast(Value, tok)
        if kind == "op" and tok == "(":
            self._enter()
            value = self.expr(1)
            self.ev.depth -= 1
            if self._next() != ("op", ")"):
                raise _Syntax("missing ')'")
            return value
        if kind == "name":
            nxt = self._peek()
            if nxt == ("op", "(") and not self.boolean:
                self.pos += 1
                self._enter()
                args = [self.expr(1)]
                while self._peek() == ("op", ","):
                    self.pos += 1
                    args.append(self.expr(1))
                self.ev.depth -= 1
                if self._next() != ("op", ")"):
                    raise _Syntax("missing ')' after function arguments")
                return _call(str(tok), args)
            return self.ev.name(str(tok))
        raise _Syntax(f"unexpected {tok!r}")

    def binary(self, op: str, a: Value, b: Value) -> Value:
        if isinstance(a, Unknown):
            return a
        if isinstance(b, Unknown):
            return b
        if isinstance(a, str) or isinstance(b, str):
            if op in ("==", "!="):
                equal = str(a) == str(b)
                return float(equal if op == "==" else not equal)
            return Unknown(f"{op} between strings {a!r} and {b!r}")
        if self.boolean and op in "+-*/%^":
            return Unknown(f"arithmetic ({op}) inside an if condition")
        return _arith(op, a, b)


def _arith(op: str, a: float, b: float) -> float:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0.0:
            raise _LammpsError("Divide by 0 in variable formula")
        return a / b
    if op == "%":
        if b == 0.0:
            raise _LammpsError("Modulo 0 in variable formula")
        return math.fmod(a, b) if math.isfinite(a) else math.nan
    if op == "^":
        if b == 0.0:
            return 1.0
        if a == 0.0 and b < 0.0:
            raise _LammpsError("Invalid power expression in variable formula")
        try:
            return math.pow(a, b)
        except OverflowError:
            return math.inf
        except ValueError:  # negative base, fractional power: C's pow gives NaN
            return math.nan
    comparisons: dict[str, Callable[[float, float], bool]] = {
        "<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y,
        ">=": lambda x, y: x >= y, "==": lambda x, y: x == y, "!=": lambda x, y: x != y,
        "&&": lambda x, y: x != 0.0 and y != 0.0, "||": lambda x, y: x != 0.0 or y != 0.0,
        "|^": lambda x, y: (x != 0.0) != (y != 0.0),
    }  # fmt: skip
    return float(comparisons[op](a, b))


def _domain(ok: Callable[[float], bool], fn: Callable[[float], float], message: str) -> Callable[[float], float]:
    def apply(x: float) -> float:
        if not ok(x):
            raise _LammpsError(message)
        try:
            return fn(x)
        except OverflowError:
            return math.inf

    return apply


_MATH1: dict[str, Callable[[float], float]] = {
    "sqrt": _domain(lambda x: x >= 0, math.sqrt, "Sqrt of negative value in variable formula"),
    "ln": _domain(lambda x: x > 0, math.log, "Log of zero/negative value in variable formula"),
    "log": _domain(lambda x: x > 0, math.log10, "Log of zero/negative value in variable formula"),
    "asin": _domain(lambda x: -1 <= x <= 1, math.asin, "Arcsin of invalid value in variable formula"),
    "acos": _domain(lambda x: -1 <= x <= 1, math.acos, "Arccos of invalid value in variable formula"),
    "exp": _domain(lambda x: True, math.exp, ""),
    "abs": abs,
    "sin": lambda x: math.sin(x) if math.isfinite(x) else math.nan,
    "cos": lambda x: math.cos(x) if math.isfinite(x) else math.nan,
    "tan": lambda x: math.tan(x) if math.isfinite(x) else math.nan,
    "atan": math.atan,
    "ceil": lambda x: float(math.ceil(x)) if math.isfinite(x) else x,
    "floor": lambda x: float(math.floor(x)) if math.isfinite(x) else x,
    "round": lambda x: float(math.floor(x + 0.5)) if math.isfinite(x) else x,
}


def _call(name: str, args: list[Value]) -> Value:
    nums: list[float] = []
    for a in args:
        if isinstance(a, Unknown):
            return a
        if isinstance(a, str):
            return Unknown(f"{name}() of a string")
        nums.append(a)
    if name in _MATH1 and len(nums) == 1:
        return _MATH1[name](nums[0])
    if name == "atan2" and len(nums) == 2:
        return math.atan2(nums[0], nums[1])
    if name == "ternary" and len(nums) == 3:
        return nums[1] if nums[0] != 0.0 else nums[2]
    return Unknown(f"{name}() is known only at run time or is not evaluated by the grader")


# --------------------------------------------------------------------------------------------------- lines
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
            stripped = physical[i].rstrip(_WS)
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


def _first_words(text: str) -> list[str]:
    return text.split("#", 1)[0].split()


_SPECIAL = re.compile(r"[#$\"']")
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
                raise _LammpsError("Unbalanced quotes in input line")
            word, i = text[i + 3 : stop], stop + 3
        elif text[i] in "\"'":
            stop = text.find(text[i], i + 1)
            if stop < 0:
                raise _LammpsError("Unbalanced quotes in input line")
            word, i = text[i + 1 : stop], stop + 1
        else:
            quoted = False
            j = _NONBLANK.match(text, i).end()  # type: ignore[union-attr]
            word, i = text[i:j], j
        if quoted and i < n and text[i] not in _WS:
            raise _LammpsError("Input line quote not followed by white-space")
        if "\0" in word:
            index = word.split("\0")[1]
            words.append(Unknown(reasons[int(index)] if index.isdigit() else "unknown value"))
        else:
            words.append(word)
        i = _BLANKS.match(text, i).end()  # type: ignore[union-attr]
    return words


# --------------------------------------------------------------------------------------------------- interpreter
@dataclass
class _Frame:
    file: str
    lines: list[tuple[int, str]]
    pc: int = 0


_MISSING = object()
_Handler = Callable[["_Interpreter", list[Word], str], None]
_COMMANDS: dict[str, _Handler] = {}


def _command(*names: str) -> Callable[[_Handler], _Handler]:
    def decorate(fn: _Handler) -> _Handler:
        for name in names:
            _COMMANDS[name] = fn
        return fn

    return decorate


def _default_settings() -> dict[str, Any]:
    t = tables()
    units = t.default_units
    values: dict[str, Any] = {
        "units": units,
        "dt": t.dt[units],
        "neighbor.skin": t.skin[units],
        "neighbor.style": t.neighbor_style,
        "box": False,
        "pair_coeff": (),
        "masses": (),
    }
    values.update(t.settings)
    return values


class _Interpreter:
    """Runs a script's commands over a state dictionary, never executing anything the script names."""

    def __init__(self, submission: Submission, main: str, variables: tuple[tuple[str, str], ...]) -> None:
        self.sub = submission
        self.main = main
        self.base = posixpath.dirname(main)
        self.values: dict[str, Any] = _default_settings()
        for name, value in variables:
            self.values[f"var.{name}"] = _Var("index", (value,))
        self.frames: list[_Frame] = []
        self.stages: list[Stage] = []
        self.notes: list[str] = []
        self.shadow: str | None = None  # inside a branch that may or may not run
        self.drift: str | None = None  # control flow could not be followed from here on
        self.jump_skip = False
        self.quit = False
        self.if_depth = 0
        self.commands = 0
        self.meter = _Meter()
        self.read_bytes = 0
        self.snapshot_items = 0
        self.file_cache: dict[str, list[tuple[int, str]]] = {}

    # ---- state writes: in uncertain context a changed value becomes Unknown
    @property
    def uncertain(self) -> str | None:
        return self.shadow or self.drift

    def set(self, key: str, value: Any) -> None:
        reason = self.uncertain
        if reason is not None and self.values.get(key, _MISSING) != value:
            value = Unknown(reason)
        self.values[key] = value

    def delete(self, key: str) -> None:
        if key not in self.values:
            return
        if self.uncertain is not None:
            self.values[key] = Unknown(self.uncertain)
        else:
            del self.values[key]

    def drift_from(self, reason: str) -> None:
        if self.drift is None:
            self.drift = f"control flow not statically evaluated after {reason}"
            self.notes.append(self.drift)

    # ---- running
    def run(self, text: str) -> Script:
        stop: str | None = None
        try:
            self.frames.append(_Frame(self.main, logical_lines(text)))
            while self.frames and not self.quit:
                frame = self.frames[-1]
                if frame.pc >= len(frame.lines):
                    self.frames.pop()
                    continue
                lineno, line = frame.lines[frame.pc]
                frame.pc += 1
                self.one(line, f"{frame.file}:{lineno}")
        except _Stop as exc:
            stop = exc.render()
        stages = self.stages or [Stage("end", "end of script", dict(self.values))]
        return Script(stages, stop, self.drift, self.notes)

    def one(self, line: str, where: str) -> None:
        """Parse and execute one command line."""
        self.commands += 1
        try:
            self.meter.charge(len(line) + 1)
            if self.commands > MAX_COMMANDS:
                raise _Limit(
                    f"the script executes more than {MAX_COMMANDS} commands (an endless loop?); "
                    "control flow not statically evaluated"
                )
        except _Limit as exc:
            exc.where = where
            raise
        try:
            words = self.parse(line)
            if not words:
                return
            name = words[0]
            if isinstance(name, Unknown):
                raise _Ambiguous(f"the command name is a run-time value ({name.reason})")
            self.dispatch(name, words[1:], where)
        except _Ambiguous as amb:
            self.drift_from(f"{where} ({amb})")
        except _Stop as err:
            if err.where is None:
                err.where = where
            if self.uncertain is None or isinstance(err, _Limit):
                raise
            self.drift_from(f"{where}, where LAMMPS may stop ({err.message})")

    def dispatch(self, name: str, args: list[Word], where: str) -> None:
        t = tables()
        box = self.values.get("box")
        if box is False and name in t.box_required:
            raise _LammpsError(t.box_required[name])
        if box is True and name in t.box_forbidden:
            raise _LammpsError(t.box_forbidden[name])
        if name not in _CONTROL:
            self.set(f"cmd.{name}", tuple(args))
        handler = _COMMANDS.get(name)
        if handler is not None:
            handler(self, args, where)

    def stage(self, kind: str, where: str) -> None:
        self.snapshot_items += len(self.values)
        if len(self.stages) >= MAX_STAGES or self.snapshot_items > MAX_SNAPSHOT_ITEMS:
            raise _Limit(f"more than {MAX_STAGES} run/minimize commands, or too large a state to track")
        self.stages.append(Stage(kind, where, dict(self.values)))

    # ---- parsing a line: comment, substitution, words
    def parse(self, line: str) -> list[Word]:
        reasons: list[str] = []
        text = self.substitute(line, reasons)
        if len(text) > MAX_LINE:
            raise _CannotFollow(f"a line longer than {MAX_LINE} characters after variable substitution")
        return split_words(text, reasons)

    def substitute(self, line: str, reasons: list[str]) -> str:
        """Strip the comment and substitute $x, ${name}, $(formula) outside quotes.

        One pass, as LAMMPS does: substituted text is not scanned again.
        """
        if _SPECIAL.search(line) is None:
            return line
        out: list[str] = []
        size = 0
        i, start, n, quote = 0, 0, len(line), ""
        while i < n:
            if quote:
                j = line.find(quote, i)
                i = n if j < 0 else j + len(quote)
                quote = ""
                continue
            m = _SPECIAL.search(line, i)
            if m is None:
                i = n
                break
            i = m.start()
            c = line[i]
            if c == "#":
                break
            if c == "$":
                out.append(line[start:i])
                value, after = self.expand(line, i)
                if isinstance(value, Unknown):
                    reasons.append(value.reason)
                    value = f"\0{len(reasons) - 1}\0"
                out.append(value)
                size += len(value) + i - start
                if size > MAX_LINE:
                    raise _CannotFollow(f"a line longer than {MAX_LINE} characters after variable substitution")
                start = i = after
                continue
            quote = '"""' if line.startswith('"""', i) else c
            i += len(quote)
        out.append(line[start:i])
        text = "".join(out)
        self.meter.charge(len(text))
        return text

    def expand(self, line: str, i: int) -> tuple[str | Unknown, int]:
        nxt = line[i + 1 : i + 2]
        if nxt == "{":
            end = line.find("}", i + 2)
            if end < 0:
                raise _LammpsError("Invalid variable name")
            name, after = line[i + 2 : end], end + 1
        elif nxt == "(":
            depth, j = 0, i + 2
            while j < len(line) and (line[j] != ")" or depth):
                depth += {"(": 1, ")": -1}.get(line[j], 0)
                j += 1
            if j >= len(line):
                raise _LammpsError("Invalid immediate variable")
            expr, fmt = line[i + 2 : j], "%.20g"
            colon = expr.rfind(":")
            if colon >= 0 and expr[colon + 1 : colon + 2] == "%":
                expr, fmt = expr[:colon], expr[colon + 1 :]
            value = _Evaluator(self.values, self.meter).formula(expr)
            if isinstance(value, str):
                value = Unknown(f"$({expr}) is not a number")
            return (value if isinstance(value, Unknown) else _c_format(fmt, value)), j + 1
        else:
            name, after = nxt, i + 2
        text = self.retrieve(name)
        if text is None:
            raise _LammpsError(f"Substitution for illegal variable {name}")
        return text, after

    def retrieve(self, name: str) -> str | Unknown | None:
        var = self.values.get(f"var.{name}")
        if var is None or isinstance(var, Unknown):
            return var
        return var_value(name, var, _Evaluator(self.values, self.meter))

    # ---- files
    def path(self, word: Word, what: str) -> str:
        if isinstance(word, Unknown):
            raise _Ambiguous(f"{what} names a file known only at run time ({word.reason})")
        if word.startswith(("/", "~")) or "\\" in word:
            raise _CannotFollow(
                f"{what} {word}: the file is outside the submission; the grader reads only files inside it"
            )
        rel = posixpath.normpath(posixpath.join(self.base, word))
        if rel == ".." or rel.startswith("../"):
            raise _CannotFollow(f"{what} {word}: the file is outside the submission")
        return rel

    def read(self, rel: str, what: str) -> str:
        try:
            text = self.sub.read_text(rel)
        except SubmissionError as exc:
            raise _CannotFollow(f"{what}: {exc}") from None
        self.read_bytes += len(text)
        if self.read_bytes > MAX_READ_BYTES:
            raise _Limit(f"the script reads more than {MAX_READ_BYTES} bytes of included files")
        return text

    def script_lines(self, word: Word, what: str) -> tuple[str, list[tuple[int, str]]]:
        rel = self.path(word, what)
        if rel not in self.file_cache:
            self.file_cache[rel] = logical_lines(self.read(rel, f"{what} {word}"))
        return rel, self.file_cache[rel]

    # ---- stage-independent helpers
    def ntypes(self) -> int | Unknown | None:
        n = self.values.get("ntypes")
        return n if isinstance(n, int | Unknown) else None


def _arg(args: list[Word], i: int, command: str) -> Word:
    if i >= len(args):
        raise _LammpsError(f"Illegal {command} command")
    return args[i]


def _known(word: Word, what: str) -> str:
    if isinstance(word, Unknown):
        raise _Ambiguous(f"{what} is a run-time value ({word.reason})")
    return word


def _type_index(word: str) -> int:
    if not _INT.fullmatch(word) or len(word) > 30:
        raise _LammpsError(f"Expected integer parameter instead of {word!r} (atom type)")
    return int(word)


def type_bounds(word: str, n: int | None) -> tuple[int, int | None]:
    """LAMMPS's type range syntax: 3, *, 2*, *4, 1*3 -> (lo, hi); hi None means up to ntypes."""
    lo: int
    hi: int | None
    if "*" not in word:
        lo = hi = _type_index(word)
    else:
        a, _, b = word.partition("*")
        lo = 1 if a == "" else _type_index(a)
        hi = n if b == "" else _type_index(b)
    if lo < 1 or (n is not None and hi is not None and hi > n) or (hi is not None and hi < lo):
        raise _LammpsError(f"Numeric index {word} is out of bounds (1-{n if n is not None else '?'})")
    return lo, hi


# --------------------------------------------------------------------------------------------------- commands
@_command("units")
def _units(it: _Interpreter, args: list[Word], where: str) -> None:
    t = tables()
    if len(args) != 1:
        raise _LammpsError("Illegal units command")
    style = args[0]
    if isinstance(style, str) and style not in t.dt:
        raise _LammpsError("Illegal units command")
    it.set("units", style)
    # LAMMPS resets the timestep and the neighbor skin to the new style's defaults
    it.set("dt", t.dt[style] if isinstance(style, str) else style)
    it.set("neighbor.skin", t.skin[style] if isinstance(style, str) else style)


@_command("timestep")
def _timestep(it: _Interpreter, args: list[Word], where: str) -> None:
    if len(args) != 1:
        raise _LammpsError("Illegal timestep command")
    it.set("dt", _strict_float(args[0], "timestep"))


def _make_tuple_setting(name: str, count: int | None = None) -> _Handler:
    def handler(it: _Interpreter, args: list[Word], where: str) -> None:
        if not args or (count is not None and len(args) != count):
            raise _LammpsError(f"Illegal {name} command")
        it.set(name, tuple(args))

    return handler


for _name, _count in (("atom_style", None), ("thermo_style", None), ("lattice", None), ("run_style", None),
                      ("boundary", 3)):  # fmt: skip
    _COMMANDS[_name] = _make_tuple_setting(_name, _count)


@_command("dimension")
def _dimension(it: _Interpreter, args: list[Word], where: str) -> None:
    it.set("dimension", _strict_int(_arg(args, 0, "dimension"), "dimension"))


@_command("min_style")
def _min_style(it: _Interpreter, args: list[Word], where: str) -> None:
    it.set("min_style", _arg(args, 0, "min_style"))


@_command("thermo")
def _thermo(it: _Interpreter, args: list[Word], where: str) -> None:
    word = _arg(args, 0, "thermo")
    it.set("thermo", word if isinstance(word, str) and word.startswith("v_") else _strict_int(word, "thermo"))


@_command("neighbor")
def _neighbor(it: _Interpreter, args: list[Word], where: str) -> None:
    if len(args) != 2:
        raise _LammpsError("Illegal neighbor command")
    it.set("neighbor.skin", _strict_float(args[0], "neighbor skin"))
    it.set("neighbor.style", args[1])


@_command("create_box")
def _create_box(it: _Interpreter, args: list[Word], where: str) -> None:
    _arg(args, 1, "create_box")  # the region
    n = _strict_int(args[0], "create_box atom types")
    if isinstance(n, int) and n < 1:
        raise _LammpsError("Illegal create_box command")
    it.set("ntypes", n)
    it.set("box", True)


@_command("read_restart")
def _read_restart(it: _Interpreter, args: list[Word], where: str) -> None:
    restored = Unknown(f"restored from the restart file read at {where}")
    for key in ("ntypes", "natoms", "units", "dt", "atom_style", "boundary", "dimension", "masses", "pair_style",
                "pair_coeff"):  # fmt: skip
        it.set(key, restored)
    it.set("box", True)


@_command("read_data")
def _read_data(it: _Interpreter, args: list[Word], where: str) -> None:
    words = [w for w in args[1:] if isinstance(w, str)]
    adding = "add" in words
    if it.values.get("box") is True and not adding:
        raise _LammpsError("Cannot read_data without add keyword after simulation box is defined")
    extra = 0
    if "extra/atom/types" in words:
        i = args.index("extra/atom/types")
        n = _strict_int(_arg(args, i + 1, "read_data"), "extra/atom/types")
        extra = n if isinstance(n, int) else 0
    it.set("box", True)
    try:
        rel = it.path(_arg(args, 0, "read_data"), "read_data")
        text = it.read(rel, f"read_data {rel}")
    except (_CannotFollow, _Ambiguous) as exc:
        reason = f"{where}: the data file cannot be read by the grader ({exc})"
        it.notes.append(reason)
        for key in ("ntypes", "natoms", "box.bounds", "masses"):
            it.set(key, Unknown(reason))
        return
    data = parse_data_file(text, rel)
    if adding:
        it.set("ntypes", Unknown(f"{where}: read_data add merges atom types"))
    else:
        it.set("ntypes", data.ntypes + extra if isinstance(data.ntypes, int) else data.ntypes)
        it.set("natoms", data.natoms)
        it.set("box.bounds", data.bounds)
    masses = it.values.get("masses")
    if isinstance(masses, tuple):
        it.set("masses", masses + tuple(_Mass(t, t, m) for t, m in data.masses))


@dataclass
class DataFile:
    """The header and Masses of a LAMMPS data file."""

    ntypes: int | Unknown
    natoms: int | Unknown
    bounds: tuple[float, ...] | Unknown
    masses: list[tuple[int, float]]


_HEADER = {
    "atoms": re.compile(r"(\d{1,18})\s+atoms"),
    "atom types": re.compile(r"(\d{1,18})\s+atom\s+types"),
    "x": re.compile(r"(\S+)\s+(\S+)\s+xlo\s+xhi"),
    "y": re.compile(r"(\S+)\s+(\S+)\s+ylo\s+yhi"),
    "z": re.compile(r"(\S+)\s+(\S+)\s+zlo\s+zhi"),
}


def parse_data_file(text: str, name: str) -> DataFile:
    """Read the header counts, box and Masses section of a data file (first line is a title)."""
    lines = text.split("\n")
    found: dict[str, tuple[str, ...]] = {}
    i = 1
    while i < len(lines):
        line = lines[i].split("#", 1)[0].strip()
        if line and line[0].isalpha():
            break  # first section keyword ends the header
        for key, rx in _HEADER.items():
            m = rx.fullmatch(line)
            if m:
                found[key] = m.groups()
        i += 1
    ntypes: int | Unknown = Unknown(f"{name}: no 'atom types' line in the header")
    if "atom types" in found:
        ntypes = int(found["atom types"][0])
    natoms: int | Unknown = Unknown(f"{name}: no 'atoms' line in the header")
    if "atoms" in found:
        natoms = int(found["atoms"][0])
    bounds: tuple[float, ...] | Unknown = Unknown(f"{name}: box bounds missing or not numbers")
    numbers = [parse_number(v) for k in "xyz" for v in found.get(k, ("?", "?"))]
    if all(v is not None for v in numbers):
        bounds = tuple(v for v in numbers if v is not None)
    masses: list[tuple[int, float]] = []
    while i < len(lines):
        if lines[i].split("#", 1)[0].strip() == "Masses":
            i += 1
            while i < len(lines):
                words = lines[i].split("#", 1)[0].split()
                if words and words[0][0].isalpha():
                    break
                if len(words) >= 2 and re.fullmatch(r"\d{1,18}", words[0]) and _FLOAT.fullmatch(words[1]):
                    masses.append((int(words[0]), float(words[1])))
                i += 1
            break
        i += 1
    return DataFile(ntypes, natoms, bounds, masses)


@_command("mass")
def _mass(it: _Interpreter, args: list[Word], where: str) -> None:
    if len(args) != 2:
        raise _LammpsError("Illegal mass command")
    spec = _known(args[0], "mass type")
    n = it.ntypes()
    lo, hi = type_bounds(spec, n if isinstance(n, int) else None)
    value = _strict_float(args[1], "mass")
    masses = it.values.get("masses")
    if isinstance(masses, tuple):
        it.set("masses", (*masses, _Mass(lo, hi, value)))


@_command("pair_style")
def _pair_style(it: _Interpreter, args: list[Word], where: str) -> None:
    style = _arg(args, 0, "pair_style")
    old = it.values.get("pair_style")
    if not (isinstance(old, tuple) and old[0] == style):
        it.set("pair_coeff", ())  # a different pair style starts with no coefficients
    it.set("pair_style", tuple(args))


@_command("pair_coeff")
def _pair_coeff(it: _Interpreter, args: list[Word], where: str) -> None:
    pair = it.values.get("pair_style")
    if pair is None:
        raise _LammpsError("Pair_coeff command before pair_style is defined")
    if len(args) < 2:
        raise _LammpsError("Incorrect args for pair coefficients")
    coeffs = it.values.get("pair_coeff")
    if isinstance(pair, tuple):
        _validate_pair_coeff(pair, args, it.ntypes())
    if isinstance(coeffs, tuple):
        it.set("pair_coeff", (*coeffs, _PairCoeff(tuple(args), where)))


def _manybody_args(pair: tuple[Word, ...], args: tuple[Word, ...] | list[Word]) -> tuple[str, list[Word]] | None:
    """(sub-style, pair_coeff words after I J [sub-style]) for a many-body or per-type-file style."""
    t = tables()
    style = pair[0]
    if not isinstance(style, str):
        return None
    rest = list(args[2:])
    if base_style(style) in ("hybrid", "hybrid/overlay", "hybrid/scaled"):
        if not rest or not isinstance(rest[0], str):
            return None
        sub = rest[0]
        rest = rest[1:]
        if pair[1:].count(sub) > 1 and rest and isinstance(rest[0], str) and rest[0].isdigit():
            rest = rest[1:]  # hybrid with the same sub-style twice: pair_coeff * * sw 1 ...
        style = sub
    base = base_style(style)
    if base in t.manybody or base in t.per_type_file:
        return base, rest
    return None


def _validate_pair_coeff(pair: tuple[Word, ...], args: list[Word], ntypes: int | Unknown | None) -> None:
    """The checks LAMMPS makes at once for many-body styles: `* *`, and one element per atom type."""
    parsed = _manybody_args(pair, args)
    if parsed is None:
        return
    base, rest = parsed
    t = tables()
    if base in t.per_type_file:
        if len(rest) != 1:
            raise _LammpsError("Incorrect args for pair coefficients")
        return
    files, tail = t.manybody[base]
    if args[0] != "*" or args[1] != "*":
        raise _LammpsError(f"Incorrect args for pair coefficients ({base} needs 'pair_coeff * * ...')")
    if isinstance(ntypes, int):
        count = len(rest) - files
        if (count != ntypes and not tail) or count < ntypes:
            raise _LammpsError(
                f"Incorrect args for pair coefficients: pair_style {base} needs one element (or NULL) per atom "
                f"type, {ntypes} here, but pair_coeff names {max(count, 0)}"
            )


@_command("fix")
def _fix(it: _Interpreter, args: list[Word], where: str) -> None:
    if len(args) < 3:
        raise _LammpsError("Illegal fix command")
    fix_id = _known(args[0], "fix ID")
    group = _known(args[1], "fix group")
    style = _known(args[2], "fix style")
    old = it.values.get(f"fix.{fix_id}")
    if isinstance(old, _Fix) and old.style != style:
        raise _LammpsError("Replacing a fix, but new style != old style")
    keywords, problem = parse_fix_args(style, args[3:])
    it.set(f"fix.{fix_id}", _Fix(fix_id, group, style, tuple(args[3:]), keywords, where, problem))


def parse_fix_args(style: str, args: list[Word]) -> tuple[tuple[tuple[str, tuple[Word, ...]], ...], str | None]:
    """Keyword -> values of a fix, by the style's grammar (positional arguments get names too)."""
    grammar = tables().fix_grammar.get(base_style(style))
    if grammar is None:
        return (), None
    out: list[tuple[str, tuple[Word, ...]]] = []
    i = 0
    for name, count in grammar.positional:
        if i + count > len(args):
            return tuple(out), f"fix {style} needs {name} ({count} values)"
        out.append((name, tuple(args[i : i + count])))
        i += count
    while i < len(args):
        word = args[i]
        if not isinstance(word, str) or word not in grammar.keywords:
            return tuple(out), f"unexpected word {show(word)!r} in fix {style}"
        count = grammar.keywords[word]
        if i + 1 + count > len(args):
            return tuple(out), f"keyword {word} of fix {style} needs {count} values"
        out.append((word, tuple(args[i + 1 : i + 1 + count])))
        i += 1 + count
    return tuple(out), None


@_command("unfix")
def _unfix(it: _Interpreter, args: list[Word], where: str) -> None:
    fix_id = _known(_arg(args, 0, "unfix"), "fix ID")
    if f"fix.{fix_id}" not in it.values:
        raise _LammpsError("Could not find fix ID to delete")
    it.delete(f"fix.{fix_id}")


@dataclass(frozen=True)
class _Velocity:
    group: str
    style: str
    args: tuple[Word, ...]
    where: str


@_command("velocity")
def _velocity(it: _Interpreter, args: list[Word], where: str) -> None:
    group = _known(_arg(args, 0, "velocity"), "velocity group")
    style = _known(_arg(args, 1, "velocity"), "velocity style")
    it.set(f"velocity.{style}", _Velocity(group, style, tuple(args[2:]), where))


@_command("run")
def _run(it: _Interpreter, args: list[Word], where: str) -> None:
    n = _strict_int(_arg(args, 0, "run"), "run")
    words = [w for w in args[1:] if isinstance(w, str)]
    total = it.values.get("run.total", 0)
    it.set("run", n)
    if "upto" in words or not isinstance(n, int) or not isinstance(total, int):
        it.set("run.total", Unknown(f"{where}: run length not statically known"))
    else:
        it.set("run.total", total + n)
    if "every" in words:
        it.notes.append(f"{where}: commands given to run ... every are not interpreted")
    it.stage("run", where)


@_command("minimize")
def _minimize(it: _Interpreter, args: list[Word], where: str) -> None:
    if len(args) != 4:
        raise _LammpsError("Illegal minimize command")
    etol = _strict_float(args[0], "minimize etol")
    ftol = _strict_float(args[1], "minimize ftol")
    maxiter = _strict_int(args[2], "minimize maxiter")
    maxeval = _strict_int(args[3], "minimize maxeval")
    it.set("minimize", (etol, ftol, maxiter, maxeval))
    it.stage("minimize", where)


@_command("variable")
def _variable(it: _Interpreter, args: list[Word], where: str) -> None:
    if len(args) < 2:
        raise _LammpsError("Illegal variable command")
    name = _known(args[0], "variable name")
    style = _known(args[1], "variable style")
    key = f"var.{name}"
    old = it.values.get(key)
    values = args[2:]
    if style == "delete":
        it.delete(key)
        return
    if style in ("index", "loop", "world", "universe", "uloop") and old is not None:
        return  # LAMMPS ignores a redefinition of these styles (so -var on the command line wins)
    if isinstance(old, _Var) and old.style != style and style in ("equal", "string", "internal", "format"):
        raise _LammpsError("Cannot redefine variable as a different style")
    if any(isinstance(v, Unknown) for v in values):
        first = next(v for v in values if isinstance(v, Unknown))
        it.set(key, first)
        return
    texts = [str(v) for v in values]
    var: _Var | Unknown
    if style == "index":
        if not texts:
            raise _LammpsError("Illegal variable command")
        var = _Var("index", tuple(texts))
    elif style == "loop":
        var = _loop_var(texts)
    elif style in ("equal", "string"):
        if len(texts) != 1:
            raise _LammpsError("Illegal variable command")
        var = _Var(style, (texts[0],))
    elif style == "internal":
        number = _strict_float(_arg(values, 0, "variable"), "internal variable")
        var = _Var("internal", (f"{number:.15g}",)) if isinstance(number, float) else number
    elif style == "format":
        if len(texts) != 2:
            raise _LammpsError("Illegal variable command")
        var = _Var("format", (texts[0], texts[1]))
    elif style in ("getenv", "file", "atomfile", "python", "timer", "atom", "vector", "world", "universe",
                   "uloop"):  # fmt: skip
        var = _Var(style)
    else:
        raise _LammpsError("Illegal variable command")
    it.set(key, var)


def _loop_var(texts: list[str]) -> _Var:
    pad = 0
    if texts and texts[-1] == "pad":
        texts = texts[:-1]
        pad = -1
    if len(texts) not in (1, 2):
        raise _LammpsError("Illegal variable command")
    numbers = [_strict_int(t, "loop variable") for t in texts]
    lo, hi = (1, numbers[0]) if len(numbers) == 1 else (numbers[0], numbers[1])
    assert isinstance(lo, int) and isinstance(hi, int)
    if hi < lo:
        raise _LammpsError("Illegal variable command")
    return _Var("loop", (), 0, lo, hi, len(str(hi)) if pad else 0)


@_command("next")
def _next(it: _Interpreter, args: list[Word], where: str) -> None:
    if not args:
        raise _LammpsError("Illegal next command")
    if it.shadow is not None:
        raise _Ambiguous("next inside a branch whose condition is known only at run time")
    for word in args:
        name = _known(word, "next variable")
        var = it.values.get(f"var.{name}")
        if var is None:
            raise _LammpsError("Invalid variable in next command")
        if isinstance(var, Unknown):
            raise _Ambiguous(f"loop variable {name} is a run-time value")
        if var.style not in ("index", "loop"):
            raise _LammpsError("Invalid variable style with next command")
        size = len(var.values) if var.style == "index" else var.hi - var.lo + 1
        if var.index + 1 >= size:
            it.delete(f"var.{name}")  # exhausted: deleted, and the next jump is skipped
            it.jump_skip = True
        else:
            it.set(f"var.{name}", _Var(var.style, var.values, var.index + 1, var.lo, var.hi, var.pad))


@_command("jump")
def _jump(it: _Interpreter, args: list[Word], where: str) -> None:
    if not args or len(args) > 2:
        raise _LammpsError("Illegal jump command")
    if it.jump_skip:
        it.jump_skip = False
        return
    if it.uncertain is not None:
        raise _Ambiguous("a jump in a part of the script that may or may not run")
    target = args[0]
    label = _known(args[1], "jump label") if len(args) == 2 else None
    if target == "SELF":
        frame = it.frames[-1]
    else:
        rel, lines = it.script_lines(target, "jump")
        it.frames.pop()  # LAMMPS closes the current file and reads the new one instead
        frame = _Frame(rel, lines)
        it.frames.append(frame)
    frame.pc = 0
    if label is not None:
        for index, (_, text) in enumerate(frame.lines):
            words = _first_words(text)
            if len(words) >= 2 and words[0] == "label" and words[1] == label:
                frame.pc = index
                break
        else:
            raise _LammpsError(f"Label {label} wasn't found in input script")


@_command("include")
def _include(it: _Interpreter, args: list[Word], where: str) -> None:
    if len(args) != 1:
        raise _LammpsError("Illegal include command")
    if len(it.frames) >= MAX_NESTING:
        raise _Limit(f"include nested more than {MAX_NESTING} deep (a file that includes itself?)")
    rel, lines = it.script_lines(args[0], "include")
    if it.shadow is not None:
        it.drift_from(f"{where} (include inside a branch known only at run time)")
    it.frames.append(_Frame(rel, lines))


@_command("if")
def _if(it: _Interpreter, args: list[Word], where: str) -> None:
    if len(args) < 3 or args[1] != "then":
        raise _LammpsError("Illegal if command")
    branches: list[tuple[Word | None, list[Word]]] = []
    condition: Word | None = args[0]
    body: list[Word] = []
    i = 2
    while i < len(args):
        word = args[i]
        if word in ("elif", "else"):
            branches.append((condition, body))
            if word == "elif":
                if i + 1 >= len(args):
                    raise _LammpsError("Illegal if command")
                condition, i = args[i + 1], i + 2
            else:
                condition, i = None, i + 1
            body = []
            continue
        body.append(word)
        i += 1
    branches.append((condition, body))
    saved = it.shadow
    it.if_depth += 1
    if it.if_depth > MAX_NESTING:
        raise _Limit(f"if commands nested more than {MAX_NESTING} deep")
    try:
        for condition, commands in branches:
            truth = _condition(it, condition)
            if truth is False:
                continue
            if isinstance(truth, Unknown):
                it.shadow = it.shadow or f"{where}: if condition known only at run time ({truth.reason})"
            for command in commands:
                if isinstance(command, Unknown):
                    raise _Ambiguous(f"if branch command is a run-time value ({command.reason})")
                it.one(command, where)
            if truth is True:
                return
    finally:
        it.shadow = saved
        it.if_depth -= 1


def _condition(it: _Interpreter, condition: Word | None) -> bool | Unknown:
    if condition is None:
        return True
    if isinstance(condition, Unknown):
        return condition
    reasons: list[str] = []
    text = it.substitute(condition, reasons)
    if reasons:
        return Unknown(reasons[0])
    value = _Evaluator(it.values, it.meter).formula(text, boolean=True)
    if isinstance(value, Unknown):
        return value
    if isinstance(value, str):
        return Unknown(f"condition {value!r} is not a Boolean")
    return value != 0.0


@_command("clear")
def _clear(it: _Interpreter, args: list[Word], where: str) -> None:
    defaults = _default_settings()
    for key in list(it.values):
        if not key.startswith("var.") and key not in defaults:
            it.delete(key)
    for key, value in defaults.items():
        it.set(key, value)


@_command("quit")
def _quit(it: _Interpreter, args: list[Word], where: str) -> None:
    if it.uncertain is not None:
        raise _Ambiguous("quit in a part of the script that may or may not run")
    it.quit = True


@_command("print")
def _print(it: _Interpreter, args: list[Word], where: str) -> None:
    # print substitutes variables in its (quoted) text itself, so an undefined one stops LAMMPS here too
    text = _arg(args, 0, "print")
    if isinstance(text, str):
        it.substitute(text, [])


@_command("shell", "python")
def _never_run(it: _Interpreter, args: list[Word], where: str) -> None:
    it.notes.append(f"{where}: the grader never executes shell or python commands")


# --------------------------------------------------------------------------------------------------- loading
_CACHE: weakref.WeakKeyDictionary[Submission, dict[tuple[str, tuple[tuple[str, str], ...]], Script]] = (
    weakref.WeakKeyDictionary()
)


def interpret(submission: Submission, file: str, variables: Mapping[str, str] | None = None) -> Script:
    """Interpret a submitted script (cached per submission); a missing main file raises SubmissionError."""
    key = (file, tuple(sorted((variables or {}).items())))
    per_submission = _CACHE.setdefault(submission, {})
    if key not in per_submission:
        text = submission.read_text(file)
        per_submission[key] = _Interpreter(submission, file, key[1]).run(text)
    return per_submission[key]


# --------------------------------------------------------------------------------------------------- lookups
def _plain(value: Any) -> Any:
    """Script values as plain JSON-like data (tuples to lists); Unknown and Absent kept."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _scalar(key: str) -> Callable[[list[str], Mapping[str, Any]], Any]:
    def resolve(rest: list[str], values: Mapping[str, Any]) -> Any:
        _no_more(rest, key)
        return _plain(values.get(key, Absent(f"{key} is not set")))

    return resolve


def _listing(key: str, first_is_value: bool) -> Callable[[list[str], Mapping[str, Any]], Any]:
    """Settings stored as words: `name` is the first word (or the list), `name.args` the rest, `name.N` one."""

    def resolve(rest: list[str], values: Mapping[str, Any]) -> Any:
        value = values.get(key)
        if value is None:
            return Absent(f"no {key} command")
        if isinstance(value, Unknown):
            return value
        words = list(value)
        if not rest:
            return words[0] if first_is_value else words
        if rest == ["args"]:
            return words[1:]
        if len(rest) == 1 and rest[0].isdigit():
            index = int(rest[0])
            return words[index] if index < len(words) else Absent(f"{key} has no word {index}")
        raise GraderConfigError(f"unknown setting {key}.{'.'.join(rest)}")

    return resolve


def _no_more(rest: list[str], head: str) -> None:
    if rest:
        raise GraderConfigError(f"unknown setting {head}.{'.'.join(rest)}")


def _mass_lookup(rest: list[str], values: Mapping[str, Any]) -> Any:
    masses = values.get("masses")
    if isinstance(masses, Unknown):
        return masses
    n = values.get("ntypes")

    def of(t: int) -> Any:
        for m in reversed(masses or ()):
            if m.lo <= t and (m.hi is None or t <= m.hi):
                return m.value
        return Absent(f"no mass set for atom type {t}")

    if not rest:
        if not isinstance(n, int):
            return n if isinstance(n, Unknown) else Absent("the number of atom types is not set")
        if n > MAX_TYPES:
            return Unknown(f"{n} atom types: more than the grader lists ({MAX_TYPES})")
        return [of(t) for t in range(1, n + 1)]
    if len(rest) == 1 and rest[0].isdigit():
        return of(int(rest[0]))
    raise GraderConfigError(f"unknown setting mass.{'.'.join(rest)}; use mass or mass.<type>")


_MINIMIZE = {"etol": 0, "ftol": 1, "maxiter": 2, "maxeval": 3}


def _minimize_lookup(rest: list[str], values: Mapping[str, Any]) -> Any:
    value = values.get("minimize")
    if value is None:
        return Absent("no minimize command")
    if isinstance(value, Unknown) or not rest:
        return _plain(value)
    if len(rest) == 1 and rest[0] in _MINIMIZE:
        return value[_MINIMIZE[rest[0]]]
    raise GraderConfigError(f"unknown setting minimize.{'.'.join(rest)}; known: {sorted(_MINIMIZE)}")


def _run_lookup(rest: list[str], values: Mapping[str, Any]) -> Any:
    if rest == ["total"]:
        return values.get("run.total", Absent("no run command"))
    _no_more(rest, "run")
    return values.get("run", Absent("no run command"))


def _neighbor_lookup(rest: list[str], values: Mapping[str, Any]) -> Any:
    if not rest:
        return [values.get("neighbor.skin"), values.get("neighbor.style")]
    if rest in (["skin"], ["style"]):
        return values.get(f"neighbor.{rest[0]}")
    raise GraderConfigError(f"unknown setting neighbor.{'.'.join(rest)}; use neighbor.skin or neighbor.style")


_VELOCITY_CREATE = {"temp": 0, "seed": 1}


def _velocity_lookup(rest: list[str], values: Mapping[str, Any]) -> Any:
    vel = values.get("velocity.create")
    if vel is None:
        return Absent("no 'velocity ... create' command")
    if isinstance(vel, Unknown):
        return vel
    if not rest:
        return [vel.group, *_plain(vel.args)]
    key = rest[0]
    _no_more(rest[1:], f"velocity.{key}")
    if key == "group":
        return vel.group
    if key in _VELOCITY_CREATE:
        index = _VELOCITY_CREATE[key]
        return vel.args[index] if index < len(vel.args) else Absent(f"velocity create has no {key}")
    words = list(vel.args[2:])
    for i in range(len(words) - 1, -1, -1):
        if words[i] == key and i + 1 < len(words):
            return words[i + 1]
    return Absent(f"velocity create sets no {key!r} keyword")


def _variable_lookup(rest: list[str], values: Mapping[str, Any]) -> Any:
    if len(rest) != 1:
        raise GraderConfigError("use variable.<name>")
    var = values.get(f"var.{rest[0]}")
    if var is None:
        return Absent(f"no variable {rest[0]}")
    if isinstance(var, Unknown):
        return var
    try:
        return var_value(rest[0], var, _Evaluator(values))
    except _Stop as exc:
        return Unknown(exc.message)


def _cmd_lookup(rest: list[str], values: Mapping[str, Any]) -> Any:
    if len(rest) != 1:
        raise GraderConfigError("use cmd.<command name>")
    value = values.get(f"cmd.{rest[0]}")
    return Absent(f"no {rest[0]} command") if value is None else _plain(value)


# -------- pair_coeff: element per atom type
@dataclass
class ElementMap:
    """Which element each atom type is, by the many-body pair_coeff lines in effect."""

    style: str
    elements: list[str]
    files: list[str]


def element_map(values: Mapping[str, Any], file_elements: Mapping[str, str] | None = None) -> Any:
    """ElementMap, or Unknown/Absent saying why there is none."""
    pair, coeffs, n = values.get("pair_style"), values.get("pair_coeff"), values.get("ntypes")
    for v in (pair, coeffs, n):
        if isinstance(v, Unknown):
            return v
    if pair is None:
        return Absent("no pair_style command")
    if not isinstance(n, int):
        return Absent("the number of atom types is not set (no create_box or read_data)")
    if n > MAX_TYPES:
        return Unknown(f"{n} atom types: more than the grader maps ({MAX_TYPES})")
    per_type: list[list[str]] = [[] for _ in range(n)]
    files: list[str] = []
    styles: list[str] = []
    t = tables()
    for coeff in coeffs or ():
        parsed = _manybody_args(pair, coeff.args)
        if parsed is None:
            continue
        base, rest = parsed
        if any(isinstance(w, Unknown) for w in (*coeff.args[:2], *rest)):
            return Unknown(f"pair_coeff at {coeff.where} uses a run-time value")
        words = [str(w) for w in rest]
        styles.append(base)
        if base in t.per_type_file:  # funcfl eam: pair_coeff I I file
            name = posixpath.basename(words[0])
            files.append(name)
            element = (file_elements or {}).get(name, name)
            ilo, ihi = type_bounds(str(coeff.args[0]), n)
            jlo, jhi = type_bounds(str(coeff.args[1]), n)
            for k in range(max(ilo, jlo), min(ihi or n, jhi or n) + 1):
                per_type[k - 1] = [element]
            continue
        nfiles, tail = t.manybody[base]
        files.extend(posixpath.basename(w) for w in (words[:1] + words[-n - 1 : -n] if tail else words[:nfiles]))
        names = words[-n:] if tail else words[nfiles:]
        if len(names) != n:
            return Unknown(f"pair_coeff at {coeff.where} names {len(names)} elements for {n} atom types")
        for k, element in enumerate(names):
            if element != "NULL" or not per_type[k]:
                per_type[k] = [element] if element != "NULL" else ["NULL"]
    if not styles:
        return Absent(f"pair_style {pair[0]} maps no elements to atom types (not a many-body or EAM style)")
    missing = [k + 1 for k, e in enumerate(per_type) if not e]
    if missing:
        return Absent(f"no pair_coeff for atom type(s) {missing}")
    return ElementMap("+".join(dict.fromkeys(styles)), [e[0] for e in per_type], list(dict.fromkeys(files)))


def _pair_coeff_lookup(rest: list[str], values: Mapping[str, Any]) -> Any:
    if not rest:
        coeffs = values.get("pair_coeff")
        return coeffs if isinstance(coeffs, Unknown) else [_plain(c.args) for c in coeffs or ()]
    key = rest[0]
    _no_more(rest[1:], f"pair_coeff.{key}")
    if key not in ("elements", "file", "files"):
        raise GraderConfigError("unknown setting pair_coeff." + key + "; known: elements, file, files")
    mapping = element_map(values)
    if not isinstance(mapping, ElementMap):
        return mapping
    if key == "elements":
        return mapping.elements
    if key == "files":
        return mapping.files
    return mapping.files[0] if len(mapping.files) == 1 else Unknown(f"several potential files: {mapping.files}")


# -------- fixes
def active_fixes(values: Mapping[str, Any]) -> tuple[list[_Fix], list[str]]:
    """Fixes defined in a state, and the reasons of fixes whose definition is unknown."""
    fixes: list[_Fix] = []
    unknown: list[str] = []
    for key, value in values.items():
        if key.startswith("fix."):
            if isinstance(value, _Fix):
                fixes.append(value)
            elif isinstance(value, Unknown):
                unknown.append(f"fix {key[4:]}: {value.reason}")
    return fixes, unknown


def select_fixes(
    values: Mapping[str, Any], selector: str, group: str | None = None, by_id: bool = True
) -> list[_Fix] | Absent:
    """Fixes of a style (accelerator suffixes ignored), else (by_id) the fix with that ID."""
    fixes, unknown = active_fixes(values)
    chosen = [f for f in fixes if base_style(f.style) == base_style(selector)]
    if not chosen and by_id:
        chosen = [f for f in fixes if f.id == selector]
    if group is not None:
        chosen = [f for f in chosen if f.group == group]
    if chosen:
        return chosen
    on = f" on group {group}" if group is not None else ""
    extra = f"; fixes not statically known: {'; '.join(unknown)}" if unknown else ""
    return Absent(f"no fix {selector}{on} is in effect{extra}")


def fix_value(fix: _Fix, rest: list[str], values: Mapping[str, Any]) -> Any:
    """One item of a fix: id, group, style, args, a keyword's values, its damp, damp_steps or Nth value."""
    if not rest or rest == ["args"]:
        return _plain(fix.args)
    key, more = rest[0], rest[1:]
    if key in ("id", "group", "style"):
        _no_more(more, f"fix.{key}")
        return getattr(fix, key)
    name, words = _fix_keyword(fix, key)
    if words is None:
        problem = f" ({fix.problem})" if fix.problem else ""
        return Absent(f"{fix.describe()} sets no {key}{problem}")
    if not more:
        return words[0] if len(words) == 1 else list(words)
    if len(more) == 1 and more[0].isdigit():
        index = int(more[0])
        return words[index] if index < len(words) else Absent(f"{key} of {fix.describe()} has no value {index}")
    if more in (["damp"], ["damp_steps"]):
        damp = damping(fix, name, words, values)
        if isinstance(damp, Unknown | Absent):
            return damp
        return damp[0] if more == ["damp"] else damp[1]
    raise GraderConfigError(f"unknown setting fix.<style>.{key}.{'.'.join(more)}; known: damp, damp_steps, N")


def _fix_keyword(fix: _Fix, key: str) -> tuple[str, tuple[Word, ...] | None]:
    if key == "pressure":
        for name in tables().pressure_keywords:
            words = fix.get(name)
            if words is not None:
                return name, words
        return key, None
    return key, fix.get(key)


def damping(fix: _Fix, keyword: str, words: tuple[Word, ...], values: Mapping[str, Any]) -> Any:
    """(damping time, damping time / timestep) of a fix keyword, or Unknown/Absent."""
    grammar = tables().fix_grammar.get(base_style(fix.style))
    index = grammar.damping.get(keyword) if grammar else None
    if index is None or index >= len(words):
        return Absent(f"{keyword} of {fix.describe()} has no damping parameter")
    damp = parse_number(words[index])
    if isinstance(words[index], Unknown):
        return words[index]
    if damp is None:
        return Unknown(f"damping {show(words[index])!r} of {fix.describe()} is not a number")
    dt = values.get("dt")
    if isinstance(dt, Unknown):
        return dt
    if not isinstance(dt, float) or dt <= 0:
        return Unknown(f"timestep {dt!r} is not a positive number")
    return damp, damp / dt


def _fix_lookup(rest: list[str], values: Mapping[str, Any]) -> Any:
    if not rest:
        raise GraderConfigError("use fix.<style or ID>[.<keyword>...]")
    chosen = select_fixes(values, rest[0])
    if isinstance(chosen, Absent):
        return chosen
    results = [fix_value(f, rest[1:], values) for f in chosen]
    if all(r == results[0] for r in results):
        return results[0]
    ids = ", ".join(f.id for f in chosen)
    return Unknown(f"{len(chosen)} fixes match {rest[0]!r} (IDs {ids}) with different values")


_RESOLVERS: dict[str, Callable[[list[str], Mapping[str, Any]], Any]] = {
    "units": _scalar("units"),
    "timestep": _scalar("dt"),
    "dimension": _scalar("dimension"),
    "ntypes": _scalar("ntypes"),
    "natoms": _scalar("natoms"),
    "box": _scalar("box.bounds"),
    "thermo": _scalar("thermo"),
    "min_style": _scalar("min_style"),
    "atom_style": _listing("atom_style", True),
    "pair_style": _listing("pair_style", True),
    "run_style": _listing("run_style", True),
    "boundary": _listing("boundary", False),
    "thermo_style": _listing("thermo_style", False),
    "lattice": _listing("lattice", False),
    "mass": _mass_lookup,
    "minimize": _minimize_lookup,
    "run": _run_lookup,
    "neighbor": _neighbor_lookup,
    "velocity": _velocity_lookup,
    "variable": _variable_lookup,
    "cmd": _cmd_lookup,
    "pair_coeff": _pair_coeff_lookup,
    "fix": _fix_lookup,
}
_ALIASES = {"lattice.style": "lattice.0", "lattice.scale": "lattice.1"}


def lookup(path: str, values: Mapping[str, Any]) -> Any:
    """The effective value of a setting path (e.g. timestep, fix.npt.temp.damp_steps) in a state."""
    parts = _ALIASES.get(path, path).split(".")
    resolver = _RESOLVERS.get(parts[0])
    if resolver is None:
        raise GraderConfigError(f"unknown LAMMPS setting {path!r}; known heads: {sorted(_RESOLVERS)}")
    try:
        return resolver(parts[1:], values)
    except _Stop as exc:  # e.g. a formula that divides by zero, met only at lookup
        return Unknown(exc.message)


# --------------------------------------------------------------------------------------------------- comparing
def _display(value: Any) -> Any:
    if isinstance(value, Unknown | Absent):
        return f"<{'unknown' if isinstance(value, Unknown) else 'absent'}: {value.reason}>"
    if isinstance(value, list | tuple):
        return [_display(v) for v in value]
    return value


def _first_unknown(value: Any) -> Unknown | Absent | None:
    if isinstance(value, Unknown | Absent):
        return value
    if isinstance(value, list | tuple):
        for v in value:
            found = _first_unknown(v)
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
        return Outcome(True, "any value accepted", None, _display(actual), 0.0)
    blocker = _first_unknown(actual)
    if blocker is not None and not isinstance(expected, list):
        return Outcome(False, blocker.reason, expected, _display(actual))
    if isinstance(expected, list):
        if not isinstance(actual, list | tuple):
            return Outcome(False, f"{show(_display(actual))!r} is not a list", expected, _display(actual))
        if len(actual) != len(expected):
            return Outcome(False, f"{len(actual)} values where {len(expected)} are expected", expected,
                           _display(actual))  # fmt: skip
        worst = 0.0
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            out = compare(a, e, tol, unit)
            if not out.passed:
                return Outcome(False, f"value {i}: {out.message}", expected, _display(actual), out.deviation)
            worst = max(worst, out.deviation or 0.0)
        return Outcome(True, f"{_display(actual)} matches {expected}", expected, _display(actual), worst)
    if isinstance(expected, bool):
        word = str(actual).lower()
        ok = word in (_YES if expected else _NO)
        return Outcome(ok, f"{actual!r} {'means' if ok else 'does not mean'} {expected}", expected, actual)
    if isinstance(expected, int | float):
        number = parse_number(actual)
        if number is None:
            return Outcome(False, f"{show(actual)!r} is not a number", expected, _display(actual))
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
            return Outcome(False, f"{show(actual)!r} is not {expected!r}", expected, _display(actual))
        ok = actual == expected
        return Outcome(ok, f"{actual!r} {'==' if ok else '!='} {expected!r}", expected, actual, 0.0 if ok else None)
    raise GraderConfigError(f"cannot compare against a {type(expected).__name__} ({expected!r})")


# --------------------------------------------------------------------------------------------------- checks
class _ScriptParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    at: Literal["last", "every", "any"] = Field(
        default="last",
        description="Which stage (run/minimize) to read: the last one where the setting is defined, every such "
        "stage, or any of them. A script with no run or minimize is read at its end.",
    )
    variables: dict[str, str] = Field(
        default_factory=dict, description="Variables the task passes on the LAMMPS command line (-var NAME VALUE)"
    )


def _stages(script: Script, probe: Callable[[Stage], Any], at: str) -> list[tuple[Stage, Any]] | Outcome:
    """The stages a check reads, with the probed value at each; a failed Outcome when none defines it."""
    probed = [(stage, probe(stage)) for stage in script.stages]
    present = [(s, v) for s, v in probed if not isinstance(v, Absent)]
    if not present:
        reason = probed[-1][1].reason
        drift = f"; note: {script.drift}" if script.drift else ""
        where = "at any run or minimize" if script.stages[-1].kind != "end" else "in the script"
        return Outcome(False, f"{reason} {where}{drift}")
    return [present[-1]] if at == "last" else present


def _combine(results: list[tuple[Stage, Outcome]], at: str) -> Outcome:
    if at == "any":
        passing = [(s, o) for s, o in results if o.passed]
        stage, out = passing[0] if passing else results[-1]
    else:
        failing = [(s, o) for s, o in results if not o.passed]
        stage, out = failing[0] if failing else results[-1]
    return Outcome(out.passed, f"{stage.label()}: {out.message}", out.expected, out.actual, out.deviation)


class SettingParams(_ScriptParams):
    """Parameters of lammps.setting."""

    any_of: list[Any] | None = Field(default=None, description="Accepted values; the setting must match one")
    not_: list[Any] | None = Field(default=None, alias="not", description="Values the setting must not match")
    min: float | None = Field(default=None, description="Smallest accepted number (inclusive)")
    max: float | None = Field(default=None, description="Largest accepted number (inclusive)")


def _judge(value: Any, expected: Any, has_ref: bool, p: SettingParams, tol: Tolerance, unit: str | None) -> Outcome:
    blocker = _first_unknown(value)
    if isinstance(value, Unknown | Absent) and blocker is not None:
        return Outcome(False, blocker.reason, expected, _display(value))
    notes: list[str] = []
    deviation: float | None = None
    if has_ref:
        out = compare(value, expected, tol, unit)
        if not out.passed:
            return out
        notes.append(out.message)
        deviation = out.deviation
    if p.any_of is not None:
        if not any(compare(value, option, tol, unit).passed for option in p.any_of):
            return Outcome(False, f"{show(_display(value))!r} is not one of {p.any_of}", p.any_of, _display(value))
        notes.append(f"one of {p.any_of}")
    if p.not_ is not None:
        hit = next((option for option in p.not_ if compare(value, option, tol, unit).passed), None)
        if hit is not None:
            return Outcome(False, f"{show(_display(value))!r} matches the excluded value {hit!r}", expected,
                           _display(value))  # fmt: skip
        notes.append(f"not any of {p.not_}")
    if p.min is not None or p.max is not None:
        number = parse_number(value)
        if number is None or not math.isfinite(number):
            return Outcome(False, f"{show(_display(value))!r} is not a finite number", expected, _display(value))
        low = -math.inf if p.min is None else p.min
        high = math.inf if p.max is None else p.max
        if not low <= number <= high:
            return Outcome(False, f"{number:g} is outside [{low:g}, {high:g}]", [p.min, p.max], number)
        notes.append(f"{number:g} within [{low:g}, {high:g}]")
    shown = _display(value)
    return Outcome(True, f"{show(shown)!r}: " + "; ".join(notes), expected if has_ref else None, shown, deviation)


@register("lammps.setting", params=SettingParams, needs_reference=False, numeric=True, thresholds=("min", "max"))
def setting(ctx: CheckContext[SettingParams]) -> Outcome:
    """The effective value of a LAMMPS setting (defaults included) vs the reference, a choice or a range."""
    p = ctx.params
    path = ctx.check.target.setting
    if not path:
        raise GraderConfigError(f"check {ctx.check.id!r}: lammps.setting needs target.setting (e.g. timestep)")
    lookup(path, _default_settings())  # an unknown path is a grader bug: raise before reading the submission
    has_ref = ctx.check.reference is not None
    if not has_ref and p.any_of is None and p.not_ is None and p.min is None and p.max is None:
        raise GraderConfigError(f"check {ctx.check.id!r}: give a reference, any_of, not, min or max")
    expected = ctx.expected() if has_ref else None
    script = interpret(ctx.submission, ctx.check.target.file, p.variables)
    if script.stop:
        return Outcome(False, script.stop, expected)
    chosen = _stages(script, lambda s: lookup(path, s.values), p.at)
    if isinstance(chosen, Outcome):
        return Outcome(False, f"{path}: {chosen.message}", expected)
    tol = ctx.check.effective_tolerance
    results = [(s, _judge(v, expected, has_ref, p, tol, ctx.check.unit)) for s, v in chosen]
    out = _combine(results, p.at)
    return Outcome(out.passed, f"{path} {out.message}", out.expected, out.actual, out.deviation)


class PairCoeffParams(_ScriptParams):
    """Parameters of lammps.pair_coeff."""

    allowed_files: list[str] | None = Field(
        default=None, description="Accepted potential files, by basename (Si.sw); None accepts any"
    )
    match: Literal["per_type", "set"] = Field(
        default="per_type",
        description="per_type: element of each atom type equals the reference list; set: the same elements "
        "in any order/multiplicity (types may repeat an element)",
    )
    file_elements: dict[str, str] = Field(
        default_factory=dict,
        description="Element of each single-element funcfl EAM file (Cu_u3.eam: Cu); without it the file "
        "basename stands for the element",
    )


@register("lammps.pair_coeff", params=PairCoeffParams, needs_reference=True)
def pair_coeff(ctx: CheckContext[PairCoeffParams]) -> Outcome:
    """Many-body pair_coeff: one element per atom type, equal to the reference, from an allowed file."""
    p = ctx.params
    expected = ctx.expected()
    if not isinstance(expected, list) or not all(isinstance(e, str) for e in expected):
        raise GraderConfigError(f"check {ctx.check.id!r}: reference must be a list of element names")
    script = interpret(ctx.submission, ctx.check.target.file, p.variables)
    if script.stop:
        return Outcome(False, script.stop, expected)
    chosen = _stages(script, lambda s: element_map(s.values, p.file_elements), p.at)
    if isinstance(chosen, Outcome):
        return Outcome(False, chosen.message, expected)

    def judge(stage: Stage, mapping: Any) -> Outcome:
        if not isinstance(mapping, ElementMap):
            return Outcome(False, mapping.reason, expected)
        got = mapping.elements
        n = stage.values.get("ntypes")
        if len(got) != n:
            return Outcome(False, f"{len(got)} elements for {n} atom types", expected, got)
        if p.match == "per_type":
            ok = got == expected
            text = f"elements per atom type {got} {'==' if ok else '!='} {expected}"
        else:
            named = {e for e in got if e != "NULL"}
            ok = named == set(expected)
            text = f"elements {sorted(named)} {'==' if ok else '!='} {sorted(set(expected))}"
        if not ok:
            return Outcome(False, f"pair_style {mapping.style}: {text}", expected, got)
        if p.allowed_files is not None:
            bad = [f for f in mapping.files if f not in p.allowed_files]
            if bad:
                return Outcome(False, f"potential file(s) {bad} not among {p.allowed_files}", expected, got)
        return Outcome(True, f"pair_style {mapping.style} with {mapping.files}: {text}", expected, got)

    return _combine([(s, judge(s, m)) for s, m in chosen], p.at)


class Range(BaseModel):
    """An inclusive numeric range; an open end is None."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    min: float | None = Field(default=None, description="Smallest accepted value")
    max: float | None = Field(default=None, description="Largest accepted value")


class FixParams(_ScriptParams):
    """Parameters of lammps.fix."""

    style: str = Field(description="Fix style, e.g. npt, nvt, langevin (accelerator suffixes ignored)")
    group: str | None = Field(default="all", description="Group the fix must act on; None accepts any group")
    keywords: dict[str, Any] = Field(
        default_factory=dict,
        description="Keyword -> expected values, null = any (temp: [300, 300, null]); 'pressure' means "
        "whichever of iso/aniso/tri the fix uses",
    )
    temp_damp_steps: Range | None = Field(
        default=None, description="Accepted thermostat damping in timesteps (Tdamp / dt); ~100 is the usual advice"
    )
    pressure_damp_steps: Range | None = Field(
        default=None, description="Accepted barostat damping in timesteps (Pdamp / dt); ~1000 is the usual advice"
    )


def _judge_fix(fix: _Fix, values: Mapping[str, Any], wanted: Mapping[str, Any], p: FixParams, tol: Tolerance,
               unit: str | None) -> Outcome:  # fmt: skip
    notes: list[str] = []
    worst = 0.0
    for key, expected in wanted.items():
        actual = fix_value(fix, [key], values)
        out = compare(actual, expected, tol, unit)
        if not out.passed:
            return Outcome(False, f"{fix.describe()}: {key}: {out.message}", dict(wanted), _display(actual))
        worst = max(worst, out.deviation or 0.0)
        notes.append(f"{key} {_display(actual)}")
    time_unit = tables().time_unit.get(str(values.get("units")), "time units")
    for key, rng in (("temp", p.temp_damp_steps), ("pressure", p.pressure_damp_steps)):
        if rng is None:
            continue
        name, words = _fix_keyword(fix, key)
        if words is None:
            return Outcome(False, f"{fix.describe()} sets no {key}", dict(wanted))
        damp = damping(fix, name, words, values)
        if isinstance(damp, Unknown | Absent):
            return Outcome(False, f"{fix.describe()}: {damp.reason}", dict(wanted))
        low = -math.inf if rng.min is None else rng.min
        high = math.inf if rng.max is None else rng.max
        text = f"{key} damping {damp[0]:g} {time_unit} = {damp[1]:.4g} steps of {values.get('dt')} {time_unit}"
        if not low <= damp[1] <= high:
            return Outcome(False, f"{fix.describe()}: {text}, outside [{low:g}, {high:g}] steps "
                           "(damping is a time, not a number of steps)", dict(wanted), damp[1])  # fmt: skip
        notes.append(text)
    return Outcome(True, f"{fix.describe()}: " + ("; ".join(notes) or "present"), dict(wanted), None, worst)


@register(
    "lammps.fix",
    params=FixParams,
    needs_reference=False,
    numeric=True,
    thresholds=("temp_damp_steps", "pressure_damp_steps"),
)
def fix(ctx: CheckContext[FixParams]) -> Outcome:
    """A fix of a style on a group, in effect at a run, with keyword values and damping in range."""
    p = ctx.params
    wanted: dict[str, Any] = dict(p.keywords)
    if ctx.check.reference is not None:
        ref = ctx.expected()
        if not isinstance(ref, dict):
            raise GraderConfigError(f"check {ctx.check.id!r}: lammps.fix reference must map keywords to values")
        wanted.update(ref)
    script = interpret(ctx.submission, ctx.check.target.file, p.variables)
    if script.stop:
        return Outcome(False, script.stop, wanted)
    chosen = _stages(script, lambda s: select_fixes(s.values, p.style, p.group, by_id=False), p.at)
    if isinstance(chosen, Outcome):
        return Outcome(False, chosen.message, wanted)
    tol = ctx.check.effective_tolerance

    def judge(stage: Stage, fixes: Any) -> Outcome:
        outcomes = [_judge_fix(f, stage.values, wanted, p, tol, ctx.check.unit) for f in fixes]
        return next((o for o in outcomes if o.passed), outcomes[0])

    return _combine([(s, judge(s, f)) for s, f in chosen], p.at)


class NoFixParams(_ScriptParams):
    """Parameters of lammps.no_fix."""

    styles: list[str] = Field(min_length=1, description="Fix styles that must not be in effect (suffixes ignored)")
    group: str | None = Field(default=None, description="Only fixes on this group count; None: fixes on any group")


@register("lammps.no_fix", params=NoFixParams, needs_reference=False)
def no_fix(ctx: CheckContext[NoFixParams]) -> Outcome:
    """None of the given fix styles is in effect at the run(s) read.

    For a second time integrator (an extra `fix nve` beside `fix npt` moves every atom twice per step) or a
    second thermostat.
    """
    p = ctx.params
    script = interpret(ctx.submission, ctx.check.target.file, p.variables)
    if script.stop:
        return Outcome(False, script.stop)
    banned = {base_style(s) for s in p.styles}

    def judge(stage: Stage) -> Outcome:
        fixes, unknown = active_fixes(stage.values)
        hits = [f for f in fixes if base_style(f.style) in banned and p.group in (None, f.group)]
        if hits:
            return Outcome(False, f"{hits[0].describe()} is in effect; none of {sorted(banned)} may be", None,
                           hits[0].style)  # fmt: skip
        if unknown:
            return Outcome(False, f"cannot rule out {sorted(banned)}: fixes not statically known: {'; '.join(unknown)}")
        return Outcome(True, f"none of {sorted(banned)} in effect")

    stages = script.stages[-1:] if p.at == "last" else script.stages
    return _combine([(s, judge(s)) for s in stages], p.at)
