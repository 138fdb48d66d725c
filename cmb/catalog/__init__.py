"""Load and validate the task suite; build the agent-visible bundle; scan for leaks."""

from cmb.catalog._bundle import PROMPT_NAME, stage_bundle
from cmb.catalog._errors import CatalogError, Problem
from cmb.catalog._leakage import number_leaks, scan
from cmb.catalog._load import Catalog, TaskEntry
from cmb.catalog._reproduce import Reproduction, reproduce_entry
from cmb.catalog._validate import validate, validate_entry
from cmb.catalog._verify import Verification, run_solution, verify_entry
from cmb.catalog._yaml import load_model, load_yaml

__all__ = [
    "PROMPT_NAME",
    "Catalog",
    "CatalogError",
    "Problem",
    "Reproduction",
    "TaskEntry",
    "Verification",
    "load_model",
    "load_yaml",
    "number_leaks",
    "reproduce_entry",
    "run_solution",
    "scan",
    "stage_bundle",
    "validate",
    "validate_entry",
    "verify_entry",
]
