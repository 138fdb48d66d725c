"""Studies: one research story on one material, following a published study, with its DAG of research steps."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, field_validator, model_validator

from cmb.models._base import SCHEMA_VERSION, CmbModel
from cmb.models._task import _check_id


class Citation(CmbModel):
    """The published study a cmb study follows."""

    authors: str = Field(min_length=2, description="Authors as cited, e.g. 'Kim, Lee and Park' or 'Kim et al.'")
    title: str | None = Field(default=None, description="Title of the article, where known")
    journal: str = Field(min_length=3, description="Journal, e.g. 'Phys. Rev. B'")
    year: int = Field(ge=1900, le=2100, description="Year of publication")
    month: int | None = Field(default=None, ge=1, le=12, description="Month of publication, where known")
    volume: str | None = Field(default=None, description="Volume and article number or pages, where known")
    doi: str | None = Field(default=None, description="DOI, where known")

    @field_validator("doi")
    @classmethod
    def _doi(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith("10."):
            raise ValueError(f"{value!r} is not a DOI (10.xxxx/...)")
        return value

    def short(self) -> str:
        """'Kim et al., Phys. Rev. B (2026)'."""
        return f"{self.authors}, {self.journal} ({self.year})"


class Cost(StrEnum):
    """Whether a step needs HPC-class resources (run once, in advance) or runs within minutes on one machine."""

    HEAVY = "heavy"
    LIGHT = "light"


class Precomputed(CmbModel):
    """How the project ran an expensive step once: the reproduction that made the staged outputs.

    Its measured cost is in `references/<reproduce>/reproduce/cost.yaml` (a ReproductionCost).
    """

    reproduce: str = Field(description="Task id whose references/<id>/reproduce/ ran the step")
    codes: list[str] = Field(min_length=1, description="Codes and versions the reproduction ran")


class ReproductionCost(CmbModel):
    """`references/<task>/reproduce/cost.yaml`: what running the expensive step once cost, as measured."""

    version: int = Field(default=SCHEMA_VERSION, description="Schema version of this file")
    core_minutes: float = Field(gt=0, description="CPU time of the whole reproduction in core-minutes (user+sys)")
    wall_minutes: float = Field(gt=0, description="Wall-clock minutes")
    cores: int = Field(ge=1, description="Cores it ran on")
    machine: str = Field(min_length=3, description="Where it was measured, e.g. '2-core x86_64 VM, Debian 12'")
    measured: str = Field(description="Date of the measurement, YYYY-MM-DD")
    command: str = Field(default="reproduce/reproduce.sh", description="What was timed")
    note: str | None = Field(default=None, description="What dominates the cost; what a full-size study would cost")
    below_floor: str | None = Field(
        default=None,
        min_length=20,
        description="Why a step cheaper than the floor is still precomputed here, and what would bring it above",
    )


class Step(CmbModel):
    """One research step: a calculation that produces a new physical quantity of the study."""

    id: str = Field(description="Step id, unique within the study")
    title: str = Field(min_length=3, description="What the step computes")
    consumes: list[str] = Field(default_factory=list, description="Ids of the upstream steps whose results it uses")
    cost: Cost = Field(description="heavy (precomputed once by the project) or light (the agent runs it)")
    selected: bool = Field(default=True, description="Part of the selected sub-graph the suite's tasks come from")
    tasks: list[str] = Field(default_factory=list, description="Single tasks built from this step")
    precomputed: Precomputed | None = Field(default=None, description="The project's run of a heavy step")
    note: str | None = Field(default=None, description="How the step is reduced here against the published study")

    _id = field_validator("id")(_check_id)


class StudySpec(CmbModel):
    """`tasks/<study>/study.yaml`: one material, one question, the published study it follows, its step DAG."""

    version: int = Field(default=SCHEMA_VERSION, description="Schema version of this file")
    id: str = Field(description="Study id, the folder name under tasks/")
    title: str = Field(min_length=3, description="One-line title")
    material: str = Field(min_length=2, description="The one material (or material system) studied")
    question: str = Field(min_length=10, description="The research question the steps answer")
    follows: Citation = Field(description="The published study this one follows")
    reduction: str = Field(
        min_length=10, description="What differs from the published study here (cells, settings, codes) and why"
    )
    steps: list[Step] = Field(min_length=1, description="The research steps, the full graph or its relevant part")

    _id = field_validator("id")(_check_id)

    @model_validator(mode="after")
    def _graph(self) -> StudySpec:
        ids = [s.id for s in self.steps]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"duplicate step ids {dup}")
        known = set(ids)
        by_id = {s.id: s for s in self.steps}
        for step in self.steps:
            missing = [c for c in step.consumes if c not in known]
            if missing:
                raise ValueError(f"step {step.id!r} consumes unknown steps {missing}")
            if step.selected:
                dropped = [c for c in step.consumes if not by_id[c].selected]
                if dropped:
                    raise ValueError(f"selected step {step.id!r} consumes steps outside the selection: {dropped}")
            if step.tasks and not step.selected:
                raise ValueError(f"step {step.id!r} has tasks but is not selected")
            if step.precomputed is not None and step.cost is not Cost.HEAVY:
                raise ValueError(f"step {step.id!r} is precomputed, so its cost is 'heavy'")
        self.topological_order()  # raises on a cycle
        tasks = [t for s in self.steps for t in s.tasks]
        twice = sorted({t for t in tasks if tasks.count(t) > 1})
        if twice:
            raise ValueError(f"tasks listed under more than one step: {twice}")
        return self

    def step(self, step_id: str) -> Step:
        """A step by id."""
        for s in self.steps:
            if s.id == step_id:
                return s
        raise KeyError(f"study {self.id!r} has no step {step_id!r}")

    def step_of(self, task_id: str) -> Step | None:
        """The step a task is built from."""
        return next((s for s in self.steps if task_id in s.tasks), None)

    def topological_order(self) -> list[str]:
        """Step ids with every step after the steps it consumes (file order among independent steps)."""
        deps = {s.id: list(s.consumes) for s in self.steps}
        order: list[str] = []
        state: dict[str, int] = {}  # 1 = on the current path, 2 = done

        def visit(node: str, path: tuple[str, ...]) -> None:
            if state.get(node) == 2:
                return
            if state.get(node) == 1:
                raise ValueError(f"the step graph has a cycle: {' -> '.join((*path, node))}")
            state[node] = 1
            for dep in deps[node]:
                visit(dep, (*path, node))
            state[node] = 2
            order.append(node)

        for s in self.steps:
            visit(s.id, ())
        return order

    def upstream(self, step_id: str) -> set[str]:
        """Every step `step_id` depends on, directly or not."""
        seen: set[str] = set()
        todo = list(self.step(step_id).consumes)
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(self.step(node).consumes)
        return seen
