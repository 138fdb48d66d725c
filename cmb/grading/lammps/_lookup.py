"""Settings read from the interpreter's state by path: `timestep`, `fix.npt.temp.damp_steps`, `mass.2` ...

`lookup` gives a setting's value at a stage (Unknown or Absent markers where it cannot be told or is not there);
`effective` gives it in the shared model of `cmb.grading.settings`, with its origin: set by a command of the
script, LAMMPS's default, or a default that follows the unit style (timestep, neighbor skin).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cmb.grading._compare import show
from cmb.grading._registry import GraderConfigError
from cmb.grading.lammps._commands import manybody_args
from cmb.grading.lammps._defaults import base_style, tables
from cmb.grading.lammps._formula import FormulaEvaluator, var_value
from cmb.grading.lammps._state import Absent, Fix, Stage, Stop, Unknown, Word, parse_number, type_bounds
from cmb.grading.settings import Effective, Origin

MAX_TYPES = 10_000


def plain(value: Any) -> Any:
    """Script values as plain JSON-like data (tuples to lists); Unknown and Absent kept."""
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    return value


def _scalar(key: str) -> Callable[[list[str], Mapping[str, Any]], Any]:
    def resolve(rest: list[str], values: Mapping[str, Any]) -> Any:
        _no_more(rest, key)
        return plain(values.get(key, Absent(f"{key} is not set")))

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
        return plain(value)
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
        return [vel.group, *plain(vel.args)]
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
        return var_value(rest[0], var, FormulaEvaluator(values))
    except Stop as exc:
        return Unknown(exc.message)


def _cmd_lookup(rest: list[str], values: Mapping[str, Any]) -> Any:
    if len(rest) != 1:
        raise GraderConfigError("use cmd.<command name>")
    value = values.get(f"cmd.{rest[0]}")
    return Absent(f"no {rest[0]} command") if value is None else plain(value)


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
        parsed = manybody_args(pair, coeff.args)
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
        return coeffs if isinstance(coeffs, Unknown) else [plain(c.args) for c in coeffs or ()]
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
def active_fixes(values: Mapping[str, Any]) -> tuple[list[Fix], list[str]]:
    """Fixes defined in a state, and the reasons of fixes whose definition is unknown."""
    fixes: list[Fix] = []
    unknown: list[str] = []
    for key, value in values.items():
        if key.startswith("fix."):
            if isinstance(value, Fix):
                fixes.append(value)
            elif isinstance(value, Unknown):
                unknown.append(f"fix {key[4:]}: {value.reason}")
    return fixes, unknown


def select_fixes(
    values: Mapping[str, Any], selector: str, group: str | None = None, by_id: bool = True
) -> list[Fix] | Absent:
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


def fix_value(fix: Fix, rest: list[str], values: Mapping[str, Any]) -> Any:
    """One item of a fix: id, group, style, args, a keyword's values, its damp, damp_steps or Nth value."""
    if not rest or rest == ["args"]:
        return plain(fix.args)
    key, more = rest[0], rest[1:]
    if key in ("id", "group", "style"):
        _no_more(more, f"fix.{key}")
        return getattr(fix, key)
    name, words = fix_keyword(fix, key)
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


def fix_keyword(fix: Fix, key: str) -> tuple[str, tuple[Word, ...] | None]:
    if key == "pressure":
        for name in tables().pressure_keywords:
            words = fix.get(name)
            if words is not None:
                return name, words
        return key, None
    return key, fix.get(key)


def damping(fix: Fix, keyword: str, words: tuple[Word, ...], values: Mapping[str, Any]) -> Any:
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
    except Stop as exc:  # e.g. a formula that divides by zero, met only at lookup
        return Unknown(exc.message)


# LAMMPS resets these to the defaults of the unit style whenever `units` is given.
_BY_UNITS = frozenset({"dt", "neighbor.skin"})


def _defaulted_keys(path: str) -> tuple[str, ...]:
    """The state keys behind a setting that has a LAMMPS default (none: the setting exists only once set)."""
    head = path.split(".", 1)[0]
    if head == "timestep":
        return ("dt",)
    if head == "neighbor":
        return tuple(k for k in ("neighbor.skin", "neighbor.style") if path in ("neighbor", k))
    return (head,) if head == "units" or head in tables().settings else ()


def effective(path: str, stage: Stage) -> Effective:
    """A setting at a stage in the shared model: its value (as `lookup` gives it) and where it comes from."""
    value = lookup(path, stage.values)
    if isinstance(value, Unknown):
        return Effective(path, value, Origin.UNKNOWN, note=value.reason)
    if isinstance(value, Absent):
        return Effective(path, value, Origin.ABSENT, note=value.reason)
    keys = _defaulted_keys(path)
    if not keys:
        return Effective(path, value, Origin.SET, note="set by the script")
    where = [stage.set_at[k] for k in keys if k in stage.set_at]
    if where:
        return Effective(path, value, Origin.SET, note=f"set at {where[-1]}")
    if _BY_UNITS & set(keys):
        units = stage.values.get("units")
        return Effective(path, value, Origin.CONDITIONAL_DEFAULT, note=f"LAMMPS default for units {units}")
    return Effective(path, value, Origin.DEFAULT, note="LAMMPS default")
