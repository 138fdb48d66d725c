"""The grammar of a code's defaults table: rules, conditions on other settings, and value expressions.

Every setting has a default and an ordered list of rules; in YAML:

    rules:
      - when: {NSW: {in: [0, -1]}}               # every condition must hold
        value: -1
      - when: {control.calculation: [relax]}     # a list is short for {in: [...]}
        value: bfgs
        force: true                             # the code applies it even over the input's value
        note: why, shown in messages

A condition maps a setting to tests on its effective value: `eq`, `ne`, `in`, `not_in` (equality in the code's
own terms; null stands for "not set"), `lt`, `le`, `gt`, `ge` (numbers), `set` (whether the input gives the
setting) and `of_input` (test the value as written, before defaults and rules). A value, or a bound, may be
another setting's effective value, `{of: NAME, times: k}`, or the smallest of several, `{min_of: [...]}`; a code
adds expressions of its own (a value read from a POTCAR, one value per ion ...) as subclasses of `Leaf`.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Strict(BaseModel):
    """Base of the table models: unknown keys are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Leaf(Strict):
    """A value expression that only one code can evaluate (its evaluator's `leaf` does)."""


class Term(Strict):
    """Another setting's effective value, times a factor when one is given: {of: system.ecutwfc, times: 4}."""

    of: str = Field(description="The other setting")
    times: float | None = Field(default=None, description="Factor applied to its (numeric) value")


class MinOf(Strict):
    """The smallest of several values."""

    min_of: list[Term | float] = Field(min_length=1, description="Terms or numbers")


Scalar = bool | int | float | str
Operand = Term | Scalar | None
Bound = Term | float | None

# (op, field) in evaluation order
COMPARISONS = (
    ("in", "in_"),
    ("not_in", "not_in"),
    ("eq", "eq"),
    ("ne", "ne"),
    ("lt", "lt"),
    ("le", "le"),
    ("gt", "gt"),
    ("ge", "ge"),
)


class Predicate(Strict):
    """Tests on one setting, all of which must hold."""

    in_: list[Any] | None = Field(default=None, alias="in", description="One of these values (null: not set)")
    not_in: list[Any] | None = Field(default=None, description="None of these values")
    eq: Operand = Field(default=None, description="Equal (eq: null means not set)")
    ne: Operand = Field(default=None, description="Not equal (ne: null means set)")
    lt: Bound = Field(default=None, description="Below")
    le: Bound = Field(default=None, description="At most")
    gt: Bound = Field(default=None, description="Above")
    ge: Bound = Field(default=None, description="At least")
    is_set: bool | None = Field(default=None, alias="set", description="Whether the input gives the setting")
    of_input: bool = Field(default=False, description="Test the value as written, before defaults and rules")

    @field_validator("in_", "not_in", mode="before")
    @classmethod
    def _listify(cls, v: Any) -> Any:
        return v if isinstance(v, list) else [v]

    def comparisons(self) -> list[tuple[str, Any]]:
        """(op, operand) of each comparison given, in evaluation order; an explicit `eq: null` counts."""
        return [(op, getattr(self, name)) for op, name in COMPARISONS if name in self.model_fields_set]


Condition = dict[str, Predicate | list[Any]]

V = TypeVar("V")


class Rule(Strict, Generic[V]):
    """A conditional value: a default when `when` holds, or with `force` an override of the input too."""

    when: Condition = Field(default_factory=dict, description="Settings and their tests, all of which must hold")
    value: V = Field(description="The value then")
    force: bool = Field(default=False, description="The code uses it even when the input gives another value")
    note: str | None = Field(default=None, description="Why, shown in messages")


def predicate(test: Predicate | list[Any]) -> Predicate:
    """A condition's test on one setting, the list shorthand read as `in`."""
    return test if isinstance(test, Predicate) else Predicate.model_validate({"in": test})


def references(expr: Any) -> list[str]:
    """The settings an expression reads."""
    if isinstance(expr, Term):
        return [expr.of]
    if isinstance(expr, MinOf):
        return [t.of for t in expr.min_of if isinstance(t, Term)]
    return []


def condition_references(cond: Condition) -> list[str]:
    """The settings a condition reads: those it tests and those its bounds refer to."""
    names = list(cond)
    for test in cond.values():
        names += [n for _, operand in predicate(test).comparisons() for n in references(operand)]
    return names


def describe_expr(expr: Any) -> str:
    """An expression in words ('4 × system.ecutwfc'); empty for a literal."""
    if isinstance(expr, Term):
        return f"{expr.times:g} × {expr.of}" if expr.times is not None and expr.times != 1 else expr.of
    if isinstance(expr, MinOf):
        return "min(" + ", ".join(describe_expr(t) if isinstance(t, Term) else f"{t:g}" for t in expr.min_of) + ")"
    return ""


def describe_condition(cond: Condition) -> str:
    """A condition in words: 'control.calculation in ['relax'] and system.nspin {'ne': 2.0}'."""
    parts = []
    for name, test in cond.items():
        if isinstance(test, list):
            parts.append(f"{name} in {test}")
        else:
            parts.append(f"{name} {test.model_dump(exclude_defaults=True, by_alias=True)}")
    return " and ".join(parts)
