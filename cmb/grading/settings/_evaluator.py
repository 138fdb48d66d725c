"""One procedure for effective values, shared by every code with a defaults table.

For one setting: the first forced rule whose condition holds wins over everything; then the value the input
gives; then the first conditional default whose condition holds; then the unconditional default. Conditions
are tested on effective values, so defaults chain (IBRION's default follows NSW's). A code supplies what only it
knows: its table entries, how the input's value is read, when two values are equal, expressions of its own,
and how each outcome is put in words.
"""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from cmb.grading._registry import GraderConfigError
from cmb.grading._submission import is_finite_number
from cmb.grading.settings._model import Effective, Origin
from cmb.grading.settings._rules import Condition, Leaf, MinOf, Predicate, Rule, Term, predicate, references

_ORDER: dict[str, Callable[[float, float], bool]] = {
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}


class Undetermined(Exception):
    """A value the grader cannot tell without running the code; `reason` says why.

    `depends_on` names the setting whose unknown value an expression needed; `in_condition` marks a rule's
    condition that could not be decided.
    """

    def __init__(self, reason: str, *, depends_on: str | None = None, in_condition: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.depends_on = depends_on
        self.in_condition = in_condition


class SettingSpec(Protocol):
    """What the procedure reads from a table entry."""

    @property
    def rules(self) -> Sequence[Rule[Any]]:
        """Conditional values in order."""

    @property
    def default(self) -> Any:
        """The value when no rule applies."""


def default_origin(spec: SettingSpec, rule: Rule[Any] | None) -> Origin:
    """CONDITIONAL_DEFAULT when a default depends on other settings, else DEFAULT.

    It depends on them through the conditions of the setting's rules (whichever of them applies) or through
    the expression that gives the value (4 × ecutwfc).
    """
    conditional = any(r.when for r in spec.rules if not r.force)
    expr = rule.value if rule is not None else spec.default
    return Origin.CONDITIONAL_DEFAULT if conditional or references(expr) else Origin.DEFAULT


S = TypeVar("S", bound=SettingSpec)
E = TypeVar("E", bound=Effective)


class RuleEvaluator(ABC, Generic[S, E]):
    """Effective values of one input by its code's table; results are cached, circular tables refused."""

    table_name: ClassVar[str] = "the defaults table"
    value_type: ClassVar[type[Effective]] = Effective

    def __init__(self) -> None:
        self._cache: dict[str, E] = {}
        self._stack: list[str] = []

    # ---- what a code supplies

    @abstractmethod
    def spec(self, name: str) -> S | None:
        """The table entry of a setting, None when the table has none."""

    @abstractmethod
    def given(self, name: str) -> bool:
        """Whether the input gives the setting."""

    @abstractmethod
    def read(self, name: str, spec: S) -> E:
        """The value the input gives, read as the code reads it."""

    @abstractmethod
    def uncurated(self, name: str) -> E:
        """A setting the table does not know: what the input says, if anything."""

    @abstractmethod
    def defaulted(self, name: str, spec: S, rule: Rule[Any] | None, value: Any, origin: Origin) -> E:
        """The setting takes `value` from a rule (None: from `default`); `origin` is DEFAULT or CONDITIONAL_DEFAULT."""

    @abstractmethod
    def undetermined(self, name: str, why: Undetermined) -> E:
        """The setting's value cannot be told."""

    @abstractmethod
    def as_written(self, name: str) -> tuple[bool, Any]:
        """(whether the input writes it, the value as written), for `of_input` tests."""

    def key(self, name: str) -> str:
        """The canonical spelling of a setting's name."""
        return name

    def is_set(self, name: str) -> bool:
        """Whether the input gives the setting, for `set` tests."""
        return self.given(name)

    def same(self, name: str, value: Any, operand: Any) -> bool:
        """Whether a (not None) effective value equals a (not None) operand of a test on it."""
        return bool(value == operand)

    def typed(self, name: str, spec: S, value: Any) -> Any:
        """A rule's value in the setting's type."""
        return value

    def leaf(self, name: str, expr: Leaf) -> Any:
        """The value of an expression of the code's own while resolving `name`."""
        raise GraderConfigError(f"{self.table_name}: no evaluator for {type(expr).__name__} expressions")

    def forced(self, name: str, spec: S, rule: Rule[Any], value: Any) -> E:
        """A forced rule replaces whatever the input gives."""
        return self.value_type(name, value, Origin.FORCED, rule, rule.note or "")  # type: ignore[return-value]

    # ---- the procedure

    def effective(self, name: str) -> E:
        """The value the code uses for `name`, and where it comes from."""
        key = self.key(name)
        if key in self._cache:
            return self._cache[key]
        if key in self._stack:
            raise GraderConfigError(f"{self.table_name}: circular defaults {' -> '.join([*self._stack, key])}")
        self._stack.append(key)
        try:
            result = self._resolve(key)
        finally:
            self._stack.pop()
        self._cache[key] = result
        return result

    def _resolve(self, name: str) -> E:
        spec = self.spec(name)
        if spec is None:
            return self.uncurated(name)
        try:
            for rule in spec.rules:
                if rule.force and self._matches(rule.when):
                    return self.forced(name, spec, rule, self.typed(name, spec, self.value(rule.value, name)))
            if self.given(name):
                return self.read(name, spec)
            for rule in spec.rules:
                if not rule.force and self._matches(rule.when):
                    value = self.typed(name, spec, self.value(rule.value, name))
                    return self.defaulted(name, spec, rule, value, default_origin(spec, rule))
            value = self.typed(name, spec, self.value(spec.default, name))
            return self.defaulted(name, spec, None, value, default_origin(spec, None))
        except Undetermined as why:
            return self.undetermined(name, why)

    def matches(self, cond: Condition) -> bool | None:
        """Whether every test of the condition holds; None when one depends on a value that cannot be told."""
        try:
            return self._matches(cond)
        except Undetermined:
            return None

    def _matches(self, cond: Condition) -> bool:
        for name, test in cond.items():
            pred = predicate(test)
            if pred.is_set is not None and self.is_set(name) != pred.is_set:
                return False
            if pred.is_set is False or not pred.comparisons():
                continue  # nothing to compare on an absent setting
            if pred.of_input:
                written, value = self.as_written(name)
                if not written:
                    return False  # nothing written to test
            else:
                eff = self.effective(name)
                if not eff.known:
                    raise Undetermined(f"{name}: {eff.note}", in_condition=True)
                value = eff.value
            if not self.holds(name, pred, value):
                return False
        return True

    def holds(self, name: str, pred: Predicate, value: Any) -> bool:
        """Whether `value` (of setting `name`) passes every comparison of the predicate."""
        for op, operand in pred.comparisons():
            if op in ("in", "not_in"):
                hit = any(self._equal(name, value, item) for item in operand)
            elif op in ("eq", "ne"):
                hit = self._equal(name, value, self.value(operand, name))
            elif not is_finite_number(value):
                return False  # an order needs a number
            else:
                hit = _ORDER[op](float(value), float(self.value(operand, name)))
            if hit == (op in ("not_in", "ne")):
                return False
        return True

    def _equal(self, name: str, value: Any, operand: Any) -> bool:
        if value is None or operand is None:
            return value is None and operand is None  # null stands for "not set"
        return self.same(name, value, operand)

    def value(self, expr: Any, name: str) -> Any:
        """The value of an expression (a literal is itself) while resolving `name`."""
        if isinstance(expr, Term):
            eff = self.effective(expr.of)
            if not eff.known:
                raise Undetermined(f"depends on {expr.of}: {eff.note}", depends_on=expr.of)
            if eff.value is None or (expr.times is not None and not is_finite_number(eff.value)):
                raise Undetermined(f"depends on {expr.of}, which is not set", depends_on=expr.of)
            return eff.value if expr.times is None else float(eff.value) * expr.times
        if isinstance(expr, MinOf):
            return min(self.value(t, name) for t in expr.min_of)
        if isinstance(expr, Leaf):
            return self.leaf(name, expr)
        return expr
