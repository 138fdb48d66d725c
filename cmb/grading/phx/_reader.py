"""Reading a ph.x 6.7 input as ph.x reads it, and the settings it will actually use.

ph.x reads a title line (skipped when the first line already opens `&inputph`), the `&inputph` namelist with
gfortran's namelist rules, and then, unless `ldisp` or `qplot` is set, the three Cartesian components of one
wave vector (2pi/a) by a list-directed read. The reader follows that order and reports what ph.x would stop on:
an unknown variable, a value of the wrong type (`nq1 = 1.0`, an unquoted string), a missing wave vector, and
the combinations phq_readin.f90 refuses. Effective values apply the defaults and the rules of
`ph67_defaults.yaml` (trans forced on by ldisp, zeu only with epsil, epsil at Gamma with ldisp for an insulator).

The `&control` namelist of a pw.x input is read by the same lexer, for the two settings ph.x must share with the
ground-state run (prefix, outdir).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml

MAX_LINES = 20_000
MAX_ASSIGNMENTS = 5_000
DEFAULTS_FILE = "ph67_defaults.yaml"


class PhInputError(Exception):
    """ph.x would stop on this input (the message says where and why)."""


@functools.cache
def defaults() -> dict[str, Any]:
    """The data table of ph.x 6.7 defaults and rules."""
    text = resources.files("cmb.grading.phx").joinpath(DEFAULTS_FILE).read_text(encoding="utf-8")
    table: dict[str, Any] = yaml.safe_load(text)
    return table


# ------------------------------------------------------------------------------------------------ lexing

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_%]*")
_INDEX = re.compile(r"\(\s*(\d+)\s*\)")
_INT = re.compile(r"[-+]?\d+")
_REAL = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eEdDqQ][-+]?\d+)?")
_REPEAT = re.compile(r"(\d+)\*")


@dataclass(frozen=True)
class Value:
    """One value as written: its text, and whether it was a quoted string."""

    text: str
    quoted: bool
    line: int


@dataclass
class Namelist:
    """One namelist group: name -> {index (1-based, 0 for a scalar): value}."""

    name: str
    line: int
    items: dict[str, dict[int, Value]] = field(default_factory=dict)
    end_line: int = 0


def _strip_comment(line: str) -> str:
    """Drop a `!` comment that is outside quotes."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "!":
            return line[:i]
    return line


def _tokens(lines: list[str], start: int, col: int) -> list[tuple[str, bool, int]]:
    """(token, quoted, line) from line `start`, column `col`, up to the group's closing `/` (token '/')."""
    out: list[tuple[str, bool, int]] = []
    i, c = start, col
    while i < len(lines):
        line = _strip_comment(lines[i]) if c == 0 else lines[i][:c] + _strip_comment(lines[i][c:])
        n = len(line)
        while c < n:
            ch = line[c]
            if ch in " \t\r,":
                c += 1
            elif ch in "'\"":
                j, buf = c + 1, []
                while True:
                    if j >= n:
                        raise PhInputError(f"line {i + 1}: unterminated string")
                    if line[j] == ch:
                        if j + 1 < n and line[j + 1] == ch:
                            buf.append(ch)
                            j += 2
                            continue
                        break
                    buf.append(line[j])
                    j += 1
                out.append(("".join(buf), True, i + 1))
                c = j + 1
            elif ch == "/":
                out.append(("/", False, i + 1))
                return out
            elif ch == "=":
                out.append(("=", False, i + 1))
                c += 1
            else:
                j = c
                while j < n and line[j] not in " \t\r,='\"/":
                    j += 1
                word = line[c:j]
                if word.lower() in ("&end", "$end"):
                    out.append(("/", False, i + 1))
                    return out
                out.append((word, False, i + 1))
                c = j
            if len(out) > 4 * MAX_ASSIGNMENTS:
                raise PhInputError("too many values in the namelist")
        i, c = i + 1, 0
    raise PhInputError("the namelist is not closed by '/'")


