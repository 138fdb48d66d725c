"""The interpreter: runs a script's commands over a state dictionary, never executing anything the script names.

It records the state at every `run` and `minimize` (a *stage*), and which command set each piece of state, so a
value can be told apart from LAMMPS's default.
"""

from __future__ import annotations

import posixpath
import re
import weakref
from collections.abc import Mapping
from typing import Any

from cmb.grading._submission import Submission, SubmissionError
from cmb.grading.lammps import _control  # noqa: F401  (registers the control-flow commands)
from cmb.grading.lammps._commands import COMMANDS
from cmb.grading.lammps._defaults import default_settings, tables
from cmb.grading.lammps._formula import FormulaEvaluator, Meter, var_value
from cmb.grading.lammps._lines import logical_lines, split_words
from cmb.grading.lammps._state import (
    Ambiguous,
    CannotFollow,
    Frame,
    LammpsError,
    Limit,
    Script,
    Stage,
    Stop,
    Unknown,
    Var,
    Word,
    c_format,
)

# Bounds that keep hostile scripts cheap; no real input script comes near them.
MAX_COMMANDS = 50_000
MAX_LINE = 100_000
MAX_READ_BYTES = 64 * 1024 * 1024
MAX_STAGES = 2_000
MAX_SNAPSHOT_ITEMS = 2_000_000

CONTROL = frozenset({"label", "jump", "next", "if", "include", "variable", "clear", "quit"})
MISSING = object()
_SPECIAL = re.compile(r"[#$\"']")  # comment, substitution and quote characters


