"""LAMMPS equal-style formulas and `if` conditions, evaluated over the interpreter's state by a small parser.

Never by eval(): tokens, precedence climbing with LAMMPS's precedence, the math functions LAMMPS has; anything
known only while LAMMPS runs (computes, fixes, thermo keywords) is `Unknown`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any, cast

from cmb.grading._compare import show
from cmb.grading.lammps._state import FLOAT, WS, LammpsError, Limit, Unknown, Var, c_format, parse_number

MAX_CHARS = 20_000_000
MAX_FORMULA_DEPTH = 40

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
        if c in WS:
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
            tokens.append(("num", float(word)) if FLOAT.fullmatch(word) else ("str", word))
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


class Meter:
    """Counts characters scanned, so that loops over long lines or formulas stay bounded."""

    def __init__(self) -> None:
        self.used = 0

    def charge(self, n: int) -> None:
        self.used += n
        if self.used > MAX_CHARS:
            raise Limit(
                f"the script makes the grader scan more than {MAX_CHARS} characters (an endless loop, or "
                "exponentially nested variables?); control flow not statically evaluated"
            )


class FormulaEvaluator:
    """Evaluates LAMMPS equal-style formulas and `if` conditions over a state, without eval()."""

    def __init__(self, values: Mapping[str, Any], meter: Meter | None = None) -> None:
        self.values = values
        self.meter = meter or Meter()
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
            raise LammpsError(f"Invalid variable reference v_{name} in variable formula")
        if isinstance(var, Unknown):
            return var
        if name in self.memo:
            return self.memo[name]
        if name in self.active:
            raise LammpsError(f"Variable {name} has a circular dependency")
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
                raise LammpsError("Variable evaluation before simulation box is defined")
            dt = self.values.get("dt")
            return dt if isinstance(dt, float | Unknown) else Unknown("timestep unknown")
        return Unknown(f"{word!r} is known only at run time")


def var_value(name: str, var: Var, ev: FormulaEvaluator) -> str | Unknown:
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
        return number if isinstance(number, Unknown) else c_format(var.values[1], number)
    return Unknown(f"variable {name} is {var.style}-style, known only when LAMMPS runs")


class _Parser:
    """Precedence climbing over tokens, with LAMMPS's precedence (unary minus binds tighter than ^)."""

    def __init__(self, tokens: list[tuple[str, Any]], ev: FormulaEvaluator, boolean: bool) -> None:
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
            raise LammpsError("Divide by 0 in variable formula")
        return a / b
    if op == "%":
        if b == 0.0:
            raise LammpsError("Modulo 0 in variable formula")
        return math.fmod(a, b) if math.isfinite(a) else math.nan
    if op == "^":
        if b == 0.0:
            return 1.0
        if a == 0.0 and b < 0.0:
            raise LammpsError("Invalid power expression in variable formula")
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
            raise LammpsError(message)
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