def _find_group(lines: list[str], name: str, start: int) -> tuple[int, int] | None:
    """(line, column after '&name') of the group opening at or after `start`."""
    pattern = re.compile(rf"^\s*[&$]{name}(?![A-Za-z0-9_])", re.IGNORECASE)
    for i in range(start, len(lines)):
        m = pattern.match(lines[i])
        if m:
            return i, m.end()
    return None


def read_namelist(lines: list[str], name: str, start: int = 0) -> Namelist | None:
    """The group `&name` at or after line `start`, parsed into assignments; None when absent."""
    found = _find_group(lines, name, start)
    if found is None:
        return None
    i, col = found
    group = Namelist(name=name, line=i + 1)
    toks = _tokens(lines, i, col)
    group.end_line = toks[-1][2]
    toks = toks[:-1]
    k, count = 0, 0
    while k < len(toks):
        word, quoted, line = toks[k]
        if quoted or k + 1 >= len(toks):
            raise PhInputError(f"line {line}: expected 'name = value', found {word!r}")
        m = _NAME.fullmatch(re.sub(r"\(.*\)$", "", word))
        index_m = _INDEX.search(word)
        if m is None or toks[k + 1][0] != "=" or toks[k + 1][1]:
            raise PhInputError(f"line {line}: expected 'name = value', found {word!r}")
        var = m.group(0).lower()
        index = int(index_m.group(1)) if index_m else 0
        if index_m is None and "(" in word:
            raise PhInputError(f"line {line}: bad array index in {word!r}")
        k += 2
        values: list[Value] = []
        while k < len(toks) and not (k + 1 < len(toks) and toks[k + 1][0] == "=" and not toks[k + 1][1]):
            text, q, ln = toks[k]
            if text == "=" and not q:
                raise PhInputError(f"line {ln}: '=' without a variable name")
            rep = _REPEAT.match(text) if not q else None
            if rep and rep.end() < len(text):
                values += [Value(text[rep.end() :], False, ln)] * int(rep.group(1))
            else:
                values.append(Value(text, q, ln))
            k += 1
        if not values:
            raise PhInputError(f"line {line}: {var} has no value")
        slot = group.items.setdefault(var, {})
        first = index or (1 if len(values) > 1 else 0)
        for n, v in enumerate(values):
            slot[first + n] = v
        count += len(values)
        if count > MAX_ASSIGNMENTS:
            raise PhInputError("too many assignments in the namelist")
    return group


# ------------------------------------------------------------------------------------------------ values


def _convert(v: Value, vtype: str, var: str) -> Any:
    where = f"line {v.line}: {var}"
    if vtype == "character":
        if not v.quoted:
            raise PhInputError(f"{where} = {v.text}: a string must be quoted ('...'); ph.x stops on it")
        return v.text
    if v.quoted:
        raise PhInputError(f"{where} = '{v.text}': a quoted string where a {vtype} is expected")
    text = v.text
    if vtype == "logical":
        t = text.lstrip(".")
        if t[:1].lower() in ("t", "f"):
            return t[:1].lower() == "t"
        raise PhInputError(f"{where} = {text}: not a logical (.true. or .false.)")
    if vtype == "integer":
        if not _INT.fullmatch(text):
            raise PhInputError(f"{where} = {text}: not an integer")
        return int(text)
    if vtype == "real":
        if not _REAL.fullmatch(text):
            raise PhInputError(f"{where} = {text}: not a real number")
        return float(re.sub(r"[dDqQ]", "e", text))
    raise PhInputError(f"{where}: this variable cannot be graded here ({vtype})")


