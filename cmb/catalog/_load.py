"""Load tasks/, graders/ and references/ from disk into a Catalog."""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cmb.catalog._errors import CatalogError, Problem
from cmb.catalog._yaml import load_model
from cmb.models import (
    DEFAULT_PROFILES,
    Condition,
    FairnessSpec,
    GraderSpec,
    Kind,
    RecallSpec,
    Reference,
    ResourceProfile,
    StudySpec,
    TaskSpec,
    WorkflowSpec,
)

TASK_FILE = "task.yaml"
WORKFLOW_FILE = "workflow.yaml"
STUDY_FILE = "study.yaml"
FULL_PROMPT = "prompt.full.md"
REDUCED_PROMPT = "prompt.reduced.md"
REFERENCE_FILE = "reference.yaml"
RECALL_FILE = "recall.yaml"
FAIRNESS_FILE = "fairness.yaml"
QC_FILE = "QC.md"


@dataclass(frozen=True)
class TaskEntry:
    """One task or workflow on disk."""

    spec: TaskSpec | WorkflowSpec
    dir: Path
    root: Path

    @property
    def id(self) -> str:
        """The task id."""
        return self.spec.id

    @property
    def is_workflow(self) -> bool:
        """Whether this entry is a workflow."""
        return self.spec.kind is Kind.WORKFLOW

    @property
    def has_reduced(self) -> bool:
        """Whether a distinct reduced-guidance prompt exists."""
        return (self.dir / REDUCED_PROMPT).is_file()

    @property
    def grader_path(self) -> Path:
        """graders/<id>.yaml."""
        return self.root / "graders" / f"{self.id}.yaml"

    @property
    def reference_dir(self) -> Path:
        """references/<id>/."""
        return self.root / "references" / self.id

    @property
    def workspace_dir(self) -> Path:
        """tasks/<study>/<id>/workspace/."""
        return self.dir / "workspace"

    def conditions(self) -> list[Condition]:
        """Conditions this entry runs under."""
        return [Condition.WF, Condition.WR] if self.is_workflow else [Condition.SF, Condition.SR]

    def profile(self) -> ResourceProfile:
        """The task's resource profile (a built-in one), with the task's own time limit where it sets one."""
        profile = DEFAULT_PROFILES[self.spec.resources]
        if self.spec.time_limit_s is not None:
            profile = profile.model_copy(update={"time_limit_s": self.spec.time_limit_s})
        return profile

    def prompt_path(self, condition: Condition) -> Path:
        """The prompt file for a condition (reduced falls back to full when identical)."""
        if condition.workflow != self.is_workflow:
            kind = "workflow" if self.is_workflow else "single task"
            raise ValueError(f"{self.id} is a {kind}; condition {condition.value} does not apply")
        if condition.reduced and self.has_reduced:
            return self.dir / REDUCED_PROMPT
        return self.dir / FULL_PROMPT

    def prompt(self, condition: Condition) -> str:
        """The prompt text for a condition."""
        return self.prompt_path(condition).read_text(encoding="utf-8")

    def agent_visible_files(self) -> list[Path]:
        """Every file that may enter an agent's sandbox: the spec, the prompts and the staged workspace files."""
        spec_file = self.dir / (WORKFLOW_FILE if self.is_workflow else TASK_FILE)
        files = [spec_file, self.dir / FULL_PROMPT]
        if self.has_reduced:
            files.append(self.dir / REDUCED_PROMPT)
        files += [self.workspace_dir / rel for rel in self.spec.workspace]
        return files

    def task_hash(self) -> str:
        """Content hash of everything the agent sees (prompts, spec, workspace files)."""
        h = hashlib.sha256()
        for path in self.agent_visible_files():
            h.update(str(path.relative_to(self.dir)).encode())
            h.update(path.read_bytes() if path.is_file() else b"<missing>")
        return h.hexdigest()[:16]

    def grader(self) -> GraderSpec:
        """Load this entry's grader."""
        return load_model(self.grader_path, GraderSpec)

    def reference(self) -> Reference:
        """Load this entry's reference."""
        return load_model(self.reference_dir / REFERENCE_FILE, Reference)

    def recall(self) -> RecallSpec:
        """Load what the recall baseline submits for this entry."""
        return load_model(self.reference_dir / RECALL_FILE, RecallSpec)

    def fairness(self) -> FairnessSpec:
        """Load this entry's fairness record: alternatives that must pass, errors that must fail."""
        return load_model(self.reference_dir / FAIRNESS_FILE, FairnessSpec)

    def prompts(self) -> dict[Condition, str]:
        """The prompt of each condition the entry runs under."""
        return {c: self.prompt(c) for c in self.conditions()}


