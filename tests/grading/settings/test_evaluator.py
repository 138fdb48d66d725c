"""The shared effective-setting procedure, on a toy code that plugs into it as a new static grader would."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from cmb.grading import GraderConfigError
from cmb.grading.settings import (
    Effective,
    Leaf,
    MinOf,
    Origin,
    Rule,
    RuleEvaluator,
    Strict,
    Term,
    Undetermined,
)


class Twice(Leaf):
    """An expression of the toy code's own: twice another setting."""

    twice: str


class Spec(Strict):
    default: Twice | Term | MinOf | bool | int | float | str | None = None
    rules: list[Rule[Twice | Term | MinOf | bool | int | float | str | None]] = []


TABLE = """
mode: {default: scf}
steps:
  default: 1
  rules:
    - {when: {mode: [relax, md]}, value: 50}
forces:
  default: false
  rules:
    - {when: {mode: [relax]}, value: true, force: true, note: always computed for relax}
wfc: {default: null}
rho: {default: {of: wfc, times: 4}}
fock: {default: {min_of: [{of: rho}, 100]}}
double: {default: {twice: wfc}}
width: {default: 0.0}
smearing:
  default: none
  rules:
    - {when: {width: {gt: 0}}, value: gauss}
    - {when: {wfc: {eq: null}}, value: unknown-cutoff}
spin:
  default: 1
  rules:
    - {when: {steps: {set: true, in: [7]}}, value: 2}
    - {when: {mode: {of_input: true, in: [md]}}, value: 3}
loop_a: {default: {of: loop_b}}
loop_b: {default: {of: loop_a}}
"""


class Toy(RuleEvaluator[Spec, Effective]):
    """Settings of a flat dictionary, defaults from TABLE."""

    table_name = "toy.yaml"

    def __init__(self, values: dict[str, Any]) -> None:
        super().__init__()
        self.values = values
        self.table = {k: Spec.model_validate(v) for k, v in yaml.safe_load(TABLE).items()}

    def spec(self, name: str) -> Spec | None:
        return self.table.get(name)

    def given(self, name: str) -> bool:
        return name in self.values

    def as_written(self, name: str) -> tuple[bool, Any]:
        return name in self.values, self.values.get(name)

    def read(self, name: str, spec: Spec) -> Effective:
        return Effective(name, self.values[name], Origin.SET, note="in the input")

    def uncurated(self, name: str) -> Effective:
        return Effective(name, self.values.get(name), Origin.SET if name in self.values else Origin.ABSENT)

    def defaulted(self, name: str, spec: Spec, rule: Rule[Any] | None, value: Any, origin: Origin) -> Effective:
        return Effective(name, value, origin, rule)

    def undetermined(self, name: str, why: Undetermined) -> Effective:
        return Effective(name, None, Origin.UNKNOWN, note=why.reason)

    def leaf(self, name: str, expr: Leaf) -> Any:
        if isinstance(expr, Twice):
            other = self.effective(expr.twice)
            if other.value is None:
                raise Undetermined(f"{expr.twice} is not set")
            return 2 * other.value
        return super().leaf(name, expr)


def test_defaults_apply_when_the_input_is_silent():
    toy = Toy({})
    mode, steps = toy.effective("mode"), toy.effective("steps")
    assert (mode.value, mode.origin, mode.rule) == ("scf", Origin.DEFAULT, None)
    # steps has a rule on mode: its default depends on mode even when no rule applies
    assert (steps.value, steps.origin, steps.rule) == (1, Origin.CONDITIONAL_DEFAULT, None)
    assert Toy({"wfc": 30.0}).effective("rho").origin is Origin.CONDITIONAL_DEFAULT  # 4 × wfc
    assert Toy({"wfc": 30.0}).effective("double").origin is Origin.DEFAULT  # the code's own expression


def test_a_conditional_default_names_the_rule_that_decided_it():
    steps = Toy({"mode": "relax"}).effective("steps")
    assert (steps.value, steps.origin) == (50, Origin.CONDITIONAL_DEFAULT)
    assert steps.rule is not None and steps.rule.when == {"mode": ["relax", "md"]}


def test_the_input_wins_over_a_default_but_not_over_a_forced_rule():
    assert Toy({"mode": "relax", "steps": 3}).effective("steps").origin is Origin.SET
    forces = Toy({"mode": "relax", "forces": False}).effective("forces")
    assert (forces.value, forces.origin, forces.note) == (True, Origin.FORCED, "always computed for relax")
    assert Toy({"forces": True}).effective("forces").origin is Origin.SET


def test_expressions_read_other_settings():
    toy = Toy({"wfc": 30.0})
    assert toy.effective("rho").value == 120.0
    assert toy.effective("fock").value == 100  # min(120, 100)
    assert toy.effective("double").value == 60.0  # the code's own expression


def test_a_value_that_depends_on_an_unset_one_is_unknown_and_says_why():
    toy = Toy({})
    rho = toy.effective("rho")
    assert rho.origin is Origin.UNKNOWN and not rho.known and rho.note == "depends on wfc, which is not set"
    assert toy.effective("fock").origin is Origin.UNKNOWN
    assert toy.effective("double").note == "wfc is not set"


def test_conditions_compare_effective_values_with_null_meaning_not_set():
    assert Toy({"width": 0.01}).effective("smearing").value == "gauss"
    assert Toy({}).effective("smearing").value == "unknown-cutoff"  # wfc: {eq: null}
    assert Toy({"wfc": 30.0}).effective("smearing").value == "none"


def test_set_and_of_input_test_what_the_input_writes():
    assert Toy({"steps": 7}).effective("spin").value == 2
    assert Toy({"mode": "relax"}).effective("spin").value == 1
    assert Toy({"mode": "md"}).effective("spin").value == 3


def test_matches_is_none_when_a_condition_cannot_be_decided():
    toy = Toy({})
    assert toy.matches({"rho": {"gt": 10}}) is None
    assert toy.matches({"mode": ["scf"]}) is True and toy.matches({"mode": {"ne": "scf"}}) is False


def test_a_circular_table_is_a_grader_error():
    with pytest.raises(GraderConfigError, match="toy.yaml: circular defaults loop_a -> loop_b -> loop_a"):
        Toy({}).effective("loop_a")


def test_settings_outside_the_table_are_the_codes_to_describe():
    assert Toy({"extra": 5}).effective("extra").value == 5
    assert Toy({}).effective("extra").origin is Origin.ABSENT