def _declared(table: dict[str, Any], var: str) -> tuple[str, int | None]:
    decl = table["declarations"].get(var)
    if decl is None:
        raise PhInputError(f"{var}: not a variable of &inputph in ph.x 6.7 (ph.x stops: reading inputph namelist)")
    m = re.fullmatch(r"(\w+)(?:\((\w+)\))?", decl)
    assert m is not None
    size = m.group(2)
    return m.group(1), (None if size is None else (int(size) if size.isdigit() else 10_000))


@dataclass(frozen=True)
class Effective:
    """The value ph.x will use for a setting and why."""

    name: str
    value: Any
    origin: str  # "input", "default" or "rule"
    note: str = ""


@dataclass
class PhInput:
    """A ph.x input as ph.x 6.7 reads it."""

    title: str | None
    values: dict[str, Any]
    xq: tuple[float, float, float] | None
    lines: int

    def given(self, name: str) -> bool:
        """Whether the input sets the variable."""
        return name in self.values

    def effective(self, name: str) -> Effective:
        """Default, input value, then the table's rules in order (a forced rule overrides the input)."""
        return _effective(self, name, ())

    def value(self, name: str) -> Any:
        """The effective value alone."""
        return self.effective(name).value

    def derived(self, name: str) -> Any:
        """The conditions the fatal rules use that are not variables."""
        if name == "nq_positive":
            return all(int(self.value(f"nq{i}")) > 0 for i in (1, 2, 3))
        if name == "xq_nonzero":
            return self.xq is not None and any(abs(x) > 0 for x in self.xq)
        return self.value(name)

    def computes_gamma(self) -> bool:
        """Whether Gamma is among the wave vectors computed (a single q = 0, or a grid, which always holds it)."""
        if self.value("ldisp"):
            return True
        return self.xq is not None and all(x == 0 for x in self.xq)


def _effective(ph: PhInput, name: str, path: tuple[str, ...]) -> Effective:
    if name in path:
        raise PhInputError(f"cyclic rule in the ph.x table at {name}")  # a table bug, caught by the tests
    spec = defaults()["variables"].get(name)
    if name in ph.values:
        eff = Effective(name, ph.values[name], "input")
    elif spec is not None:
        eff = Effective(name, spec.get("default"), "default")
    else:
        eff = Effective(name, None, "default", "not set; no default recorded")
    for rule in (spec or {}).get("rules", []):
        when = rule["when"]
        applies = all(_effective(ph, k, (*path, name)).value == v for k, v in when.items())
        if not applies or (eff.origin == "input" and not rule.get("force")):
            continue
        if not (eff.origin == "input" and eff.value == rule["value"]):
            eff = Effective(name, rule["value"], "rule", rule.get("note", ""))
    return eff


def _read_xq(lines: list[str], start: int) -> tuple[float, float, float] | None:
    nums: list[float] = []
    for i in range(start, len(lines)):
        for word in re.split(r"[\s,]+", lines[i].strip()):
            if not word:
                continue
            if not _REAL.fullmatch(word):
                return None
            nums.append(float(re.sub(r"[dDqQ]", "e", word)))
            if len(nums) == 3:
                return (nums[0], nums[1], nums[2])
    return None


