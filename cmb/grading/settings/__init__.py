"""The effective value of an input setting, shared by every code's grader.

`Effective` is what a code would use for one setting: its value, its `Origin` (set in the input, the code's
default, a default that depends on other settings, forced by the code, absent, unknown, invalid), the rule that
decided it and a note saying how. Codes with a table of defaults (VASP, pw.x) describe them in one grammar
(`Rule`, `Predicate`, `Term`, `MinOf`) and resolve them with one procedure (`RuleEvaluator`); a code whose
defaults come from an interpreter's state (LAMMPS) reports its values in the same model.
"""

from cmb.grading.settings._evaluator import RuleEvaluator, SettingSpec, Undetermined
from cmb.grading.settings._model import Effective, Origin
from cmb.grading.settings._rules import (
    Condition,
    Leaf,
    MinOf,
    Operand,
    Predicate,
    Rule,
    Scalar,
    Strict,
    Term,
    condition_references,
    describe_condition,
    describe_expr,
    predicate,
    references,
)

__all__ = [
    "Condition",
    "Effective",
    "Leaf",
    "MinOf",
    "Operand",
    "Origin",
    "Predicate",
    "Rule",
    "RuleEvaluator",
    "Scalar",
    "SettingSpec",
    "Strict",
    "Term",
    "Undetermined",
    "condition_references",
    "describe_condition",
    "describe_expr",
    "predicate",
    "references",
]