@dataclass(frozen=True)
class StudyEntry:
    """One study on disk: tasks/<study>/study.yaml."""

    spec: StudySpec
    dir: Path

    @property
    def id(self) -> str:
        """The study id."""
        return self.spec.id


@dataclass
class Catalog:
    """All tasks and workflows under a suite root. Malformed entries are kept as problems, not dropped silently."""

    root: Path
    entries: dict[str, TaskEntry] = field(default_factory=dict)
    studies: dict[str, StudyEntry] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @classmethod
    def load(cls, root: Path) -> Catalog:
        """Scan tasks/<study>/<id>/{task,workflow}.yaml under root."""
        root = Path(root)
        catalog = cls(root=root)
        tasks_dir = root / "tasks"
        if not tasks_dir.is_dir():
            catalog.problems.append(Problem(tasks_dir, "no tasks/ folder under the suite root"))
            return catalog
        for spec_file in sorted([*tasks_dir.glob(f"*/*/{TASK_FILE}"), *tasks_dir.glob(f"*/*/{WORKFLOW_FILE}")]):
            model: type[TaskSpec] | type[WorkflowSpec] = WorkflowSpec if spec_file.name == WORKFLOW_FILE else TaskSpec
            try:
                spec = load_model(spec_file, model)
            except CatalogError as exc:
                catalog.problems.extend(exc.problems)
                continue
            entry = TaskEntry(spec=spec, dir=spec_file.parent, root=root)
            if spec.id in catalog.entries:
                other = catalog.entries[spec.id].dir
                catalog.problems.append(Problem(spec_file, f"task id {spec.id!r} already used by {other}"))
                continue
            catalog.entries[spec.id] = entry
        for study_dir in sorted(p for p in tasks_dir.iterdir() if p.is_dir()):
            study_file = study_dir / STUDY_FILE
            if not study_file.is_file():
                continue  # a study folder without study.yaml is reported by validation
            try:
                study = load_model(study_file, StudySpec)
            except CatalogError as exc:
                catalog.problems.extend(exc.problems)
                continue
            catalog.studies[study.id] = StudyEntry(spec=study, dir=study_dir)
        return catalog

    def study_entries(self, study: str) -> list[TaskEntry]:
        """The tasks and workflows of one study, in catalog order."""
        return [e for e in self.entries.values() if e.spec.study == study]

    def get(self, task_id: str) -> TaskEntry:
        """An entry by id; an unknown id suggests near names."""
        try:
            return self.entries[task_id]
        except KeyError:
            near = difflib.get_close_matches(task_id, list(self.entries), n=3)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise KeyError(f"no task {task_id!r}{hint}") from None

    def select(self, selectors: Iterable[str]) -> list[TaskEntry]:
        """Resolve 'all', task ids and 'study:NAME' selectors, in catalog order, without duplicates."""
        chosen: dict[str, TaskEntry] = {}
        for sel in selectors:
            sel = sel.strip()
            if sel == "all":
                chosen.update(self.entries)
            elif sel.startswith("study:"):
                study = sel.removeprefix("study:")
                matches = {k: e for k, e in self.entries.items() if e.spec.study == study}
                if not matches:
                    raise KeyError(f"no tasks in study {study!r}")
                chosen.update(matches)
            elif sel:
                chosen[sel] = self.get(sel)
        return [e for k, e in self.entries.items() if k in chosen]
