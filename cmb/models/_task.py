"""Tasks, workflows, conditions and resource profiles."""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import Field, field_validator, model_validator

from cmb.models._base import SCHEMA_VERSION, CmbModel

TASK_ID = re.compile(r"^[a-z0-9][a-z0-9-]{1,62}$")


class Kind(StrEnum):
    """What the agent does in a task."""

    INPUT_PREPARATION = "input-preparation"
    OUTPUT_ANALYSIS = "output-analysis"
    RUN_AND_ANALYZE = "run-and-analyze"
    WORKFLOW = "workflow"


class Condition(StrEnum):
    """Single task or workflow, with full or reduced method guidance."""

    SF = "SF"
    SR = "SR"
    WF = "WF"
    WR = "WR"

    @property
    def reduced(self) -> bool:
        """Whether method guidance is removed from the prompt."""
        return self in (Condition.SR, Condition.WR)

    @property
    def workflow(self) -> bool:
        """Whether the condition applies to workflows."""
        return self in (Condition.WF, Condition.WR)


class ResourceProfile(CmbModel):
    """Resources of one attempt's sandbox."""

    name: str = Field(description="Profile name referenced by tasks and sweeps")
    cpus: float = Field(gt=0, description="CPU cores (Kubernetes requests = limits)")
    memory_gib: float = Field(gt=0, description="Memory limit in GiB")
    time_limit_s: int = Field(gt=0, description="Wall-clock limit of the agent in seconds")
    node_exclusive: bool = Field(default=False, description="Whether the attempt gets a whole node")
    pids: int = Field(default=1024, gt=0, description="Process-count limit")
    disk_gib: float = Field(default=20.0, gt=0, description="Writable workspace size in GiB")


DEFAULT_PROFILES: dict[str, ResourceProfile] = {
    "single": ResourceProfile(name="single", cpus=4, memory_gib=16, time_limit_s=3600),
    "workflow": ResourceProfile(
        name="workflow", cpus=16, memory_gib=64, time_limit_s=5 * 3600, node_exclusive=True, pids=4096
    ),
}


class GivenInput(CmbModel):
    """A number a prompt gives on purpose (a parameter the agent must use).

    The leakage scan flags any prompt number within a check's tolerance of that check's reference; such a number
    is accepted only when declared here, with the reason.
    """

    value: float = Field(description="The number as the prompt writes it")
    unit: str | None = Field(default=None, description="Its unit")
    reason: str = Field(
        min_length=10, description="Why the agent must be given it, and why it does not give the answer away"
    )


def _check_id(value: str) -> str:
    if not TASK_ID.match(value):
        raise ValueError(f"{value!r} is not a valid id (lowercase letters, digits and '-', 2-63 chars)")
    return value


def _check_relative(paths: list[str]) -> list[str]:
    for p in paths:
        if p.startswith("/") or ".." in p.split("/") or not p:
            raise ValueError(f"{p!r} must be a relative path inside the task folder")
    return paths


class VerifierSpec(CmbModel):
    """A command run in the sandbox after the agent has stopped, whose outputs are the task's answer files.

    A task brought from another format (a Harbor task's tests) is judged this way: the runner empties
    VERIFIER_DIR in the working folder, copies references/<task>/verifier/ into its tests/ folder, runs the
    command from the working folder and grades what it wrote. cmb's own tasks grade the agent's files directly.
    """

    command: str = Field(min_length=1, description="Shell command, run with bash from the working folder")
    timeout_s: int = Field(default=600, gt=0, description="Wall-clock limit of the verifier in seconds")
    env: dict[str, str] = Field(default_factory=dict, description="Environment variables of the verifier")


VERIFIER_DIR = ".verifier"  # in the working folder: tests/ (the verifier's files) and logs/ (what it writes)
VERIFIER_FILES = "verifier"  # references/<task>/verifier/: what the verifier runs (a Harbor task's tests/)


class TaskSpec(CmbModel):
    """`tasks/<study>/<task>/task.yaml`: one research step turned into something an agent does."""

    version: int = Field(default=SCHEMA_VERSION, description="Schema version of this file")
    id: str = Field(description="Unique task id")
    study: str = Field(description="Study the task belongs to")
    kind: Kind = Field(description="input-preparation, output-analysis or run-and-analyze")
    codes: list[str] = Field(min_length=1, description="Scientific codes involved (vasp, qe, lammps, python ...)")
    title: str = Field(min_length=3, description="One-line title")
    resources: str = Field(default="single", description="Resource profile name")
    time_limit_s: int | None = Field(default=None, gt=0, description="Overrides the profile's time limit")
    answer_files: list[str] = Field(min_length=1, description="Files the agent must leave in its output folder")
    workspace: list[str] = Field(default_factory=list, description="Files under workspace/ staged for the agent")
    required_codes: list[str] = Field(
        default_factory=list, description="Executables the audit expects the agent to have invoked"
    )
    given: list[GivenInput] = Field(
        default_factory=list, description="Numbers the prompts give on purpose although a check's reference is near"
    )
    image: str | None = Field(
        default=None, description="Sandbox image the task needs (a Harbor task's environment); default: the run's"
    )
    verifier: VerifierSpec | None = Field(
        default=None, description="A command run in the sandbox after the agent, writing the answer files"
    )

    _id = field_validator("id", "study")(_check_id)
    _rel = field_validator("answer_files", "workspace")(_check_relative)

    @model_validator(mode="after")
    def _not_workflow(self) -> TaskSpec:
        if self.kind is Kind.WORKFLOW:
            raise ValueError("kind 'workflow' belongs in workflow.yaml, not task.yaml")
        return self


class WorkflowSpec(CmbModel):
    """`tasks/<study>/<workflow>/workflow.yaml`: the dependent steps of one study chained."""

    version: int = Field(default=SCHEMA_VERSION, description="Schema version of this file")
    id: str = Field(description="Unique workflow id")
    study: str = Field(description="Study the workflow chains")
    kind: Kind = Field(default=Kind.WORKFLOW, description="Always 'workflow'")
    codes: list[str] = Field(min_length=1, description="Scientific codes involved")
    title: str = Field(min_length=3, description="One-line title")
    steps: list[str] = Field(min_length=2, description="Task ids chained, in order")
    resources: str = Field(default="workflow", description="Resource profile name")
    time_limit_s: int | None = Field(default=None, gt=0, description="Overrides the profile's time limit")
    answer_files: list[str] = Field(min_length=1, description="Files the agent must leave in its output folder")
    workspace: list[str] = Field(default_factory=list, description="Files under workspace/ staged for the agent")
    required_codes: list[str] = Field(default_factory=list, description="Executables the audit expects")
    given: list[GivenInput] = Field(
        default_factory=list, description="Numbers the prompts give on purpose although a check's reference is near"
    )

    _id = field_validator("id", "study")(_check_id)
    _rel = field_validator("answer_files", "workspace")(_check_relative)

    @model_validator(mode="after")
    def _is_workflow(self) -> WorkflowSpec:
        if self.kind is not Kind.WORKFLOW:
            raise ValueError("a workflow's kind must be 'workflow'")
        return self