def parse_ph_input(text: str) -> PhInput:
    """Read a ph.x input; PhInputError names what ph.x would stop on."""
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise PhInputError(f"{len(lines)} lines is over the {MAX_LINES}-line limit of this grader")
    if not lines:
        raise PhInputError("the input is empty")
    table = defaults()
    first_is_group = "&inputph" in lines[0].lower()
    title = None if first_is_group else lines[0]
    group = read_namelist(lines, "inputph", 0 if first_is_group else 1)
    if group is None:
        raise PhInputError("no &inputph namelist (ph.x stops: reading inputph namelist)")
    values: dict[str, Any] = {}
    for var, slots in group.items.items():
        vtype, size = _declared(table, var)
        if size is None:
            if set(slots) - {0}:
                raise PhInputError(f"{var} is a scalar but is given with an index or several values")
            values[var] = _convert(slots[0], vtype, var)
        else:
            if 0 in slots:
                slots = {1: slots[0], **{k: v for k, v in slots.items() if k}}
            if any(k < 1 or k > size for k in slots):
                raise PhInputError(f"{var}: index out of range")
            values[var] = {k: _convert(v, vtype, var) for k, v in sorted(slots.items())}
    ph = PhInput(title=title, values=values, xq=None, lines=len(lines))
    if not ph.value("ldisp") and not ph.value("qplot"):
        ph.xq = _read_xq(lines, group.end_line)
        if ph.xq is None:
            raise PhInputError(
                "no wave vector after the namelist: without ldisp or qplot ph.x reads xq(1:3) there "
                "(ph.x stops: reading xq)"
            )
    for name in table.get("positive", []):
        if ph.given(name) and not float(ph.values[name]) > 0:
            raise PhInputError(f"{name} = {ph.values[name]}: must be positive (ph.x stops: Wrong {name})")
    for rule in table["fatal"]:
        if all(ph.derived(k) == v for k, v in rule["when"].items()):
            raise PhInputError(f"ph.x 6.7 stops on this combination: {rule['message']}")
    return ph


def pw_control(text: str) -> dict[str, str]:
    """The prefix and outdir of a pw.x input's &control namelist, its defaults applied (strings as written)."""
    lines = text.splitlines()
    if len(lines) > MAX_LINES * 10:
        raise PhInputError("the pw.x input is too long for this grader")
    control = read_namelist(lines, "control")
    out = dict(defaults()["pw_control"])
    if control is None:
        return out
    for key in ("prefix", "outdir"):
        slot = control.items.get(key)
        if slot:
            value = slot.get(0) or next(iter(slot.values()))
            out[key] = _convert(value, "character", key)
    return out


def same_folder(a: str, b: str) -> bool:
    """Whether two outdir strings name the same folder relative to where both codes run."""

    def norm(p: str) -> str:
        parts = [x for x in p.strip().split("/") if x not in ("", ".")]
        return ("/" if p.strip().startswith("/") else "") + "/".join(parts)

    return norm(a) == norm(b)


def pw_species(text: str) -> list[tuple[str, float]]:
    """(label, mass in amu) of each species of a pw.x input's ATOMIC_SPECIES card, in order (ntyp of them)."""
    lines = text.splitlines()
    if len(lines) > MAX_LINES * 10:
        raise PhInputError("the pw.x input is too long for this grader")
    system = read_namelist(lines, "system")
    if system is None or "ntyp" not in system.items:
        raise PhInputError("the pw.x input has no &system ntyp")
    ntyp = _convert(system.items["ntyp"].get(0) or next(iter(system.items["ntyp"].values())), "integer", "ntyp")
    if not 1 <= ntyp <= 100:
        raise PhInputError(f"ntyp = {ntyp} is out of range")
    for i, line in enumerate(lines):
        if re.match(r"^\s*ATOMIC_SPECIES\b", line, re.IGNORECASE):
            out: list[tuple[str, float]] = []
            for row in lines[i + 1 :]:
                words = _strip_comment(row).split()
                if not words:
                    continue
                if len(words) < 3 or not _REAL.fullmatch(words[1]):
                    raise PhInputError(f"ATOMIC_SPECIES: cannot read {row.strip()!r}")
                out.append((words[0], float(re.sub(r"[dD]", "e", words[1]))))
                if len(out) == ntyp:
                    return out
            raise PhInputError(f"ATOMIC_SPECIES holds fewer than ntyp = {ntyp} species")
    raise PhInputError("the pw.x input has no ATOMIC_SPECIES card")


def label_element(label: str) -> str:
    """The element a species label names (pw.x's rule: the leading letters, e.g. 'B1' or 'B_11' -> 'B')."""
    m = re.match(r"[A-Za-z]{1,2}", label)
    if m is None:
        return ""
    word = m.group(0)
    return word[0].upper() + word[1:].lower()
