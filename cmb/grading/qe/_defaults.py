"""How pw.x 6.7 reads its input, as data: the table in `qe67_defaults.yaml`, validated once.

Namelists in reading order, every variable pw.x declares, the curated settings (type, default, accepted
spellings, conditional rules in the shared grammar of `cmb.grading.settings`), the input combinations pw.x
stops on, the cards, and the functional names found in pseudopotential file names. pw.x's own expression:
a value it takes from the pseudopotential files (`depends_on`).
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any, Literal

import yaml
from pydantic import Field, ValidationError, model_validator

from cmb.grading._registry import GraderConfigError
from cmb.grading.settings import (
    Condition,
    Leaf,
    MinOf,
    Predicate,
    Rule,
    Strict,
    Term,
    predicate,
    references,
)

TABLE_FILE = "qe67_defaults.yaml"


class DependsOn(Leaf):
    """A value pw.x takes from somewhere the grader cannot see."""

    depends_on: Literal["pseudopotential"] = Field(description="Where pw.x takes the value from")


QeValue = MinOf | DependsOn | Term | bool | int | float | str | None


class Fallback(Strict):
    """What pw.x uses instead of a spelling it does not know."""

    fallback: Any = Field(description="Canonical value used instead")
    note: str = Field(description="What pw.x does, shown in messages")


class VarSpec(Strict):
    """One curated setting."""

    type: Literal["str", "int", "float", "bool"] = Field(description="Fortran type")
    default: QeValue = Field(default=None, description="Value when absent; null = not set")
    values: dict[str, list[str]] | None = Field(default=None, description="Canonical value -> accepted spellings")
    unknown_value: Literal["error"] | Fallback | None = Field(default=None, description="Other spellings")
    case_sensitive: bool = Field(default=True, description="Whether pw.x compares the spelling exactly")
    rules: list[Rule[QeValue]] = Field(default_factory=list, description="Conditional values, first match wins")
    unset_when: Predicate | None = Field(default=None, description="Input values pw.x treats as absent")
    clamp: tuple[float, float] | None = Field(default=None, description="pw.x brings the value into this range")
    per_species: bool = Field(default=False, description="An array indexed by species (1..ntyp)")
    unit: str | None = Field(default=None, description="Unit of the value")
    meaning: str | None = Field(default=None, description="What the effective value stands for")
    note: str | None = Field(default=None, description="Remark shown with default values")
    source: str = Field(description="Documentation page and variable, and/or source file and routine")


class FatalRule(Strict):
    """An input combination on which pw.x stops."""

    when: Condition = Field(description="Settings and predicates, all of which must hold")
    message: str = Field(description="pw.x's error message")
    involves: list[str] | None = Field(default=None, description="Settings at fault (default: those in when)")
    source: str = Field(description="Where pw.x checks it")


class NamelistSpec(Strict):
    """A namelist pw.x reads, in reading order."""

    name: str = Field(description="Namelist name, lower case")
    read_when: Condition | None = Field(default=None, description="Read only when this holds (default always)")
    required_when: Condition | None = Field(default=None, description="Required when this holds (default always)")


class CardSpec(Strict):
    """How pw.x reads a card's option."""

    options: list[tuple[str, str]] = Field(description="(substring of the upper-cased line, option) in order")
    bare: str = Field(description="Option when none is given")
    unknown_option: Literal["error", "bare"] = Field(description="What an unrecognised option does")
    when_absent: str | None = Field(default=None, description="Option pw.x assumes when the card is absent")
    note: str | None = Field(default=None, description="Remark")
    source: str = Field(description="Documentation and source")


class CardsTable(Strict):
    """Cards pw.x knows and the options of those graded here."""

    known: list[str] = Field(description="Card names pw.x 6.7 recognises")
    ATOMIC_POSITIONS: CardSpec
    CELL_PARAMETERS: CardSpec
    K_POINTS: CardSpec


class QeTable(Strict):
    """The whole `qe67_defaults.yaml`."""

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
        for name in references(expr):
            self._check_setting(where, name)

    def _check_condition(self, where: str, cond: Condition) -> None:
        for name, test in cond.items():
            spec = self._check_setting(where, name)
            pred = predicate(test)
            if spec.per_species and pred.comparisons():
                raise ValueError(f"{where}: {name} is per species; only `set` can be tested")
            for _, operand in pred.comparisons():
                self._check_expr(where, operand)
            values = (pred.in_ or []) + (pred.not_in or [])
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
    text = resources.files("cmb.grading.qe").joinpath(TABLE_FILE).read_text(encoding="utf-8")
    try:
        return QeTable.model_validate(yaml.safe_load(text))
    except ValidationError as exc:
        raise GraderConfigError(f"{TABLE_FILE}: {exc}") from None


@functools.cache
def functional_tokens() -> dict[str, str]:
    """Every functional name of the table (families and their aliases) -> its family."""
    return {token: family for family, tokens in qe_table().functionals.items() for token in [family, *tokens]}
