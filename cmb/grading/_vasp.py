"""Check family `vasp`: VASP input files graded without running VASP.

What is graded is the value VASP would *use*: a tag missing from the INCAR takes VASP's own default, and
several defaults depend on other tags (NSW = 10 without IBRION means molecular dynamics, IBRION = 0). Those
defaults are data (`data/vasp_defaults.yaml`, each entry citing the VASP wiki), evaluated by one generic
rule evaluator; defaults that come from the POTCAR are computed from its header when one is submitted and
otherwise reported as unverifiable rather than guessed.

The INCAR reader is this module's own: pymatgen's title-cases strings and is lenient where VASP is not. It
follows the VASP wiki's INCAR format: `TAG = value` statements, several per line separated by `;`, comments
after `#` or `!`, a trailing backslash continues a line, double quotes span lines; tags are case-insensitive;
logicals are .TRUE./.FALSE./T/F; numeric lists take Fortran's `N*value` repeats. Two deliberate departures:
VASP silently ignores text that is not a `TAG = value` statement (so `ISMEAR 0` is dropped without a word);
here such a line fails the INCAR with a message saying so. And a tag given twice with different values is
reported as ambiguous, because which one VASP uses has differed between versions and is not documented.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import math
import operator
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pymatgen.core.structure import Structure

from cmb.grading._compare import compare_array, compare_number, show
from cmb.grading._registry import CheckContext, GraderConfigError, Outcome, register
from cmb.grading._structure import (
    StructureParams,
    collinear_moments,
    compare_structures,
    parse_structure,
    read_reference_structure,
)
from cmb.grading._submission import Submission, SubmissionError, is_finite_number
from cmb.models import Tolerance

WIKI = "https://www.vasp.at/wiki/index.php/"
MAX_LIST = 100_000  # expanded length of a numeric list (MAGMOM = 99999999*1 is refused, not allocated)
MAX_KPOINTS = 100_000
MAX_SUBDIVISIONS = 1000
_INT32 = 2**31 - 1

TagType = Literal["int", "float", "bool", "keyword", "string", "float_list"]
Op = Literal["eq", "ne", "in", "not_in", "lt", "le", "gt", "ge"]
Scalar = bool | int | float | str
Condition = dict[str, dict[Op, Any]]


# ==================================================================================================
# The defaults table


class Choice(BaseModel):
    """One value of a keyword tag: its canonical name, exact aliases and the leading letters VASP reads."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = Field(description="Canonical spelling")
    aliases: list[str] = Field(default_factory=list, description="Other exact spellings (case-insensitive)")
    prefixes: list[str] = Field(default_factory=list, description="Leading letters that select this value")


class Rule(BaseModel):
    """A conditional default: `value` applies when every condition in `when` holds."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    when: Condition = Field(default_factory=dict, description="TAG -> {op: operand}; all must hold")
    value: Any = Field(description="Literal, or {tag|per_ion|from_potcar|unknown: ...} expression")

    @field_validator("value")
    @classmethod
    def _expression(cls, v: Any) -> Any:
        if isinstance(v, dict):
            kinds = {"tag", "per_ion", "from_potcar", "unknown"} & set(v)
            allowed = {"tag": {"scale"}, "per_ion": {"components"}, "from_potcar": {"scale"}, "unknown": set()}
            if len(kinds) != 1:
                raise ValueError(f"a value expression needs exactly one of tag/per_ion/from_potcar/unknown: {v}")
            kind = kinds.pop()
            extra = set(v) - {kind} - allowed[kind]
            if extra:
                raise ValueError(f"unknown keys {sorted(extra)} in {kind} expression")
            if kind == "from_potcar" and v[kind] not in POTCAR_FUNCTIONS:
                raise ValueError(f"unknown POTCAR function {v[kind]!r}")
        return v


class TagSpec(BaseModel):
    """One INCAR tag: its type, VASP's default (literal or rules), and where that is documented."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    type: TagType = Field(description="Value type")
    default: Any = Field(default=None, description="Literal default (null: not set / feature off)")
    rules: list[Rule] = Field(default_factory=list, description="Ordered conditional defaults")
    choices: list[Choice] = Field(default_factory=list, description="Known values of a keyword tag")
    depends_on_potcar: bool = Field(default=False, description="The default is read from the POTCAR")
    per_ion: bool = Field(
        default=False, description="A list with one value per ion (three per ion in a noncollinear run)"
    )
    note: str | None = Field(default=None, description="Shown in grading messages")
    source: str = Field(description="VASP wiki page of the tag")

    @model_validator(mode="after")
    def _one_default(self) -> TagSpec:
        if self.rules and "default" in self.model_fields_set:
            raise ValueError("give either default or rules, not both")
        if self.rules and self.rules[-1].when:
            raise ValueError("the last rule must have no condition (it is the fallback)")
        if not self.source.startswith(WIKI):
            raise ValueError(f"source must be a VASP wiki page ({WIKI}...)")
        return self

    @property
    def all_rules(self) -> list[Rule]:
        """Rules, with a literal default as the single unconditional rule."""
        return self.rules or [Rule(value=self.default)]


