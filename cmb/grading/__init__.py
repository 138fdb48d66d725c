"""Fixed-rule grading: pure functions from (grader spec, reference, submission folder) to a GradeReport.

Each check family lives in one module that registers its check types on import.
"""

from importlib import import_module
from pathlib import Path

from cmb.grading._compare import compare_array, compare_number, show
from cmb.grading._engine import grade, grader_hash, partial_credit, run_check, validate_params
from cmb.grading._registry import (
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

FAMILIES = ("numeric", "schema", "structure", "vasp", "qe", "lammps", "vampire")

for _family in FAMILIES:
    # a family is a module cmb/grading/_<family>.py or a subpackage cmb/grading/<family>/
    _sub = (Path(__file__).parent / _family / "__init__.py").is_file()
    import_module(f"cmb.grading.{_family}" if _sub else f"cmb.grading._{_family}")

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
