"""The commands that set what a run uses (units, box, pair styles, fixes, velocities, variables, runs).

Each handler is registered by name with `handles`; the interpreter dispatches to it after checking that the
simulation box exists (or not) as LAMMPS requires.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from cmb.grading._compare import show
from cmb.grading.lammps._data_file import parse_data_file
from cmb.grading.lammps._defaults import base_style, tables
from cmb.grading.lammps._state import (
    Ambiguous,
    CannotFollow,
    Fix,
    LammpsError,
    Mass,
    PairCoeff,
    Unknown,
    Var,
    Velocity,
    Word,
    arg,
    known,
    strict_float,
    strict_int,
    type_bounds,
)

if TYPE_CHECKING:
    from cmb.grading.lammps._interpreter import Interpreter

Handler = Callable[["Interpreter", list[Word], str], None]
COMMANDS: dict[str, Handler] = {}


def handles(*names: str) -> Callable[[Handler], Handler]:
    def decorate(fn: Handler) -> Handler:
        for name in names:
            COMMANDS[name] = fn
        return fn

    return decorate


@handles("units")
def _units(it: Interpreter, args: list[Word], where: str) -> None:
    t = tables()
    if len(args) != 1:
        raise LammpsError("Illegal units command")
    style = args[0]
    if isinstance(style, str) and style not in t.dt:
        raise LammpsError("Illegal units command")
    it.set("units", style)
    # LAMMPS resets the timestep and the neighbor skin to the new style's defaults
    it.set("dt", t.dt[style] if isinstance(style, str) else style, default=True)
    it.set("neighbor.skin", t.skin[style] if isinstance(style, str) else style, default=True)


@handles("timestep")
def _timestep(it: Interpreter, args: list[Word], where: str) -> None:
    if len(args) != 1:
        raise LammpsError("Illegal timestep command")
    it.set("dt", strict_float(args[0], "timestep"))


def _make_tuple_setting(name: str, count: int | None = None) -> Handler:
    def handler(it: Interpreter, args: list[Word], where: str) -> None:
        if not args or (count is not None and len(args) != count):
            raise LammpsError(f"Illegal {name} command")
        it.set(name, tuple(args))

    return handler


for _name, _count in (("atom_style", None), ("thermo_style", None), ("lattice", None), ("run_style", None),
                      ("boundary", 3)):  # fmt: skip
    COMMANDS[_name] = _make_tuple_setting(_name, _count)


@handles("dimension")
def _dimension(it: Interpreter, args: list[Word], where: str) -> None:
    it.set("dimension", strict_int(arg(args, 0, "dimension"), "dimension"))


@handles("min_style")
def _min_style(it: Interpreter, args: list[Word], where: str) -> None:
    it.set("min_style", arg(args, 0, "min_style"))


@handles("thermo")
def _thermo(it: Interpreter, args: list[Word], where: str) -> None:
    word = arg(args, 0, "thermo")
    it.set("thermo", word if isinstance(word, str) and word.startswith("v_") else strict_int(word, "thermo"))


@handles("neighbor")
def _neighbor(it: Interpreter, args: list[Word], where: str) -> None:
    if len(args) != 2:
        raise LammpsError("Illegal neighbor command")
    it.set("neighbor.skin", strict_float(args[0], "neighbor skin"))
    it.set("neighbor.style", args[1])


@handles("create_box")
def _create_box(it: Interpreter, args: list[Word], where: str) -> None:
    arg(args, 1, "create_box")  # the region
    n = strict_int(args[0], "create_box atom types")
    if isinstance(n, int) and n < 1:
        raise LammpsError("Illegal create_box command")
    it.set("ntypes", n)
    it.set("box", True)


@handles("read_restart")
def _read_restart(it: Interpreter, args: list[Word], where: str) -> None:
    restored = Unknown(f"restored from the restart file read at {where}")
    for key in ("ntypes", "natoms", "units", "dt", "atom_style", "boundary", "dimension", "masses", "pair_style",
                "pair_coeff"):  # fmt: skip
        it.set(key, restored)
    it.set("box", True)


@handles("read_data")
def _read_data(it: Interpreter, args: list[Word], where: str) -> None:
    words = [w for w in args[1:] if isinstance(w, str)]
    adding = "add" in words
    if it.values.get("box") is True and not adding:
        raise LammpsError("Cannot read_data without add keyword after simulation box is defined")
    extra = 0
    if "extra/atom/types" in words:
        i = args.index("extra/atom/types")
        n = strict_int(arg(args, i + 1, "read_data"), "extra/atom/types")
        extra = n if isinstance(n, int) else 0
    it.set("box", True)
    try:
        rel = it.path(arg(args, 0, "read_data"), "read_data")
        text = it.read(rel, f"read_data {rel}")
    except (CannotFollow, Ambiguous) as exc:
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
        it.set("masses", masses + tuple(Mass(t, t, m) for t, m in data.masses))


@handles("mass")
def _mass(it: Interpreter, args: list[Word], where: str) -> None:
    if len(args) != 2:
        raise LammpsError("Illegal mass command")
    spec = known(args[0], "mass type")
    n = it.ntypes()
    lo, hi = type_bounds(spec, n if isinstance(n, int) else None)
    value = strict_float(args[1], "mass")
    masses = it.values.get("masses")
    if isinstance(masses, tuple):
        it.set("masses", (*masses, Mass(lo, hi, value)))


@handles("pair_style")
def _pair_style(it: Interpreter, args: list[Word], where: str) -> None:
    style = arg(args, 0, "pair_style")
    old = it.values.get("pair_style")
    if not (isinstance(old, tuple) and old[0] == style):
        it.set("pair_coeff", ())  # a different pair style starts with no coefficients
    it.set("pair_style", tuple(args))


@handles("pair_coeff")
def _pair_coeff(it: Interpreter, args: list[Word], where: str) -> None:
    pair = it.values.get("pair_style")
    if pair is None:
        raise LammpsError("Pair_coeff command before pair_style is defined")
    if len(args) < 2:
        raise LammpsError("Incorrect args for pair coefficients")
    coeffs = it.values.get("pair_coeff")
    if isinstance(pair, tuple):
        _validate_pair_coeff(pair, args, it.ntypes())
    if isinstance(coeffs, tuple):
        it.set("pair_coeff", (*coeffs, PairCoeff(tuple(args), where)))


def manybody_args(pair: tuple[Word, ...], args: tuple[Word, ...] | list[Word]) -> tuple[str, list[Word]] | None:
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
    parsed = manybody_args(pair, args)
    if parsed is None:
        return
    base, rest = parsed
    t = tables()
    if base in t.per_type_file:
        if len(rest) != 1:
            raise LammpsError("Incorrect args for pair coefficients")
        return
    files, tail = t.manybody[base]
    if args[0] != "*" or args[1] != "*":
        raise LammpsError(f"Incorrect args for pair coefficients ({base} needs 'pair_coeff * * ...')")
    if isinstance(ntypes, int):
        count = len(rest) - files
        if (count != ntypes and not tail) or count < ntypes:
            raise LammpsError(
                f"Incorrect args for pair coefficients: pair_style {base} needs one element (or NULL) per atom "
                f"type, {ntypes} here, but pair_coeff names {max(count, 0)}"
            )


@handles("fix")
def _fix(it: Interpreter, args: list[Word], where: str) -> None:
    if len(args) < 3:
        raise LammpsError("Illegal fix command")
    fix_id = known(args[0], "fix ID")
    group = known(args[1], "fix group")
    style = known(args[2], "fix style")
    old = it.values.get(f"fix.{fix_id}")
    if isinstance(old, Fix) and old.style != style:
        raise LammpsError("Replacing a fix, but new style != old style")
    keywords, problem = parse_fix_args(style, args[3:])
    it.set(f"fix.{fix_id}", Fix(fix_id, group, style, tuple(args[3:]), keywords, where, problem))


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


@handles("unfix")
def _unfix(it: Interpreter, args: list[Word], where: str) -> None:
    fix_id = known(arg(args, 0, "unfix"), "fix ID")
    if f"fix.{fix_id}" not in it.values:
        raise LammpsError("Could not find fix ID to delete")
    it.delete(f"fix.{fix_id}")


@handles("velocity")
def _velocity(it: Interpreter, args: list[Word], where: str) -> None:
    group = known(arg(args, 0, "velocity"), "velocity group")
    style = known(arg(args, 1, "velocity"), "velocity style")
    it.set(f"velocity.{style}", Velocity(group, style, tuple(args[2:]), where))


@handles("run")
def _run(it: Interpreter, args: list[Word], where: str) -> None:
    n = strict_int(arg(args, 0, "run"), "run")
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


@handles("minimize")
def _minimize(it: Interpreter, args: list[Word], where: str) -> None:
    if len(args) != 4:
        raise LammpsError("Illegal minimize command")
    etol = strict_float(args[0], "minimize etol")
    ftol = strict_float(args[1], "minimize ftol")
    maxiter = strict_int(args[2], "minimize maxiter")
    maxeval = strict_int(args[3], "minimize maxeval")
    it.set("minimize", (etol, ftol, maxiter, maxeval))
    it.stage("minimize", where)


@handles("variable")
def _variable(it: Interpreter, args: list[Word], where: str) -> None:
    if len(args) < 2:
        raise LammpsError("Illegal variable command")
    name = known(args[0], "variable name")
    style = known(args[1], "variable style")
    key = f"var.{name}"
    old = it.values.get(key)
    values = args[2:]
    if style == "delete":
        it.delete(key)
        return
    if style in ("index", "loop", "world", "universe", "uloop") and old is not None:
        return  # LAMMPS ignores a redefinition of these styles (so -var on the command line wins)
    if isinstance(old, Var) and old.style != style and style in ("equal", "string", "internal", "format"):
        raise LammpsError("Cannot redefine variable as a different style")
    if any(isinstance(v, Unknown) for v in values):
        first = next(v for v in values if isinstance(v, Unknown))
        it.set(key, first)
        return
    texts = [str(v) for v in values]
    var: Var | Unknown
    if style == "index":
        if not texts:
            raise LammpsError("Illegal variable command")
        var = Var("index", tuple(texts))
    elif style == "loop":
        var = _loop_var(texts)
    elif style in ("equal", "string"):
        if len(texts) != 1:
            raise LammpsError("Illegal variable command")
        var = Var(style, (texts[0],))
    elif style == "internal":
        number = strict_float(arg(values, 0, "variable"), "internal variable")
        var = Var("internal", (f"{number:.15g}",)) if isinstance(number, float) else number
    elif style == "format":
        if len(texts) != 2:
            raise LammpsError("Illegal variable command")
        var = Var("format", (texts[0], texts[1]))
    elif style in ("getenv", "file", "atomfile", "python", "timer", "atom", "vector", "world", "universe",
                   "uloop"):  # fmt: skip
        var = Var(style)
    else:
        raise LammpsError("Illegal variable command")
    it.set(key, var)


def _loop_var(texts: list[str]) -> Var:
    pad = 0
    if texts and texts[-1] == "pad":
        texts = texts[:-1]
        pad = -1
    if len(texts) not in (1, 2):
        raise LammpsError("Illegal variable command")
    numbers = [strict_int(t, "loop variable") for t in texts]
    lo, hi = (1, numbers[0]) if len(numbers) == 1 else (numbers[0], numbers[1])
    assert isinstance(lo, int) and isinstance(hi, int)
    if hi < lo:
        raise LammpsError("Illegal variable command")
    return Var("loop", (), 0, lo, hi, len(str(hi)) if pad else 0)