class DefaultsTable(BaseModel):
    """The whole `vasp_defaults.yaml`."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    version: int = Field(description="Schema version")
    tags: dict[str, TagSpec] = Field(description="Upper-case tag -> spec")

    @model_validator(mode="after")
    def _conditions_name_known_tags(self) -> DefaultsTable:
        for name, spec in self.tags.items():
            if name != name.upper():
                raise ValueError(f"tag {name!r} must be upper case")
            for rule in spec.all_rules:
                for other in rule.when:
                    if other not in self.tags:
                        raise ValueError(f"{name}: condition on {other!r}, which has no entry")
                if isinstance(rule.value, dict) and "tag" in rule.value and rule.value["tag"] not in self.tags:
                    raise ValueError(f"{name}: refers to {rule.value['tag']!r}, which has no entry")
        return self


@functools.cache
def vasp_defaults() -> dict[str, TagSpec]:
    """The curated defaults table, validated once."""
    text = importlib.resources.files("cmb.grading").joinpath("data/vasp_defaults.yaml").read_text()
    try:
        return DefaultsTable.model_validate(yaml.safe_load(text)).tags
    except ValidationError as exc:
        raise GraderConfigError(f"vasp_defaults.yaml is invalid: {exc}") from None


# ==================================================================================================
# Scalar readers (Fortran-like, strict)

_INT = re.compile(r"[+-]?\d{1,10}")
_REAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eEdD][+-]?\d{1,4})?")
_BOOL_TRUE = {".TRUE.", "TRUE", "T", ".T.", ".TRUE", ".T"}
_BOOL_FALSE = {".FALSE.", "FALSE", "F", ".F.", ".FALSE", ".F"}
_REPEAT = re.compile(r"(\d{1,9})\*(.+)")


class ValueProblem(ValueError):
    """A value VASP could not read."""


def read_int(token: str) -> int:
    """A Fortran integer (no decimal point, within 32 bits)."""
    if not _INT.fullmatch(token):
        raise ValueProblem(f"{show(token)!r} is not an integer")
    value = int(token)
    if abs(value) > _INT32:
        raise ValueProblem(f"{token} is out of the integer range")
    return value


def read_real(token: str) -> float:
    """A Fortran real (1E-6, 1.0D-5, .5); NaN and overflow are refused."""
    if not _REAL.fullmatch(token):
        raise ValueProblem(f"{show(token)!r} is not a number")
    value = float(token.replace("d", "e").replace("D", "e"))
    if not math.isfinite(value):
        raise ValueProblem(f"{token} is out of range")
    return value


def read_bool(token: str) -> bool:
    """A Fortran logical: .TRUE./.FALSE./T/F."""
    up = token.upper()
    if up in _BOOL_TRUE:
        return True
    if up in _BOOL_FALSE:
        return False
    raise ValueProblem(f"{show(token)!r} is not a logical (.TRUE./.FALSE.)")


def read_real_list(raw: str) -> list[float]:
    """Numbers with N*value repeats, up to the first word that is not one (the rest is a comment)."""
    values: list[float] = []
    for token in raw.split():
        m = _REPEAT.fullmatch(token)
        try:
            if m:
                count, number = int(m.group(1)), read_real(m.group(2))
            else:
                count, number = 1, read_real(token)
        except ValueProblem:
            if not values:
                raise ValueProblem(f"{show(token)!r} is not a number") from None
            break
        if len(values) + count > MAX_LIST:
            raise ValueProblem(f"more than {MAX_LIST} values")
        values.extend([number] * count)
    if not values:
        raise ValueProblem("no values")
    return values


def canonical_keyword(spec: TagSpec | None, raw: Any) -> str:
    """The canonical spelling of a keyword value, by VASP's own matching (exact names, then leading letters)."""
    if isinstance(raw, bool):
        raw = ".TRUE." if raw else ".FALSE."
    text = " ".join(str(raw).split()).upper()
    first = text.split(" ", 1)[0] if text else ""
    choices = spec.choices if spec else []
    for candidate in (text, first):
        for choice in choices:
            if candidate in {choice.name.upper(), *(a.upper() for a in choice.aliases)}:
                return choice.name
    best: tuple[int, str] | None = None
    for choice in choices:
        for prefix in choice.prefixes:
            if first.startswith(prefix.upper()) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), choice.name)
    return best[1] if best else first


def read_typed(spec: TagSpec | None, raw: str) -> Any:
    """Convert an INCAR value to its tag's type; unknown tags get the most specific type that fits."""
    first = raw.split()[0] if raw.split() else ""
    if spec is None:
        return _infer(raw)
    readers: dict[str, Callable[[], Any]] = {
        "int": lambda: read_int(first),
        "float": lambda: read_real(first),
        "bool": lambda: read_bool(first),
        "keyword": lambda: canonical_keyword(spec, raw),
        "string": lambda: " ".join(raw.split()),
        "float_list": lambda: read_real_list(raw),
    }
    return readers[spec.type]()


def _infer(raw: str) -> Any:
    """Type of a value of a tag the table does not know: number(s), logical, else text."""
    tokens = raw.split()
    try:
        values = read_real_list(raw)
    except ValueProblem:
        try:
            return read_bool(tokens[0])
        except ValueProblem:
            return " ".join(tokens)
    if len(values) > 1:
        return values
    try:
        return read_int(tokens[0])
    except ValueProblem:
        return values[0]


# ==================================================================================================
# INCAR parsing

_TOKEN = re.compile(r'"[^"]*"?|[#!][^\n]*|\\[ \t]*\n|\n|;|[^"#!\\;\n]+|\\')
_TAG = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@dataclass(frozen=True)
class IncarEntry:
    """One `TAG = value` statement."""

    tag: str
    raw: str
    line: int


@dataclass(frozen=True)
class Incar:
    """A parsed INCAR: the statements by tag, and the tags set twice with different values."""

    name: str
    entries: Mapping[str, IncarEntry]
    conflicts: Mapping[str, tuple[IncarEntry, IncarEntry]] = field(default_factory=dict)


def _statements(text: str, name: str) -> list[tuple[int, str]]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    out: list[tuple[int, str]] = []
    line, start, buf = 1, 1, []
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok.startswith('"'):
            if len(tok) == 1 or not tok.endswith('"'):
                raise SubmissionError(f"{name}:{line}: a double quote is never closed")
            buf.append(tok)
            line += tok.count("\n")
        elif tok[0] in "#!":
            continue
        elif tok.startswith("\\") and tok.endswith("\n"):
            buf.append(" ")
            line += 1
        elif tok in ("\n", ";"):
            out.append((start, "".join(buf)))
            buf = []
            line += tok == "\n"
            start = line
        else:
            buf.append(tok)
    out.append((start, "".join(buf)))
    return out


def parse_incar(text: str, name: str = "INCAR") -> Incar:
    """Parse INCAR text. Raises SubmissionError (with the line) on anything VASP would not read as intended."""
    entries: dict[str, IncarEntry] = {}
    conflicts: dict[str, tuple[IncarEntry, IncarEntry]] = {}
    table = vasp_defaults()
    for line, stmt in _statements(text, name):
        stmt = stmt.strip()
        if not stmt:
            continue
        if "=" not in stmt:
            raise SubmissionError(
                f"{name}:{line}: {show(stmt)!r} is not a TAG = value statement (VASP would silently ignore it; "
                "write comments after '#' or '!')"
            )
        tag, _, value = (part.strip() for part in stmt.partition("="))
        if not _TAG.fullmatch(tag):
            raise SubmissionError(f"{name}:{line}: {show(tag)!r} is not a valid INCAR tag name")
        tag = tag.upper()
        if value.startswith('"'):
            value = value[1 : value.index('"', 1)].strip() if '"' in value[1:] else value[1:]
        if not value:
            raise SubmissionError(f"{name}:{line}: {tag} has no value")
        entry = IncarEntry(tag, value, line)
        spec = table.get(tag)
        try:
            typed = read_typed(spec, value)  # known tags must be readable, as VASP requires
        except ValueProblem as exc:
            raise SubmissionError(f"{name}:{line}: {tag} = {show(value)!r}: {exc} (VASP stops with an error)") from None
        previous = entries.get(tag)
        if previous is None:
            entries[tag] = entry
        elif not _same(read_typed(spec, previous.raw), typed) and tag not in conflicts:
            conflicts[tag] = (previous, entry)
    if not entries:
        raise SubmissionError(f"{name}: no TAG = value statements")
    return Incar(name, entries, conflicts)


# ==================================================================================================
# POTCAR header


