"""The suite at a glance: one row per entry (`cmb tasks list --json`) and the README's study and task tables."""

from __future__ import annotations

from collections import Counter
from typing import Any

from cmb.catalog._errors import CatalogError
from cmb.catalog._load import Catalog, TaskEntry
from cmb.models import Kind

KINDS = tuple(k for k in Kind if k is not Kind.WORKFLOW)  # the single-task kinds, in the enum's order
SHORT = {Kind.INPUT_PREPARATION: "IP", Kind.OUTPUT_ANALYSIS: "OA", Kind.RUN_AND_ANALYZE: "RA"}


def _n_checks(entry: TaskEntry) -> int | None:
    try:
        return len(entry.grader().checks)
    except CatalogError:
        return None


def suite_rows(catalog: Catalog) -> list[dict[str, Any]]:
    """id, study, kind, codes, n_checks, has_reduced and the study step of every task and workflow."""
    rows = []
    for e in catalog.entries.values():
        study = catalog.studies.get(e.spec.study)
        step = study.spec.step_of(e.id) if study is not None else None
        rows.append(
            {
                "id": e.id,
                "study": e.spec.study,
                "kind": e.spec.kind.value,
                "codes": list(e.spec.codes),
                "n_checks": _n_checks(e),
                "has_reduced": e.has_reduced,
                "step": None if step is None else step.id,
            }
        )
    return rows


def _study_rows(catalog: Catalog, rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| study | follows | material | steps | single tasks | workflows | codes | checks |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for study_id in sorted({r["study"] for r in rows}):
        mine = [r for r in rows if r["study"] == study_id]
        study = catalog.studies.get(study_id)
        cite = study.spec.follows.short() if study else "–"
        material = study.spec.material if study else "–"
        steps = f"{sum(s.selected for s in study.spec.steps)}/{len(study.spec.steps)}" if study else "–"
        kinds = Counter(r["kind"] for r in mine)
        singles = " + ".join(f"{kinds[k]} {SHORT[k]}" for k in KINDS if kinds[k])
        codes = ", ".join(sorted({c for r in mine for c in r["codes"]}))
        checks = sum(r["n_checks"] or 0 for r in mine)
        workflows = kinds[Kind.WORKFLOW]
        lines.append(f"| {study_id} | {cite} | {material} | {steps} | {singles} | {workflows} | {codes} | {checks} |")
    return lines


def _task_rows(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| study | task | step | kind | codes | checks | reduced prompt |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    previous = None
    for r in sorted(rows, key=lambda r: (r["study"], r["kind"] == Kind.WORKFLOW, r["id"])):
        study = r["study"] if r["study"] != previous else ""
        previous = r["study"]
        reduced = "differs" if r["has_reduced"] else "same"
        step = r["step"] or "–"
        line = (
            f"| {study} | `{r['id']}` | {step} | {r['kind']} | {', '.join(r['codes'])} | {r['n_checks']} | {reduced} |"
        )
        lines.append(line)
    return lines


def summary_line(rows: list[dict[str, Any]]) -> str:
    """The counts: single tasks by kind, workflows, studies, codes, and how many reduced prompts differ."""
    singles = [r for r in rows if r["kind"] != Kind.WORKFLOW]
    kinds = Counter(r["kind"] for r in singles)
    per_kind = ", ".join(f"{kinds[k]} {k}" for k in KINDS)
    codes = len({c for r in rows for c in r["codes"]})
    reduced = sum(r["has_reduced"] for r in singles)
    workflows = len(rows) - len(singles)
    studies = len({r["study"] for r in rows})
    return (
        f"{len(singles)} single tasks ({per_kind}) and {workflows} workflows in {studies} studies, "
        f"using {codes} codes; {reduced} single tasks have a reduced prompt that differs."
    )


def suite_markdown(catalog: Catalog) -> str:
    """The README's tables: the studies (citation, material, graph, tasks), then every task, then the counts."""
    rows = suite_rows(catalog)
    return "\n".join([*_study_rows(catalog, rows), "", *_task_rows(rows), "", summary_line(rows)])
