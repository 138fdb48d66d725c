"""Studies as research stories: each study folder has a study.yaml whose step graph holds every task of it."""

from __future__ import annotations

from pathlib import Path

from cmb.catalog._errors import CatalogError, Problem
from cmb.catalog._load import STUDY_FILE, Catalog, StudyEntry, TaskEntry
from cmb.catalog._yaml import load_model
from cmb.models import Cost, Kind, ReproductionCost, Step, WorkflowSpec

COST_FILE = "reproduce/cost.yaml"
# A step is precomputed because agents should not repeat it: it must cost at least this much here.
MIN_PRECOMPUTED_CORE_MINUTES = 10.0


def cost_path(root: Path, step: Step) -> Path | None:
    """references/<task>/reproduce/cost.yaml of a precomputed step."""
    return None if step.precomputed is None else root / "references" / step.precomputed.reproduce / COST_FILE


def step_cost(root: Path, step: Step) -> ReproductionCost | None:
    """The measured cost of a precomputed step, if recorded and readable."""
    path = cost_path(root, step)
    if path is None or not path.is_file():
        return None
    try:
        return load_model(path, ReproductionCost)
    except CatalogError:
        return None


def _workflow_problems(study: StudyEntry, wf: TaskEntry, tasks: dict[str, TaskEntry]) -> list[Problem]:
    assert isinstance(wf.spec, WorkflowSpec)
    path = wf.dir / "workflow.yaml"
    problems: list[Problem] = []
    steps = []
    for task_id in wf.spec.steps:
        step = study.spec.step_of(task_id)
        if task_id not in tasks or step is None:
            problems.append(Problem(path, f"chains {task_id!r}, which is not a task of study {study.id!r}"))
            continue
        steps.append(step.id)
    order = study.spec.topological_order()
    if [s for s in order if s in steps] != sorted(set(steps), key=steps.index):
        problems.append(Problem(path, f"chains its steps out of the study's dependency order ({' -> '.join(steps)})"))
    for later in dict.fromkeys(steps[1:]):
        earlier = steps[: steps.index(later)]
        if not (study.spec.upstream(later) & set(earlier)):
            problems.append(Problem(path, f"step {later!r} uses no result of an earlier step of the workflow"))
    return problems


def study_problems(study: StudyEntry, entries: list[TaskEntry]) -> list[Problem]:
    """The study's graph against its tasks: every task in one step, analysis steps precomputed, workflows chained."""
    path = study.dir / STUDY_FILE
    problems: list[Problem] = []
    if study.dir.name != study.id:
        problems.append(Problem(path, f"study id {study.id!r} differs from its folder {study.dir.name!r}"))
    singles = {e.id: e for e in entries if not e.is_workflow}
    listed = {t for s in study.spec.steps for t in s.tasks}
    for task_id in sorted(set(singles) - listed):
        problems.append(Problem(path, f"task {task_id!r} is under no step of the study's graph"))
    for step in study.spec.steps:
        where = f"steps[{step.id}]"
        for task_id in step.tasks:
            entry = singles.get(task_id)
            if entry is None:
                problems.append(
                    Problem(path, f"lists {task_id!r}, which is not a single task of this study", field=where)
                )
                continue
            if entry.spec.kind is Kind.OUTPUT_ANALYSIS and step.precomputed is None:
                problems.append(
                    Problem(
                        path, f"{task_id} analyses this step's outputs, so the step needs 'precomputed'", field=where
                    )
                )
            if entry.spec.kind is Kind.RUN_AND_ANALYZE and step.cost is Cost.HEAVY:
                problems.append(Problem(path, f"{task_id} runs this step itself, so it cannot be heavy", field=where))
        if step.precomputed is not None:
            root = study.dir.parent.parent
            reproduce = root / "references" / step.precomputed.reproduce / "reproduce"
            cost_file = reproduce.parent / COST_FILE
            if not reproduce.is_dir():
                problems.append(Problem(path, f"precomputed by {reproduce}, which does not exist", field=where))
            elif not cost_file.is_file():
                problems.append(Problem(cost_file, "the precomputed step's measured cost is not recorded"))
            else:
                try:
                    cost = load_model(cost_file, ReproductionCost)
                except CatalogError as exc:
                    problems += exc.problems
                else:
                    if cost.core_minutes < MIN_PRECOMPUTED_CORE_MINUTES and cost.below_floor is None:
                        problems.append(
                            Problem(
                                cost_file,
                                f"costs {cost.core_minutes:g} core-minutes: a step this cheap is the agent's to run, "
                                f"not one to precompute (at least {MIN_PRECOMPUTED_CORE_MINUTES:g}), "
                                "unless 'below_floor' says why",
                            )
                        )
    for wf in (e for e in entries if e.is_workflow):
        problems += _workflow_problems(study, wf, singles)
    return problems