@dataclass(frozen=True)
class PotcarInfo:
    """What a POTCAR (header lines only) or a POTCAR.spec / potcar.json says, one item per dataset."""

    source: str
    symbols: list[str]
    enmax: list[float] | None = None
    enmin: list[float] | None = None
    lexch: list[str] | None = None

    @property
    def elements(self) -> list[str]:
        """The element of each dataset symbol (Ni_pv -> Ni, H1.25 -> H)."""
        return [_element_of(s) for s in self.symbols]


def _element_of(symbol: str) -> str:
    m = re.match(r"[A-Z][a-z]?", symbol)
    return m.group() if m else symbol


def _single(values: list[str]) -> str | None:
    return values[0] if values and all(v == values[0] for v in values) else None


POTCAR_FUNCTIONS: dict[str, Callable[[PotcarInfo], Any]] = {
    "max_enmax": lambda p: max(p.enmax) if p.enmax else None,
    "max_enmin": lambda p: max(p.enmin) if p.enmin else None,
    "lexch": lambda p: _single(p.lexch) if p.lexch else None,
}

_HEADER_NUMBER = r"\s*=\s*([-+]?\d+\.?\d*(?:[eE][-+]?\d+)?)"


def parse_potcar(text: str, name: str) -> PotcarInfo:
    """Symbols, ENMAX, ENMIN and LEXCH from the header of each dataset of a POTCAR (nothing else is read)."""
    symbols: list[str] = []
    enmax: list[float] = []
    enmin: list[float] = []
    lexch: list[str] = []
    for dataset in re.split(r"End of Dataset", text):
        header = "\n".join(dataset.lstrip().splitlines()[:80])
        titel = re.search(r"^\s*TITEL\s*=\s*(.+)$", header, re.M)
        if titel is None:
            continue
        words = titel.group(1).split()
        symbols.append(words[1] if len(words) > 1 else words[0])
        for key, bucket in (("ENMAX", enmax), ("ENMIN", enmin)):
            m = re.search(key + _HEADER_NUMBER, header)
            if m:
                bucket.append(float(m.group(1)))
        m = re.search(r"^\s*LEXCH\s*=\s*(\S+)", header, re.M)
        if m:
            lexch.append(m.group(1).upper())
    if not symbols:
        raise SubmissionError(f"{name}: no TITEL line: not a POTCAR")
    n = len(symbols)
    return PotcarInfo(
        name,
        symbols,
        enmax if len(enmax) == n else None,
        enmin if len(enmin) == n else None,
        lexch if len(lexch) == n else None,
    )


