"""`cmb tasks validate`: every rule a task must meet before any agent sees it.

Schema, files, grader/reference consistency, the leakage scans, the reduced-prompt rule, the recall baseline's and
the fairness record's coverage, and each study's graph.
"""

from __future__ import annotations

from cmb.catalog._errors import CatalogError, Problem
from cmb.catalog._leakage import prompt_leaks, scan
from cmb.catalog._load import FULL_PROMPT, REFERENCE_FILE, Catalog, TaskEntry
from cmb.catalog._prompts import unstated_targets
from cmb.catalog._quality import fairness_problems, recall_problems
from cmb.catalog._solution import SOLUTION_SCRIPT
from cmb.catalog._studies import studies_problems
from cmb.grading import REGISTRY, GraderConfigError, validate_params
from cmb.models import GraderSpec, Reference


def numeric_types() -> frozenset[str]:
    """The check types that compare a number with a reference (a prompt must not leak their values)."""
    return frozenset(name for name, t in REGISTRY.types.items() if t.numeric and t.needs_reference)


def _answer_file_declared(target: str, answer_files: list[str]) -> bool:
    return any(target == a or target.startswith(a.rstrip("/") + "/") for a in answer_files)


def _check_grader(entry: TaskEntry, grader: GraderSpec, reference: Reference) -> list[Problem]:
    problems: list[Problem] = []
    path = entry.grader_path
    if grader.task != entry.id:
        problems.append(Problem(path, f"grader names task {grader.task!r}, expected {entry.id!r}"))
    if reference.task != entry.id:
        problems.append(Problem(entry.reference_dir / REFERENCE_FILE, f"reference names task {reference.task!r}"))
    used: set[str] = set()
    for check in grader.checks:
        where = f"checks[{check.id}]"
        try:
            ctype = REGISTRY.get(check.type)
            validate_params(check)
        except (KeyError, GraderConfigError) as exc:
            problems.append(Problem(path, str(exc.args[0]), field=where))
            continue
        if ctype.needs_reference:
            if check.reference is None:
                problems.append(Problem(path, f"{check.type} needs a 'reference' key", field=where))
            elif check.reference not in reference.values:
                problems.append(
                    Problem(path, f"reference value {check.reference!r} not in reference.yaml", field=where)
                )
            else:
                used.add(check.reference)
        if not _answer_file_declared(check.target.file, entry.spec.answer_files):
            problems.append(
                Problem(path, f"target file {check.target.file!r} is not among the task's answer_files", field=where)
            )
        ref_file = check.params.get("reference_file")
        if isinstance(ref_file, str):
            if ref_file not in reference.files:
                problems.append(Problem(path, f"reference_file {ref_file!r} not listed in reference.yaml", field=where))
            used.add(f"file:{ref_file}")
    for name in reference.files:
        if not (entry.reference_dir / name).is_file():
            problems.append(Problem(entry.reference_dir / REFERENCE_FILE, f"reference file {name!r} is missing"))
    return problems


def validate_entry(entry: TaskEntry) -> list[Problem]:
    """All problems of one task or workflow."""
    problems: list[Problem] = []
    spec_dir = entry.dir
    if spec_dir.name != entry.id:
        problems.append(Problem(spec_dir, f"folder name {spec_dir.name!r} differs from task id {entry.id!r}"))
    if spec_dir.parent.name != entry.spec.study:
        problems.append(Problem(spec_dir, f"study folder {spec_dir.parent.name!r} differs from {entry.spec.study!r}"))
    full = spec_dir / FULL_PROMPT
    if not full.is_file() or not full.read_text(encoding="utf-8").strip():
        problems.append(Problem(full, "full-guidance prompt missing or empty"))
    for rel in entry.spec.workspace:
        if not (entry.workspace_dir / rel).is_file():
            problems.append(Problem(entry.workspace_dir / rel, "workspace file listed in the spec is missing"))
    if not (entry.reference_dir / SOLUTION_SCRIPT).is_file():
        problems.append(Problem(entry.reference_dir / SOLUTION_SCRIPT, "oracle solution missing"))
    try:
        grader = entry.grader()
        reference = entry.reference()
    except CatalogError as exc:
        return problems + exc.problems
    problems += _check_grader(entry, grader, reference)
    problems += scan(reference, entry.reference_dir, entry.agent_visible_files())
    prompts = entry.prompts()
    by_path = {entry.prompt_path(c): text for c, text in prompts.items()}
    given = [g.value for g in entry.spec.given]
    problems += prompt_leaks(grader.checks, reference, by_path, given, numeric_types())
    problems += unstated_targets(entry, grader, prompts)
    problems += recall_problems(entry, grader)
    problems += fairness_problems(entry, grader)
    return problems


def validate(catalog: Catalog, ids: list[str] | None = None) -> list[Problem]:
    """Problems of the selected entries (all by default), load problems included."""
    problems = list(catalog.problems) if not ids else []
    entries = catalog.select(ids) if ids else list(catalog.entries.values())
    for entry in entries:
        problems += validate_entry(entry)
    problems += studies_problems(catalog, None if not ids else {e.spec.study for e in entries})
    return problems
