"""The interpreter's values: script words, values known only at run time, records of commands, stages, errors."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

WS = " \t\n\v\f\r"
FLOAT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
INT = re.compile(r"[+-]?\d+")


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
class Var:
    """A variable: its style and values, and for index/loop variables the current position."""

    style: str
    values: tuple[str, ...] = ()
    index: int = 0
    lo: int = 0
    hi: int = 0
    pad: int = 0


@dataclass(frozen=True)
class Fix:
    """A fix as defined: its arguments, and the keywords they are read into by the style's grammar."""

    id: str
    group: str
    style: str
    args: tuple[Word, ...]
    keywords: tuple[tuple[str, tuple[Word, ...]], ...]
    where: str
    problem: str | None = None

    def get(self, name: str) -> tuple[Word, ...] | None:
        """The values of a keyword (its last occurrence), None when absent."""
        for key, values in reversed(self.keywords):
            if key == name:
                return values
        return None

    def describe(self) -> str:
        """The fix, for messages."""
        return f"fix {self.id} ({self.style} on group {self.group}, {self.where})"


@dataclass(frozen=True)
class PairCoeff:
    """One pair_coeff command."""

    args: tuple[Word, ...]
    where: str


@dataclass(frozen=True)
class Mass:
    """One mass command: the mass of atom types lo..hi."""

    lo: int
    hi: int | None  # None: up to the number of atom types
    value: float | Unknown


@dataclass(frozen=True)
class Stage:
    """The interpreter's state at one `run` or `minimize` (or at the end of a script that has neither)."""

    kind: str
    where: str
    values: Mapping[str, Any]
    set_at: Mapping[str, str] = field(default_factory=dict)  # state key -> the command that set it

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


@dataclass(frozen=True)
class Velocity:
    """A velocity command of one style (create, set, scale ...)."""

    group: str
    style: str
    args: tuple[Word, ...]
    where: str


@dataclass
class Frame:
    """One script file being read (the main script, an include), with its next line."""

    file: str
    lines: list[tuple[int, str]]
    pc: int = 0


class Stop(Exception):
    """Interpretation stops here."""

    prefix = ""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.where: str | None = None

    def render(self) -> str:
        """The message with its place in the script."""
        return f"{self.where or '?'}: {self.prefix}{self.message}"


class LammpsError(Stop):
    """LAMMPS itself would stop here with this message."""

    prefix = "LAMMPS stops here: "


class CannotFollow(Stop):
    """The grader cannot follow the script past this point."""

    prefix = "the grader cannot follow the script: "


class Limit(CannotFollow):
    """A bound of the interpreter was reached: always fatal."""


class Ambiguous(Exception):
    """A command's effect depends on a value known only at run time."""


def strict_float(word: Word, what: str) -> float | Unknown:
    """A float as LAMMPS's utils::numeric accepts it, or a LAMMPS error."""
    if isinstance(word, Unknown):
        return word
    if not FLOAT.fullmatch(word):
        raise LammpsError(f"Expected floating point parameter instead of {word!r} ({what})")
    return float(word)


def strict_int(word: Word, what: str) -> int | Unknown:
    """An integer as LAMMPS's utils::inumeric accepts it (no 1e4, no 10.0), or a LAMMPS error."""
    if isinstance(word, Unknown):
        return word
    if not INT.fullmatch(word) or len(word) > 30:
        raise LammpsError(f"Expected integer parameter instead of {word!r} ({what})")
    return int(word)


def parse_number(value: Any) -> float | None:
    """A number from a script word (LAMMPS's own syntax) or a number; None when it is neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and FLOAT.fullmatch(value.strip()):
        return float(value)
    return None


def c_format(fmt: str, x: float) -> str | Unknown:
    """printf-style formatting of one float, for the formats LAMMPS users write (%.3f, %g, %10.4e)."""
    if fmt.count("%") != 1 or not re.search(r"%[-+ #0]*\d{0,3}(?:\.\d{1,3})?[eEfgG]", fmt):
        return Unknown(f"format {fmt!r} is not one the grader evaluates")
    return fmt % x


def arg(args: list[Word], i: int, command: str) -> Word:
    if i >= len(args):
        raise LammpsError(f"Illegal {command} command")
    return args[i]


def known(word: Word, what: str) -> str:
    if isinstance(word, Unknown):
        raise Ambiguous(f"{what} is a run-time value ({word.reason})")
    return word


def type_index(word: str) -> int:
    if not INT.fullmatch(word) or len(word) > 30:
        raise LammpsError(f"Expected integer parameter instead of {word!r} (atom type)")
    return int(word)


def type_bounds(word: str, n: int | None) -> tuple[int, int | None]:
    """LAMMPS's type range syntax: 3, *, 2*, *4, 1*3 -> (lo, hi); hi None means up to ntypes."""
    lo: int
    hi: int | None
    if "*" not in word:
        lo = hi = type_index(word)
    else:
        a, _, b = word.partition("*")
        lo = 1 if a == "" else type_index(a)
        hi = n if b == "" else type_index(b)
    if lo < 1 or (n is not None and hi is not None and hi > n) or (hi is not None and hi < lo):
        raise LammpsError(f"Numeric index {word} is out of bounds (1-{n if n is not None else '?'})")
    return lo, hi