def parse_potcar_spec(text: str, name: str) -> PotcarInfo:
    """POTCAR.spec: one dataset per line, a bare symbol (Ni_pv) or a TITEL (PAW_PBE Ni_pv 06Sep2000)."""
    symbols = []
    for n, line in enumerate(text.splitlines(), start=1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        symbol = words[1] if words[0].upper().startswith(("PAW", "US")) and len(words) > 1 else words[0]
        if not re.fullmatch(r"[A-Z][a-z]?[A-Za-z0-9_.]*", symbol):
            raise SubmissionError(f"{name}:{n}: {show(symbol)!r} is not a POTCAR symbol")
        symbols.append(symbol)
    if not symbols:
        raise SubmissionError(f"{name}: lists no POTCAR symbols")
    return PotcarInfo(name, symbols)


def parse_potcar_json(doc: Any, name: str) -> PotcarInfo:
    """potcar.json: ["Ni_pv", "O"], {"symbols": [...]}, or [{"symbol": "Ni_pv"}, ...]."""
    items = doc.get("symbols") if isinstance(doc, dict) else doc
    if isinstance(items, list):
        symbols = [i.get("symbol") if isinstance(i, dict) else i for i in items]
        texts = [s.strip() for s in symbols if isinstance(s, str) and s.strip()]
        if symbols and len(texts) == len(symbols):
            return parse_potcar_spec("\n".join(texts), name)
    raise SubmissionError(f"{name}: expected a list of POTCAR symbols")


# ==================================================================================================
# Input files of one calculation, read lazily from the submission or from the hidden reference


class InputFiles:
    """Files of one VASP calculation folder: INCAR, POSCAR, POTCAR (or its spec), read on demand."""

    POTCAR_NAMES = ("POTCAR", "POTCAR.spec", "potcar.json")

    def __init__(self, read: Callable[[str], str], exists: Callable[[str], bool], folder: str = "") -> None:
        self._read, self._exists, self.folder = read, exists, folder
        self._cache: dict[str, Any] = {}

    @classmethod
    def of_submission(cls, sub: Submission, target_file: str) -> InputFiles:
        """The folder of a submission file.

        A link or other non-file at a name counts as present (and then fails when read), so a symlinked
        POTCAR or KPOINTS is reported rather than taken as absent.
        """

        def exists(name: str) -> bool:
            return sub.exists(name) or os.path.lexists(sub.root / name)

        return cls(sub.read_text, exists, str(PurePosixPath(target_file.replace("\\", "/")).parent))

    @classmethod
    def of_reference(cls, ctx: CheckContext[Any]) -> InputFiles:
        """Hidden reference files: a problem with them is the grader's, raised as GraderConfigError."""

        def read(name: str) -> str:
            return ctx.reference_file(name).read_text()

        def exists(name: str) -> bool:
            return ctx.reference_dir is not None and (ctx.reference_dir / name).is_file()

        return cls(read, exists)

    def path(self, name: str) -> str:
        """`name` inside this folder."""
        return name if self.folder in ("", ".") else f"{self.folder}/{name}"

    def exists(self, name: str) -> bool:
        """Whether a regular file `name` is in the folder."""
        return self._exists(self.path(name))

    def text(self, name: str) -> str:
        """The text of `name` (SubmissionError if missing or unsafe)."""
        return self._read(self.path(name))

    def _cached(self, key: str, make: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def incar(self, name: str = "INCAR") -> Incar:
        """The parsed INCAR."""
        return self._cached(f"incar:{name}", lambda: parse_incar(self.text(name), self.path(name)))  # type: ignore[no-any-return]

    def potcar(self, name: str | None = None) -> PotcarInfo | None:
        """POTCAR header, or POTCAR.spec / potcar.json; None when there is none."""

        def load() -> PotcarInfo | None:
            for candidate in [name] if name else self.POTCAR_NAMES:
                if not self.exists(candidate):
                    continue
                text, path = self.text(candidate), self.path(candidate)
                if candidate.lower().endswith(".json"):
                    try:
                        return parse_potcar_json(json.loads(text), path)
                    except ValueError:
                        raise SubmissionError(f"{path}: invalid JSON") from None
                if "spec" in candidate.lower():
                    return parse_potcar_spec(text, path)
                return parse_potcar(text, path)
            return None

        return self._cached(f"potcar:{name}", load)  # type: ignore[no-any-return]

    def structure(self, name: str = "POSCAR") -> Structure:
        """The POSCAR as a structure (a VASP-4 POSCAR takes its species from the POTCAR)."""

        def load() -> Structure:
            text = self.text(name)
            species = None
            lines = text.splitlines()
            if len(lines) > 5 and lines[5].split() and all(t.isdigit() for t in lines[5].split()):
                info = self.potcar()
                species = info.elements if info else None
            return parse_structure(text, self.path(name), "poscar", species)

        return self._cached(f"structure:{name}", load)  # type: ignore[no-any-return]

    def resolver(self, incar: str = "INCAR", poscar: str = "POSCAR", potcar: str | None = None) -> IncarResolver:
        """Effective INCAR values of this calculation."""
        return IncarResolver(
            self.incar(incar), nions=lambda: len(self.structure(poscar)), potcar=lambda: self.potcar(potcar)
        )


def _reference_side(ctx: CheckContext[Any], make: Callable[[], Any]) -> Any:
    """Run `make` on reference files, turning any problem into a GraderConfigError."""
    try:
        return make()
    except SubmissionError as exc:
        raise GraderConfigError(f"check {ctx.check.id!r}: reference input: {exc}") from None


# ==================================================================================================
# Effective values


@dataclass(frozen=True)
class Effective:
    """The value VASP would use for a tag, and where it comes from."""

    tag: str
    value: Any
    origin: str
    known: bool = True

    def describe(self) -> str:
        """E.g. `ISMEAR = 1 (not in INCAR: VASP default, <wiki>)`."""
        shown = _fmt(self.value)
        return f"{self.tag} = {shown} ({self.origin})" if self.known else f"{self.tag}: {self.origin}"


def _fmt(value: Any) -> str:
    if value is None:
        return "not set"
    if isinstance(value, bool):
        return ".TRUE." if value else ".FALSE."
    if isinstance(value, list):
        return " ".join(_fmt(v) for v in value[:12]) + (" …" if len(value) > 12 else "")
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


class IncarResolver:
    """Effective values of INCAR tags: explicit, or VASP's (conditional) default from the data table."""

    def __init__(
        self,
        incar: Incar,
        *,
        nions: Callable[[], int] | None = None,
        potcar: Callable[[], PotcarInfo | None] | None = None,
    ) -> None:
        self.incar = incar
        self._nions, self._potcar = nions, potcar
        self._table = vasp_defaults()
        self._cache: dict[str, Effective] = {}
        self._resolving: list[str] = []

    def spec(self, tag: str) -> TagSpec | None:
        """The table entry of a tag, if any."""
        return self._table.get(tag.upper())

    def effective(self, tag: str) -> Effective:
        """The value VASP uses for `tag`. SubmissionError if the INCAR sets it ambiguously."""
        tag = tag.upper()
        if tag in self._cache:
            return self._cache[tag]
        if tag in self._resolving:
            raise GraderConfigError(f"vasp_defaults.yaml: circular defaults {' -> '.join([*self._resolving, tag])}")
        self._resolving.append(tag)
        try:
            result = self._resolve(tag)
        finally:
            self._resolving.pop()
        self._cache[tag] = result
        return result

    def _resolve(self, tag: str) -> Effective:
        if tag in self.incar.conflicts:
            a, b = self.incar.conflicts[tag]
            raise SubmissionError(
                f"{self.incar.name}: {tag} is set twice with different values (line {a.line}: {show(a.raw)!r}, "
                f"line {b.line}: {show(b.raw)!r}); which one VASP uses is not documented, so it is ambiguous"
            )
        spec = self.spec(tag)
        entry = self.incar.entries.get(tag)
        if entry is not None:
            try:
                value = read_typed(spec, entry.raw)
            except ValueProblem as exc:  # pragma: no cover - parse_incar already validated known tags
                raise SubmissionError(f"{self.incar.name}:{entry.line}: {tag}: {exc}") from None
            result = Effective(tag, value, f"{self.incar.name} line {entry.line}")
            if spec is not None and spec.per_ion:
                self._check_per_ion(result)
            return result
        if spec is None:
            return Effective(tag, None, "not in INCAR; this grader records no VASP default for it")
        for rule in spec.all_rules:
            holds = self.conditions_hold(rule.when)
            if holds is None:
                return Effective(tag, None, "not in INCAR; its default depends on a value that cannot be known", False)
            if holds:
                return self._default(tag, spec, rule)
        raise GraderConfigError(f"vasp_defaults.yaml: no rule applies to {tag}")  # pragma: no cover

    def nions(self) -> int:
        """Number of ions (from the POSCAR)."""
        if self._nions is None:
            raise GraderConfigError("the number of ions is needed but no POSCAR was given")
        return self._nions()

    def conditions_hold(self, when: Condition) -> bool | None:
        """Whether all conditions hold; None when one depends on an unknowable value."""
        for other, ops in when.items():
            eff = self.effective(other)
            if not eff.known:
                return None
            spec = self.spec(other)
            for op, operand in ops.items():
                if not evaluate(op, eff.value, operand, spec):
                    return False
        return True

    def _default(self, tag: str, spec: TagSpec, rule: Rule) -> Effective:
        why = ", ".join(f"{t} = {_fmt(self.effective(t).value)}" for t in rule.when)
        origin = "not in INCAR: VASP default" + (f" for {why}" if why else "") + f", {spec.source}"
        if spec.note:
            origin += f"; {spec.note}"
        value = rule.value
        if not isinstance(value, dict):
            return Effective(tag, _coerce(spec, value) if value is not None else None, origin)
        if "tag" in value:
            base = self.effective(value["tag"])
            if not base.known or base.value is None:
                return Effective(tag, None, f"not in INCAR; its default follows {value['tag']}, unknown", False)
            scaled = base.value * value["scale"] if "scale" in value else base.value
            return Effective(tag, scaled, origin)
        if "per_ion" in value:
            n = self.nions() * int(value.get("components", 1))
            return Effective(tag, [float(value["per_ion"])] * n, origin)
        if "from_potcar" in value:
            info = self._potcar() if self._potcar else None
            result = POTCAR_FUNCTIONS[value["from_potcar"]](info) if info is not None else None
            if result is None:
                have = "no POTCAR was submitted" if info is None else f"{info.source} does not give it"
                return Effective(
                    tag,
                    None,
                    f"not in INCAR; VASP takes its default from the POTCAR header ({spec.note or spec.source}) "
                    f"and {have}, so it cannot be verified: set {tag} explicitly",
                    False,
                )
            scaled = result * value["scale"] if "scale" in value else result
            return Effective(tag, _coerce(spec, scaled), origin + f" (from {info.source})" if info else origin)
        return Effective(
            tag, None, f"not in INCAR; {value['unknown']}, so it cannot be verified: set {tag} explicitly", False
        )

    def _check_per_ion(self, eff: Effective) -> None:
        """VASP reads one value per ion (three in a noncollinear run); any other count is an input error."""
        noncollinear = self.effective("LNONCOLLINEAR").value is True
        components = 3 if noncollinear else 1
        need = self.nions() * components
        if len(eff.value) != need:
            kind = "noncollinear " if noncollinear else ""
            raise SubmissionError(
                f"{eff.describe()}: {len(eff.value)} values, but a {kind}run with {need // components} ions "
                f"needs {need}"
            )


def _coerce(spec: TagSpec | None, value: Any) -> Any:
    """A grader-side value (reference, rule operand) in the tag's type; mistakes are grader errors."""
    if value is None:
        return None
    kind = spec.type if spec else None
    try:
        if kind == "keyword":
            return canonical_keyword(spec, value)
        if kind == "string":
            return " ".join(str(value).split())
        if kind == "bool":
            return read_bool(value) if isinstance(value, str) else _strict_bool(value)
        if kind == "int":
            if isinstance(value, bool) or not is_finite_number(value) or float(value) != int(value):
                raise ValueProblem(f"{value!r} is not an integer")
            return int(value)
        if kind == "float":
            if isinstance(value, bool) or not is_finite_number(value):
                raise ValueProblem(f"{value!r} is not a number")
            return float(value)
        if kind == "float_list":
            if isinstance(value, str):
                return read_real_list(value)
            if isinstance(value, list) and all(is_finite_number(v) for v in value):
                return [float(v) for v in value]
            raise ValueProblem(f"{value!r} is not a list of numbers")
    except ValueProblem as exc:
        raise GraderConfigError(f"value {value!r}: {exc}") from None
    return value


def _strict_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueProblem(f"{value!r} is not a boolean")
    return value


def _same(a: Any, b: Any) -> bool:
    """Equality of two values already in a tag's type (keywords/strings case-insensitively)."""
    if isinstance(a, str) and isinstance(b, str):
        return a.upper() == b.upper()
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if is_finite_number(a) and is_finite_number(b):
        return bool(float(a) == float(b))
    return bool(a == b)


def evaluate(op: Op, value: Any, operand: Any, spec: TagSpec | None) -> bool:
    """One condition `value op operand`, the operand coerced to the tag's type. Unset values only match eq/in null."""
    if op in ("in", "not_in"):
        items = operand if isinstance(operand, list) else [operand]
        hit = any(_same(value, _coerce(spec, i)) if i is not None else value is None for i in items)
        return hit if op == "in" else not hit
    if op in ("eq", "ne"):
        hit = value is None if operand is None else value is not None and _same(value, _coerce(spec, operand))
        return hit if op == "eq" else not hit
    if value is None or not is_finite_number(value):
        return False
    compare: dict[str, Callable[[float, float], bool]] = {
        "lt": operator.lt,
        "le": operator.le,
        "gt": operator.gt,
        "ge": operator.ge,
    }
    return compare[op](float(value), float(operand))


# ==================================================================================================
# vasp.incar


class IncarParams(BaseModel):
    """Parameters of vasp.incar. Every rule given must hold; the reference value (if named) must match."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    any_of: list[Scalar | None] | None = Field(default=None, description="Allowed effective values (null = not set)")
    not_: list[Scalar | None] | None = Field(default=None, alias="not", description="Forbidden effective values")
    min: float | None = Field(default=None, description="Inclusive lower bound on a numeric value")
    max: float | None = Field(default=None, description="Inclusive upper bound on a numeric value")
    when: Condition | None = Field(
        default=None, description="Apply the check only when these conditions on other tags hold"
    )
    reference_incar: str | None = Field(
        default=None, description="Hidden reference INCAR whose effective value is the expected one"
    )
    reference_poscar: str = Field(default="POSCAR", description="Reference POSCAR (ions for per-ion defaults)")
    poscar: str = Field(default="POSCAR", description="POSCAR beside the INCAR (ion count for MAGMOM)")
    potcar: str | None = Field(default=None, description="POTCAR beside the INCAR; default: first found")

    @field_validator("not_", "any_of", mode="before")
    @classmethod
    def _listify(cls, v: Any) -> Any:
        return v if v is None or isinstance(v, list) else [v]

    @field_validator("when")
    @classmethod
    def _upper(cls, v: Condition | None) -> Condition | None:
        return None if v is None else {k.upper(): ops for k, ops in v.items()}


def _equals(spec: TagSpec | None, actual: Any, expected: Any, tol: Tolerance) -> Outcome:
    """Typed equality: floats within the tolerance, lists element-wise, others exactly; None is "not set"."""
    if expected is None or actual is None:
        ok = expected is None and actual is None
        return Outcome(ok, f"{_fmt(actual)} {'matches' if ok else 'differs from'} {_fmt(expected)}", expected, actual)
    if isinstance(expected, list):
        return compare_array(actual, expected, tol)
    is_float = (spec is not None and spec.type == "float") or (
        spec is None and (isinstance(expected, float) or isinstance(actual, float))
    )
    if is_float and is_finite_number(expected) and is_finite_number(actual):
        return compare_number(actual, expected, tol)
    ok = _same(actual, expected)
    return Outcome(ok, f"{_fmt(actual)} {'matches' if ok else 'differs from'} {_fmt(expected)}", expected, actual)


@register("vasp.incar", params=IncarParams, needs_reference=False, numeric=True, thresholds=("min", "max"))
def incar(ctx: CheckContext[IncarParams]) -> Outcome:
    """The effective value of an INCAR tag (VASP's defaults applied) against the reference and/or rules."""
    p, tag = ctx.params, (ctx.check.target.setting or "").upper()
    if not tag:
        raise GraderConfigError(f"check {ctx.check.id!r}: vasp.incar needs target.setting (the INCAR tag)")
    has_rule = p.any_of is not None or p.not_ is not None or p.min is not None or p.max is not None
    if not has_rule and ctx.check.reference is None and p.reference_incar is None:
        raise GraderConfigError(f"check {ctx.check.id!r}: give a reference, reference_incar, or a rule")
    files = InputFiles.of_submission(ctx.submission, ctx.check.target.file)
    name = PurePosixPath(ctx.check.target.file).name
    resolver = files.resolver(name, p.poscar, p.potcar)
    spec = resolver.spec(tag)

    if p.when:
        holds = resolver.conditions_hold(p.when)
        cond = ", ".join(resolver.effective(t).describe() for t in p.when)
        if holds is None:
            return Outcome(False, f"cannot tell whether the rule for {tag} applies: {cond}")
        if not holds:
            return Outcome(True, f"not applicable: the condition on {', '.join(p.when)} does not hold ({cond})")

    eff = resolver.effective(tag)
    if not eff.known:
        return Outcome(False, eff.describe(), None, None)
    if eff.value is None and spec is None:
        return Outcome(False, f"{eff.describe()}: cannot be verified; set {tag} explicitly", None, None)

    problems: list[str] = []
    passes: list[str] = []
    deviation: float | None = None
    wanted: dict[str, Any] = {}
    expected = _expected_incar_value(ctx, tag, spec)
    tol = ctx.check.effective_tolerance
    if expected is not _NO_VALUE:
        wanted["reference"] = expected
        out = _equals(spec, eff.value, expected, tol)
        deviation = out.deviation
        (passes if out.passed else problems).append(
            out.message
            if out.deviation is not None
            else f"{'matches' if out.passed else 'differs from'} the reference {_fmt(expected)}"
        )
    if p.any_of is not None:
        allowed = [_coerce(spec, v) for v in p.any_of]
        wanted["any_of"] = allowed
        ok = any(_equals(spec, eff.value, a, tol).passed for a in allowed)
        (passes if ok else problems).append(f"{'is' if ok else 'is not'} one of {{{', '.join(map(_fmt, allowed))}}}")
    if p.not_ is not None:
        forbidden = [_coerce(spec, v) for v in p.not_]
        wanted["not"] = forbidden
        hits = [f for f in forbidden if _equals(spec, eff.value, f, tol).passed]
        ok = not hits
        (passes if ok else problems).append(
            f"avoids {{{', '.join(map(_fmt, forbidden))}}}" if ok else f"must not be {_fmt(hits[0])}"
        )
    for bound, name_, cmp in ((p.min, "at least", operator.ge), (p.max, "at most", operator.le)):
        if bound is None:
            continue
        wanted["min" if name_ == "at least" else "max"] = bound
        v = eff.value
        ok = is_finite_number(v) and cmp(float(v), bound)
        (passes if ok else problems).append(f"{'is' if ok else 'is not'} {name_} {bound:g}")
    verdict = "; ".join(problems) if problems else "; ".join(passes)
    shown = wanted["reference"] if list(wanted) == ["reference"] else wanted
    return Outcome(not problems, f"{eff.describe()}: {verdict}", shown, show(eff.value), deviation)


_NO_VALUE: Any = object()


def _expected_incar_value(ctx: CheckContext[IncarParams], tag: str, spec: TagSpec | None) -> Any:
    if ctx.check.reference is not None:
        value = ctx.expected()
        return _coerce(spec, value) if spec is not None else value
    if ctx.params.reference_incar is None:
        return _NO_VALUE
    ref = InputFiles.of_reference(ctx)
    eff = _reference_side(
        ctx, lambda: ref.resolver(ctx.params.reference_incar or "INCAR", ctx.params.reference_poscar).effective(tag)
    )
    if not eff.known:
        raise GraderConfigError(f"check {ctx.check.id!r}: reference INCAR: {eff.describe()}")
    return eff.value


# ==================================================================================================
# vasp.kpoints


@dataclass(frozen=True)
class KpointSet:
    """How VASP would sample the Brillouin zone."""

    kind: Literal["gamma", "monkhorst-pack", "auto", "kspacing", "explicit", "line"]
    description: str
    mesh: tuple[int, int, int] | None = None
    gamma_included: bool | None = None
    count: int | None = None


def _mesh_includes_gamma(mesh: tuple[int, ...], shift: tuple[float, ...], monkhorst: bool) -> bool:
    """Monkhorst-Pack meshes sit half a step off Γ along even subdivisions; an extra user shift adds to that."""
    for n, s in zip(mesh, shift, strict=True):
        offset = s + (0.5 if monkhorst and n % 2 == 0 else 0.0)
        if abs(offset - round(offset)) > 1e-6:
            return False
    return True


def _reciprocal_lengths(lattice: Any) -> list[float]:
    """|b_i| with b_i·a_j = δ_ij (no 2π), in 1/Å."""
    b = np.linalg.inv(np.asarray(lattice.matrix, dtype=float)).T
    return [float(x) for x in np.linalg.norm(b, axis=1)]


def _int_tokens(line: str, count: int, what: str) -> list[int]:
    tokens = line.split()[:count]
    if len(tokens) < count:
        raise ValueProblem(f"expected {count} {what}")
    return [read_int(t) for t in tokens]


def parse_kpoints(text: str, name: str, lattice: Callable[[], Any]) -> KpointSet:
    """Interpret a KPOINTS file as VASP does (only the first letter of the mode line counts)."""
    lines = text.replace("\r", "").split("\n")
    try:
        if len(lines) < 3:
            raise ValueProblem("fewer than 3 lines")
        nk = _int_tokens(lines[1], 1, "k-point count")[0]
        mode = lines[2].strip()[:1].upper()
        if nk < 0:
            raise ValueProblem("negative number of k points")
        if nk == 0:
            return _automatic(lines, mode, lattice)
        if mode == "L":
            return KpointSet("line", f"line mode, {nk} points per segment (a band-structure path)")
        if nk > MAX_KPOINTS:
            raise ValueProblem(f"more than {MAX_KPOINTS} k points")
        points = []
        for i in range(nk):
            if 3 + i >= len(lines):
                raise ValueProblem(f"{nk} k points announced but only {i} listed")
            points.append([read_real(t) for t in lines[3 + i].split()[:3]])
            if len(points[-1]) < 3:
                raise ValueProblem(f"k point {i + 1} has fewer than 3 coordinates")
        has_gamma = any(all(abs(c) < 1e-8 for c in pt) for pt in points)
        return KpointSet("explicit", f"explicit list of {nk} k points", None, has_gamma, nk)
    except ValueProblem as exc:
        raise SubmissionError(f"{name}: not a readable KPOINTS file ({exc})") from None


def _automatic(lines: list[str], mode: str, lattice: Callable[[], Any]) -> KpointSet:
    if mode == "A":
        if len(lines) < 4:
            raise ValueProblem("fully automatic mode without a length")
        length = read_real(lines[3].split()[0] if lines[3].split() else "")
        if length <= 0:
            raise ValueProblem("the length must be positive")
        n = [max(1, int(length * bi + 0.5)) for bi in _reciprocal_lengths(lattice())]
        mesh = (n[0], n[1], n[2])
        return KpointSet("auto", f"fully automatic, length {length:g} -> Γ-centred {_mesh_str(mesh)}", mesh, True)
    if mode in ("G", "M"):
        if len(lines) < 4:
            raise ValueProblem("no subdivisions line")
        sub = _int_tokens(lines[3], 3, "subdivisions")
        mesh = (sub[0], sub[1], sub[2])
        if any(k < 1 or k > MAX_SUBDIVISIONS for k in mesh):
            raise ValueProblem(f"subdivisions {mesh} must be between 1 and {MAX_SUBDIVISIONS}")
        shift: tuple[float, ...] = (0.0, 0.0, 0.0)
        if len(lines) > 4 and lines[4].split():
            tokens = lines[4].split()[:3]
            if len(tokens) < 3:
                raise ValueProblem("the shift line needs 3 numbers")
            shift = tuple(read_real(t) for t in tokens)
        monkhorst = mode == "M"
        kind: Literal["gamma", "monkhorst-pack"] = "monkhorst-pack" if monkhorst else "gamma"
        shift_text = "" if not any(shift) else f" shifted by {' '.join(f'{s:g}' for s in shift)}"
        gamma = _mesh_includes_gamma(mesh, shift, monkhorst)
        desc = f"{'Monkhorst-Pack' if monkhorst else 'Γ-centred'} {_mesh_str(mesh)}{shift_text}"
        return KpointSet(kind, desc, mesh, gamma)
    raise ValueProblem(
        f"automatic mode {lines[2].strip()[:20]!r} is not Gamma, Monkhorst-Pack or Auto "
        "(meshes from generating vectors are not graded)"
    )


def _mesh_str(mesh: tuple[int, ...]) -> str:
    return "×".join(str(n) for n in mesh)


def kspacing_mesh(lattice: Any, kspacing: float) -> tuple[int, int, int]:
    """VASP's mesh for KSPACING: N_i = max(1, ceiling(|b_i| 2π / KSPACING))."""
    b = _reciprocal_lengths(lattice)
    n = [max(1, math.ceil(bi * 2 * math.pi / kspacing - 1e-9)) for bi in b]
    return n[0], n[1], n[2]


class KpointsParams(BaseModel):
    """Parameters of vasp.kpoints; at least one criterion (or a reference mesh) is needed."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    mesh: list[int] | None = Field(default=None, min_length=3, max_length=3, description="Exact subdivisions")
    gamma_centered: bool | None = Field(
        default=None, description="True: the mesh must contain Γ (needed for hexagonal cells)"
    )
    min_kppra: float | None = Field(
        default=None, gt=0, description="Minimum k points per reciprocal atom (N1·N2·N3 × ions)"
    )
    max_spacing: float | None = Field(
        default=None, gt=0, description="Maximum spacing |b_i|·2π/N_i between k points, in 1/Å"
    )
    incar: str = Field(default="INCAR", description="INCAR beside KPOINTS (KSPACING when KPOINTS is absent)")
    poscar: str = Field(default="POSCAR", description="POSCAR beside KPOINTS (lattice and ion count)")


def _kpoint_set(ctx: CheckContext[KpointsParams], files: InputFiles) -> tuple[KpointSet, Structure | None]:
    name = PurePosixPath(ctx.check.target.file).name
    p = ctx.params
    cell: list[Structure] = []

    def lattice() -> Any:
        cell.append(files.structure(p.poscar))
        return cell[-1].lattice

    if files.exists(name):
        kset = parse_kpoints(files.text(name), files.path(name), lattice)
        return kset, cell[-1] if cell else None
    try:
        resolver = files.resolver(p.incar, p.poscar)
        spacing, kgamma = resolver.effective("KSPACING"), resolver.effective("KGAMMA")
    except SubmissionError as exc:
        raise SubmissionError(f"no {files.path(name)} file, and its KSPACING cannot be read: {exc}") from None
    if not is_finite_number(spacing.value) or spacing.value <= 0:
        raise SubmissionError(f"no {name} file, and {spacing.describe()} is not a positive spacing")
    structure = files.structure(p.poscar)
    mesh = kspacing_mesh(structure.lattice, float(spacing.value))
    gamma = True if kgamma.value is True else _mesh_includes_gamma(mesh, (0.0, 0.0, 0.0), True)
    desc = (
        f"no {name} file: VASP builds a {'Γ-centred' if kgamma.value else 'shifted'} {_mesh_str(mesh)} mesh from "
        f"{spacing.describe()}, {kgamma.describe()}"
    )
    return KpointSet("kspacing", desc, mesh, gamma), structure


@register("vasp.kpoints", params=KpointsParams, needs_reference=False, thresholds=("min_kppra", "max_spacing"))
def kpoints(ctx: CheckContext[KpointsParams]) -> Outcome:
    """The k-point sampling VASP would use (KPOINTS, or KSPACING without one): mesh, centring and density."""
    p = ctx.params
    want_mesh = list(p.mesh) if p.mesh is not None else None
    if ctx.check.reference is not None:
        ref = ctx.expected()
        if not (isinstance(ref, list) and len(ref) == 3 and all(isinstance(n, int) for n in ref)):
            raise GraderConfigError(f"check {ctx.check.id!r}: reference mesh must be three integers")
        want_mesh = ref
    if want_mesh is None and p.gamma_centered is None and p.min_kppra is None and p.max_spacing is None:
        raise GraderConfigError(f"check {ctx.check.id!r}: give a mesh, gamma_centered, min_kppra or max_spacing")
    files = InputFiles.of_submission(ctx.submission, ctx.check.target.file)
    kset, structure = _kpoint_set(ctx, files)
    problems: list[str] = []
    notes: list[str] = []
    needs_mesh = want_mesh is not None or p.min_kppra is not None or p.max_spacing is not None
    if needs_mesh and kset.mesh is None:
        problems.append(f"{kset.description} has no regular mesh to measure; use an automatic mesh")
    if p.gamma_centered is not None:
        if kset.gamma_included is None:
            problems.append("Γ-centring cannot be judged for a band-structure path")
        elif kset.gamma_included != p.gamma_centered:
            problems.append("the mesh does not contain Γ" if p.gamma_centered else "the mesh contains Γ")
        else:
            notes.append("contains Γ" if kset.gamma_included else "avoids Γ")
    if kset.mesh is not None:
        mesh = kset.mesh
        if want_mesh is not None:
            if list(mesh) != want_mesh:
                problems.append(f"mesh {_mesh_str(mesh)} differs from the reference {_mesh_str(tuple(want_mesh))}")
            else:
                notes.append("mesh matches")
        if p.min_kppra is not None or p.max_spacing is not None:
            if structure is None:
                structure = files.structure(p.poscar)
            if p.min_kppra is not None:
                kppra = mesh[0] * mesh[1] * mesh[2] * len(structure)
                ok = kppra >= p.min_kppra
                (notes if ok else problems).append(
                    f"{kppra} k points per reciprocal atom ({'≥' if ok else '<'} {p.min_kppra:g})"
                )
            if p.max_spacing is not None:
                spacing = max(
                    b * 2 * math.pi / n for b, n in zip(_reciprocal_lengths(structure.lattice), mesh, strict=True)
                )
                ok = spacing <= p.max_spacing + 1e-9
                (notes if ok else problems).append(
                    f"largest spacing {spacing:.4g} 1/Å ({'≤' if ok else '>'} {p.max_spacing:g})"
                )
    detail = "; ".join(problems) if problems else "; ".join(notes)
    expected = {
        "mesh": want_mesh,
        "gamma_centered": p.gamma_centered,
        "min_kppra": p.min_kppra,
        "max_spacing": p.max_spacing,
    }
    return Outcome(
        not problems,
        f"{kset.description}: {detail}",
        {k: v for k, v in expected.items() if v is not None},
        list(kset.mesh) if kset.mesh else kset.description,
    )


# ==================================================================================================
# vasp.poscar


class PoscarParams(StructureParams):
    """Parameters of vasp.poscar: structure tolerances plus where the magnetic moments come from."""

    reference_file: str = Field(description="Hidden reference POSCAR (or CIF / extended XYZ)")
    reference_incar: str | None = Field(
        default=None, description="Hidden reference INCAR whose effective MAGMOM/ISPIN give the reference order"
    )
    reference_magmom: list[float] | None = Field(
        default=None, description="Reference moments per site (instead of reference_incar)"
    )
    incar: str = Field(default="INCAR", description="INCAR beside the POSCAR (effective MAGMOM and ISPIN)")


def magnetic_moments(resolver: IncarResolver) -> list[float]:
    """Collinear moments per ion as VASP would start them: zero without spin polarisation."""
    noncollinear = resolver.effective("LNONCOLLINEAR").value is True
    ispin = resolver.effective("ISPIN").value
    if not noncollinear and ispin != 2:
        return [0.0] * resolver.nions()  # not spin-polarised: MAGMOM is not used
    values = [float(v) for v in resolver.effective("MAGMOM").value]
    if not noncollinear:
        return values
    vectors = [values[i : i + 3] for i in range(0, len(values), 3)]
    try:
        return collinear_moments(vectors)
    except ValueError as exc:
        raise SubmissionError(f"MAGMOM: {exc}; only collinear order is compared") from None


@register("vasp.poscar", params=PoscarParams, needs_reference=False)
def poscar(ctx: CheckContext[PoscarParams]) -> Outcome:
    """POSCAR is the reference crystal, with the magnetic order of the effective INCAR MAGMOM."""
    p = ctx.params
    expected = read_reference_structure(ctx, p.reference_file)
    if p.reference_magmom is not None:
        if len(p.reference_magmom) != len(expected):
            raise GraderConfigError(f"check {ctx.check.id!r}: reference_magmom length != reference sites")
        expected = expected.copy(site_properties={"magmom": list(p.reference_magmom)})
    elif p.reference_incar is not None:
        ref = InputFiles.of_reference(ctx)
        ref_incar = p.reference_incar
        resolver = _reference_side(
            ctx, lambda: IncarResolver(ref.incar(ref_incar), nions=lambda: len(expected), potcar=lambda: None)
        )
        moments = _reference_side(ctx, lambda: magnetic_moments(resolver))
        expected = expected.copy(site_properties={"magmom": moments})
    files = InputFiles.of_submission(ctx.submission, ctx.check.target.file)
    name = PurePosixPath(ctx.check.target.file).name
    actual = files.structure(name)
    try:
        reference_moments = collinear_moments(list(expected.site_properties.get("magmom") or []))
    except ValueError as exc:
        raise GraderConfigError(f"check {ctx.check.id!r}: reference moments: {exc}") from None
    needs_moments = p.magnetic and any(abs(m) > p.magmom_threshold for m in reference_moments)
    note = ""
    if needs_moments:
        resolver = files.resolver(p.incar, name)
        moments = magnetic_moments(resolver)
        actual = actual.copy(site_properties={"magmom": moments})
        note = f" [{resolver.effective('ISPIN').describe()}; MAGMOM from {resolver.effective('MAGMOM').origin}]"
    out = compare_structures(actual, expected, p)
    return Outcome(out.passed, out.message + note, out.expected, out.actual, out.deviation)


# ==================================================================================================
# vasp.potcar


class PotcarParams(BaseModel):
    """Parameters of vasp.potcar: exact symbols (or the reference value), and/or allowed symbols per element."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    symbols: list[str] | None = Field(default=None, description="Expected symbols in POSCAR species order")
    allowed: dict[str, list[str]] | None = Field(
        default=None, description="Element -> acceptable POTCAR symbols, e.g. {Ni: [Ni_pv, Ni_sv]}"
    )
    poscar: str = Field(default="POSCAR", description="POSCAR beside the POTCAR (species order)")


def _poscar_species(files: InputFiles, name: str) -> list[str] | None:
    """Species names on the POSCAR's species line, or None for a VASP-4 POSCAR (species from the POTCAR)."""
    lines = files.text(name).splitlines()
    if len(lines) < 6:
        raise SubmissionError(f"{files.path(name)}: too short for a POSCAR")
    tokens = lines[5].split()
    if tokens and all(t.isdigit() for t in tokens):
        return None
    return [_element_of(t.split("/")[0]) for t in tokens]


@register("vasp.potcar", params=PotcarParams, needs_reference=False)
def potcar(ctx: CheckContext[PotcarParams]) -> Outcome:
    """POTCAR datasets by symbol (from POTCAR headers, POTCAR.spec or potcar.json), in POSCAR species order."""
    p = ctx.params
    want = p.symbols
    if ctx.check.reference is not None:
        ref = ctx.expected()
        if not (isinstance(ref, list) and all(isinstance(s, str) for s in ref)):
            raise GraderConfigError(f"check {ctx.check.id!r}: reference must be a list of POTCAR symbols")
        want = ref
    if want is None and p.allowed is None:
        raise GraderConfigError(f"check {ctx.check.id!r}: give symbols, allowed, or a reference list")
    files = InputFiles.of_submission(ctx.submission, ctx.check.target.file)
    target = PurePosixPath(ctx.check.target.file).name
    names = [target, *(n for n in InputFiles.POTCAR_NAMES if n != target)]
    info = next((files.potcar(n) for n in names if files.exists(n)), None)
    if info is None:
        raise SubmissionError(f"no {' / '.join(files.path(n) for n in names)} in the submission")
    got = info.symbols
    species = _poscar_species(files, p.poscar)
    problems = []
    if species is not None and info.elements != species:
        problems.append(f"datasets for {' '.join(info.elements)} do not follow the POSCAR species {' '.join(species)}")
    if want is not None and [s.lower() for s in got] != [s.lower() for s in want]:
        problems.append(f"symbols differ from the reference {' '.join(want)}")
    if p.allowed is not None:
        for sym, el in zip(got, info.elements, strict=True):
            options = p.allowed.get(el)
            if options is not None and sym.lower() not in {o.lower() for o in options}:
                problems.append(f"{sym} is not an accepted {el} dataset ({', '.join(options)})")
    summary = f"{info.source}: {' '.join(got)}"
    if problems:
        return Outcome(False, f"{summary}: {'; '.join(problems)}", want or p.allowed, got)
    return Outcome(True, f"{summary}: in POSCAR species order and accepted", want or p.allowed, got)


__all__ = [
    "Effective",
    "Incar",
    "IncarParams",
    "IncarResolver",
    "InputFiles",
    "KpointSet",
    "KpointsParams",
    "PoscarParams",
    "PotcarInfo",
    "PotcarParams",
    "TagSpec",
    "canonical_keyword",
    "kspacing_mesh",
    "magnetic_moments",
    "parse_incar",
    "parse_kpoints",
    "parse_potcar",
    "parse_potcar_spec",
    "vasp_defaults",
]