class Interpreter:
    """Runs a script's commands over a state dictionary, never executing anything the script names."""

    def __init__(self, submission: Submission, main: str, variables: tuple[tuple[str, str], ...]) -> None:
        self.sub = submission
        self.main = main
        self.base = posixpath.dirname(main)
        self.values: dict[str, Any] = default_settings()
        self.set_at: dict[str, str] = {}  # state key -> the command that set it (absent: LAMMPS's default)
        self.frames: list[Frame] = []
        self.stages: list[Stage] = []
        self.notes: list[str] = []
        self.shadow: str | None = None  # inside a branch that may or may not run
        self.drift: str | None = None  # control flow could not be followed from here on
        self.jump_skip = False
        self.quit = False
        self.if_depth = 0
        self.commands = 0
        self.meter = Meter()
        self.read_bytes = 0
        self.snapshot_items = 0
        self.file_cache: dict[str, list[tuple[int, str]]] = {}
        self.labels: dict[str, dict[str, int]] = {}  # per script file: label -> its first line
        self.where = "the command line"  # the command being run
        for name, value in variables:
            self.set(f"var.{name}", Var("index", (value,)))

    # ---- state writes: in uncertain context a changed value becomes Unknown
    @property
    def uncertain(self) -> str | None:
        """Why the current command may or may not take effect, or None when it certainly does."""
        return self.shadow or self.drift

    def set(self, key: str, value: Any, *, default: bool = False) -> None:
        """Write the state; `default`: the value is LAMMPS's own (reset by `units` or `clear`)."""
        reason = self.uncertain
        if reason is not None and self.values.get(key, MISSING) != value:
            value = Unknown(reason)
        self.values[key] = value
        if default:
            self.set_at.pop(key, None)
        else:
            self.set_at[key] = self.where

    def delete(self, key: str) -> None:
        """Remove a piece of state (a fix, a variable)."""
        if key not in self.values:
            return
        if self.uncertain is not None:
            self.values[key] = Unknown(self.uncertain)
        else:
            del self.values[key]
            self.set_at.pop(key, None)

    def drift_from(self, reason: str) -> None:
        """From here on control flow cannot be followed: every later change becomes Unknown."""
        if self.drift is None:
            self.drift = f"control flow not statically evaluated after {reason}"
            self.notes.append(self.drift)

    # ---- running
    def run(self, text: str) -> Script:
        """Interpret the main script."""
        stop: str | None = None
        try:
            self.frames.append(Frame(self.main, logical_lines(text)))
            while self.frames and not self.quit:
                frame = self.frames[-1]
                if frame.pc >= len(frame.lines):
                    self.frames.pop()
                    continue
                lineno, line = frame.lines[frame.pc]
                frame.pc += 1
                self.one(line, f"{frame.file}:{lineno}")
        except Stop as exc:
            stop = exc.render()
        stages = self.stages or [Stage("end", "end of script", dict(self.values), dict(self.set_at))]
        return Script(stages, stop, self.drift, self.notes)

    def one(self, line: str, where: str) -> None:
        """Parse and execute one command line."""
        self.commands += 1
        try:
            self.meter.charge(len(line) + 1)
            if self.commands > MAX_COMMANDS:
                raise Limit(
                    f"the script executes more than {MAX_COMMANDS} commands (an endless loop?); "
                    "control flow not statically evaluated"
                )
        except Limit as exc:
            exc.where = where
            raise
        try:
            words = self.parse(line)
            if not words:
                return
            name = words[0]
            if isinstance(name, Unknown):
                raise Ambiguous(f"the command name is a run-time value ({name.reason})")
            self.dispatch(name, words[1:], where)
        except Ambiguous as amb:
            self.drift_from(f"{where} ({amb})")
        except Stop as err:
            if err.where is None:
                err.where = where
            if self.uncertain is None or isinstance(err, Limit):
                raise
            self.drift_from(f"{where}, where LAMMPS may stop ({err.message})")

    def dispatch(self, name: str, args: list[Word], where: str) -> None:
        """Run one command: LAMMPS's box rules, then its handler (unknown commands are only recorded)."""
        self.where = where
        t = tables()
        box = self.values.get("box")
        if box is False and name in t.box_required:
            raise LammpsError(t.box_required[name])
        if box is True and name in t.box_forbidden:
            raise LammpsError(t.box_forbidden[name])
        if name not in CONTROL:
            self.set(f"cmd.{name}", tuple(args))
        handler = COMMANDS.get(name)
        if handler is not None:
            handler(self, args, where)

    def stage(self, kind: str, where: str) -> None:
        self.snapshot_items += len(self.values)
        if len(self.stages) >= MAX_STAGES or self.snapshot_items > MAX_SNAPSHOT_ITEMS:
            raise Limit(f"more than {MAX_STAGES} run/minimize commands, or too large a state to track")
        self.stages.append(Stage(kind, where, dict(self.values), dict(self.set_at)))

    # ---- parsing a line: comment, substitution, words
    def parse(self, line: str) -> list[Word]:
        reasons: list[str] = []
        text = self.substitute(line, reasons)
        if len(text) > MAX_LINE:
            raise CannotFollow(f"a line longer than {MAX_LINE} characters after variable substitution")
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
                    raise CannotFollow(f"a line longer than {MAX_LINE} characters after variable substitution")
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
                raise LammpsError("Invalid variable name")
            name, after = line[i + 2 : end], end + 1
        elif nxt == "(":
            depth, j = 0, i + 2
            while j < len(line) and (line[j] != ")" or depth):
                depth += {"(": 1, ")": -1}.get(line[j], 0)
                j += 1
            if j >= len(line):
                raise LammpsError("Invalid immediate variable")
            expr, fmt = line[i + 2 : j], "%.20g"
            colon = expr.rfind(":")
            if colon >= 0 and expr[colon + 1 : colon + 2] == "%":
                expr, fmt = expr[:colon], expr[colon + 1 :]
            value = FormulaEvaluator(self.values, self.meter).formula(expr)
            if isinstance(value, str):
                value = Unknown(f"$({expr}) is not a number")
            return (value if isinstance(value, Unknown) else c_format(fmt, value)), j + 1
        else:
            name, after = nxt, i + 2
        text = self.retrieve(name)
        if text is None:
            raise LammpsError(f"Substitution for illegal variable {name}")
        return text, after

    def retrieve(self, name: str) -> str | Unknown | None:
        var = self.values.get(f"var.{name}")
        if var is None or isinstance(var, Unknown):
            return var
        return var_value(name, var, FormulaEvaluator(self.values, self.meter))

    # ---- files
    def path(self, word: Word, what: str) -> str:
        if isinstance(word, Unknown):
            raise Ambiguous(f"{what} names a file known only at run time ({word.reason})")
        if word.startswith(("/", "~")) or "\\" in word:
            raise CannotFollow(
                f"{what} {word}: the file is outside the submission; the grader reads only files inside it"
            )
        rel = posixpath.normpath(posixpath.join(self.base, word))
        if rel == ".." or rel.startswith("../"):
            raise CannotFollow(f"{what} {word}: the file is outside the submission")
        return rel

    def read(self, rel: str, what: str) -> str:
        try:
            text = self.sub.read_text(rel)
        except SubmissionError as exc:
            raise CannotFollow(f"{what}: {exc}") from None
        self.read_bytes += len(text)
        if self.read_bytes > MAX_READ_BYTES:
            raise Limit(f"the script reads more than {MAX_READ_BYTES} bytes of included files")
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


_CACHE: weakref.WeakKeyDictionary[Submission, dict[tuple[str, tuple[tuple[str, str], ...]], Script]] = (
    weakref.WeakKeyDictionary()
)


def interpret(submission: Submission, file: str, variables: Mapping[str, str] | None = None) -> Script:
    """Interpret a submitted script (cached per submission); a missing main file raises SubmissionError."""
    key = (file, tuple(sorted((variables or {}).items())))
    per_submission = _CACHE.setdefault(submission, {})
    if key not in per_submission:
        text = submission.read_text(file)
        per_submission[key] = Interpreter(submission, file, key[1]).run(text)
    return per_submission[key]
