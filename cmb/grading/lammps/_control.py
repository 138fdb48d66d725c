"""Control flow: loops from label/jump/next, include, if on statically known conditions, clear, quit, print."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cmb.grading.lammps._commands import handles
from cmb.grading.lammps._defaults import default_settings
from cmb.grading.lammps._formula import FormulaEvaluator
from cmb.grading.lammps._lines import first_words
from cmb.grading.lammps._state import Ambiguous, Frame, LammpsError, Limit, Unknown, Var, Word, arg, known

if TYPE_CHECKING:
    from cmb.grading.lammps._interpreter import Interpreter

MAX_NESTING = 16


@handles("next")
def _next(it: Interpreter, args: list[Word], where: str) -> None:
    if not args:
        raise LammpsError("Illegal next command")
    if it.shadow is not None:
        raise Ambiguous("next inside a branch whose condition is known only at run time")
    for word in args:
        name = known(word, "next variable")
        var = it.values.get(f"var.{name}")
        if var is None:
            raise LammpsError("Invalid variable in next command")
        if isinstance(var, Unknown):
            raise Ambiguous(f"loop variable {name} is a run-time value")
        if var.style not in ("index", "loop"):
            raise LammpsError("Invalid variable style with next command")
        size = len(var.values) if var.style == "index" else var.hi - var.lo + 1
        if var.index + 1 >= size:
            it.delete(f"var.{name}")  # exhausted: deleted, and the next jump is skipped
            it.jump_skip = True
        else:
            it.set(f"var.{name}", Var(var.style, var.values, var.index + 1, var.lo, var.hi, var.pad))


@handles("jump")
def _jump(it: Interpreter, args: list[Word], where: str) -> None:
    if not args or len(args) > 2:
        raise LammpsError("Illegal jump command")
    if it.jump_skip:
        it.jump_skip = False
        return
    if it.uncertain is not None:
        raise Ambiguous("a jump in a part of the script that may or may not run")
    target = args[0]
    label = known(args[1], "jump label") if len(args) == 2 else None
    if target == "SELF":
        frame = it.frames[-1]
    else:
        rel, lines = it.script_lines(target, "jump")
        it.frames.pop()  # LAMMPS closes the current file and reads the new one instead
        frame = Frame(rel, lines)
        it.frames.append(frame)
    frame.pc = 0
    if label is not None:
        index = _label_index(it, frame).get(label)
        if index is None:
            raise LammpsError(f"Label {label} wasn't found in input script")
        frame.pc = index


def _label_index(it: Interpreter, frame: Frame) -> dict[str, int]:
    """The first line of each label of a script file, found once: a loop of N jumps over a long file stays linear."""
    if frame.file not in it.labels:
        index: dict[str, int] = {}
        for i, (_, text) in enumerate(frame.lines):
            words = first_words(text)
            if len(words) >= 2 and words[0] == "label":
                index.setdefault(words[1], i)
        it.labels[frame.file] = index
    return it.labels[frame.file]


@handles("include")
def _include(it: Interpreter, args: list[Word], where: str) -> None:
    if len(args) != 1:
        raise LammpsError("Illegal include command")
    if len(it.frames) >= MAX_NESTING:
        raise Limit(f"include nested more than {MAX_NESTING} deep (a file that includes itself?)")
    rel, lines = it.script_lines(args[0], "include")
    if it.shadow is not None:
        it.drift_from(f"{where} (include inside a branch known only at run time)")
    it.frames.append(Frame(rel, lines))


@handles("if")
def _if(it: Interpreter, args: list[Word], where: str) -> None:
    if len(args) < 3 or args[1] != "then":
        raise LammpsError("Illegal if command")
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
                    raise LammpsError("Illegal if command")
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
        raise Limit(f"if commands nested more than {MAX_NESTING} deep")
    try:
        for condition, commands in branches:
            truth = _condition(it, condition)
            if truth is False:
                continue
            if isinstance(truth, Unknown):
                it.shadow = it.shadow or f"{where}: if condition known only at run time ({truth.reason})"
            for command in commands:
                if isinstance(command, Unknown):
                    raise Ambiguous(f"if branch command is a run-time value ({command.reason})")
                it.one(command, where)
            if truth is True:
                return
    finally:
        it.shadow = saved
        it.if_depth -= 1


def _condition(it: Interpreter, condition: Word | None) -> bool | Unknown:
    if condition is None:
        return True
    if isinstance(condition, Unknown):
        return condition
    reasons: list[str] = []
    text = it.substitute(condition, reasons)
    if reasons:
        return Unknown(reasons[0])
    value = FormulaEvaluator(it.values, it.meter).formula(text, boolean=True)
    if isinstance(value, Unknown):
        return value
    if isinstance(value, str):
        return Unknown(f"condition {value!r} is not a Boolean")
    return value != 0.0


@handles("clear")
def _clear(it: Interpreter, args: list[Word], where: str) -> None:
    defaults = default_settings()
    for key in list(it.values):
        if not key.startswith("var.") and key not in defaults:
            it.delete(key)
    for key, value in defaults.items():
        it.set(key, value, default=True)


@handles("quit")
def _quit(it: Interpreter, args: list[Word], where: str) -> None:
    if it.uncertain is not None:
        raise Ambiguous("quit in a part of the script that may or may not run")
    it.quit = True


@handles("print")
def _print(it: Interpreter, args: list[Word], where: str) -> None:
    # print substitutes variables in its (quoted) text itself, so an undefined one stops LAMMPS here too
    text = arg(args, 0, "print")
    if isinstance(text, str):
        it.substitute(text, [])


@handles("shell", "python")
def _never_run(it: Interpreter, args: list[Word], where: str) -> None:
    it.notes.append(f"{where}: the grader never executes shell or python commands")
