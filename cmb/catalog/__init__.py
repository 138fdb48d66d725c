"""Load and validate the task suite; build the agent-visible bundle; scan for leaks."""

from cmb.catalog._bundle import PROMPT_NAME, stage_bundle
from cmb.catalog._errors import CatalogError, Problem
from cmb.catalog._leakage import number_leaks, scan
from cmb.catalog._load import Catalog, StudyEntry, TaskEntry
from cmb.catalog._prompts import unstated_targets
from cmb.catalog._quality import CaseError, apply_case
from cmb.catalog._reproduce import Reproduction, reproduce_entry
from cmb.catalog._solution import assemble_solution
from cmb.catalog._studies import mermaid as study_mermaid
from cmb.catalog._studies import render_study, studies_problems
from cmb.catalog._summary import suite_markdown, suite_rows, summary_line
from cmb.catalog._validate import validate, validate_entry
from cmb.catalog._verify import Verification, run_solution, verify_entry
from cmb.catalog._yaml import load_model, load_yaml

__all__ = [
    "PROMPT_NAME",
    "Catalog",
    "CatalogError",
    "CaseError",
    "Problem",
    "Reproduction",
    "StudyEntry",
    "TaskEntry",
    "Verification",
    "apply_case",
    "assemble_solution",
    "load_model",
    "load_yaml",
    "number_leaks",
    "reproduce_entry",
    "run_solution",
    "render_study",
    "scan",
    "stage_bundle",
    "studies_problems",
    "suite_markdown",
    "suite_rows",
    "summary_line",
    "study_mermaid",
    "unstated_targets",
    "validate",
    "validate_entry",
    "verify_entry",
]