def studies_problems(catalog: Catalog, only: set[str] | None = None) -> list[Problem]:
    """Every study folder holding tasks (or those in `only`) has a valid study.yaml that accounts for its tasks."""
    problems: list[Problem] = []
    with_tasks = {e.spec.study for e in catalog.entries.values()}
    for study_id in sorted(with_tasks if only is None else with_tasks & only):
        study = catalog.studies.get(study_id)
        entries = catalog.study_entries(study_id)
        if study is None:
            folder = entries[0].dir.parent
            problems.append(Problem(folder / STUDY_FILE, "no study.yaml: cite the study followed and give its graph"))
            continue
        problems += study_problems(study, entries)
    return problems


def render_study(study: StudyEntry, entries: list[TaskEntry]) -> str:
    """The study as text: citation, reduction, its steps in dependency order with their tasks, its workflows."""
    spec, cite = study.spec, study.spec.follows
    kinds = {e.id: e.spec.kind.value for e in entries}
    lines = [f"study {spec.id}: {spec.title}", f"material: {spec.material}", f"question: {spec.question}"]
    ref = cite.short() + (f", {cite.volume}" if cite.volume else "") + (f", doi:{cite.doi}" if cite.doi else "")
    lines += [f"follows: {ref}" + (f' - "{cite.title}"' if cite.title else ""), f"here: {spec.reduction}", "", "steps:"]
    for step_id in spec.topological_order():
        step = spec.step(step_id)
        tag = step.cost.value
        cost = step_cost(study.dir.parent.parent, step)
        if step.precomputed is not None:
            tag += ", precomputed" + (f": {cost.core_minutes:g} core-min" if cost else "")
            if cost and cost.below_floor:
                tag += " (below the floor: see its cost.yaml)"
        if not step.selected:
            tag += ", not selected"
        uses = f"  <- {', '.join(step.consumes)}" if step.consumes else ""
        lines.append(f"  {step.id} [{tag}] {step.title}{uses}")
        lines += [f"      task {t} ({kinds.get(t, '?')})" for t in step.tasks]
    workflows = [e for e in entries if isinstance(e.spec, WorkflowSpec)]
    if workflows:
        lines += ["", "workflows:"]
        lines += [f"  {w.id}: {' -> '.join(w.spec.steps)}" for w in workflows if isinstance(w.spec, WorkflowSpec)]
    return "\n".join(lines)


def mermaid(study: StudyEntry) -> str:
    """The step graph as a Mermaid flowchart (heavy steps boxed twice, unselected ones dashed)."""
    out = ["flowchart LR"]
    for step in study.spec.steps:
        label = step.title.replace('"', "'")
        shape = f'[["{label}"]]' if step.cost is Cost.HEAVY else f'["{label}"]'
        out.append(f"  {step.id.replace('-', '_')}{shape}")
        if not step.selected:
            out.append(f"  style {step.id.replace('-', '_')} stroke-dasharray: 4 4")
    for step in study.spec.steps:
        out += [f"  {c.replace('-', '_')} --> {step.id.replace('-', '_')}" for c in step.consumes]
    return "\n".join(out)
