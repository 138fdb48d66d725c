"""Fixed-rule grading: pure functions from (grader spec, reference, submission folder) to a GradeReport.

A check family registers its check types on import. The generic families (numeric values, answer schemas,
crystal structures) are single modules; each simulation code whose inputs are graded without running it is a
subpackage (`vasp`, `qe`, `lammps`) holding its reader, its defaults as data beside it, and a `_checks` module
with only its registered check types. All of them report a setting in one model, `settings.Effective`: the
value the code would use, its origin (set / default / conditional default ...), the rule that decided it.

How to add a code (a static grader of ABACUS, VAMPIRE, Wannier90 or kdotpy inputs, say):

1. Create `cmb/grading/<code>/` with a reader that turns the input text into settings, read as the code reads
   them (strict where the code is strict, refusing what it would silently ignore), on linear-time parsing.
2. Put the code's documented defaults beside it as data (`<code>_defaults.yaml`, each entry citing its
   source) in the grammar of `cmb.grading.settings` (`Rule`, `Predicate`, `Term`, `MinOf`; a `Leaf` subclass
   for an expression only this code has), and resolve them with a `settings.RuleEvaluator` subclass: it says
   how the input's value is read, when two values are equal and how each outcome is put in words.
3. Write `_checks.py`: `@register("<code>.<type>", params=..., thresholds=...)` functions that compare
   effective values with the reference; list the package's public names in its `__init__` with `__all__`.
4. Add the family to `FAMILY_MODULES` in `_registry` and its data file to `[tool.setuptools.package-data]` in
   pyproject.toml (a code graded by another package registers instead through an entry point of group
   `cmb.checks` naming the module whose import registers its check types; see `_registry`).

Grading stays pure: it reads only the submission and reference files it is given and imports nothing of the
runner, sandboxes, scheduler, store, command line, agents, gateway, analysis or catalog.
"""

from cmb.grading._compare import compare_array, compare_number, show
from cmb.grading._engine import grade, grader_hash, partial_credit, run_check, validate_params
from cmb.grading._registry import (
    FAMILY_MODULES,
    REGISTRY,
    CheckContext,
    CheckType,
    GraderConfigError,
    NoParams,
    Outcome,
    Registry,
    register,
)
from cmb.grading._submission import Submission, SubmissionError, get_field

FAMILIES = tuple(FAMILY_MODULES)  # their modules are imported on the registry's first lookup, not here

__all__ = [
    "FAMILIES",
    "REGISTRY",
    "CheckContext",
    "CheckType",
    "GraderConfigError",
    "NoParams",
    "Outcome",
    "Registry",
    "Submission",
    "SubmissionError",
    "compare_array",
    "compare_number",
    "get_field",
    "grade",
    "grader_hash",
    "partial_credit",
    "register",
    "run_check",
    "show",
    "validate_params",
]
