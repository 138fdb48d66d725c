"""Attempts, their records, and sweeps."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from enum import StrEnum

from pydantic import Field, field_validator, model_validator

from cmb.models._base import SCHEMA_VERSION, CmbModel
from cmb.models._report import GradeReport
from cmb.models._task import Condition, ResourceProfile

_KEY_PART_FORBIDDEN = set("/\\\0") | {" "}


class FailureClass(StrEnum):
    """Why an attempt did not pass. Infrastructure failures are never counted as the agent's."""

    INFRASTRUCTURE = "infrastructure"
    TIME_LIMIT = "time-limit"
    FORMAT = "operational/format"
    SOFTWARE = "operational/software"
    SCIENTIFIC = "scientific"


class RunKey(CmbModel):
    """Deterministic identity of one attempt: sweep/agent/task/condition/trial."""

    sweep: str = Field(description="Sweep id")
    agent: str = Field(description="Agent name (with model, e.g. codeact@gpt-x)")
    task: str = Field(description="Task or workflow id")
    condition: Condition = Field(description="SF, SR, WF or WR")
    trial: int = Field(ge=0, description="Repeat index")

    @field_validator("sweep", "agent", "task")
    @classmethod
    def _safe(cls, v: str) -> str:
        if not v or set(v) & _KEY_PART_FORBIDDEN:
            raise ValueError(f"{v!r} may not be empty or contain '/', '\\', spaces or NUL")
        return v

    def __str__(self) -> str:
        return f"{self.sweep}/{self.agent}/{self.task}/{self.condition.value}/{self.trial}"

    @classmethod
    def parse(cls, text: str) -> RunKey:
        """Inverse of str()."""
        parts = text.split("/")
        if len(parts) != 5:
            raise ValueError(f"run key {text!r} must have 5 parts sweep/agent/task/condition/trial")
        sweep, agent, task, cond, trial = parts
        return cls(sweep=sweep, agent=agent, task=task, condition=Condition(cond), trial=int(trial))

    @property
    def slug(self) -> str:
        """A name usable for containers and Kubernetes objects (lowercase, <= 63 chars, deterministic)."""
        digest = hashlib.sha256(str(self).encode()).hexdigest()[:10]
        base = f"cmb-{self.task}-{self.condition.value.lower()}-{self.trial}"[:50].rstrip("-")
        return f"{base}-{digest}"


class PhaseTimings(CmbModel):
    """Seconds spent in each phase of an attempt."""

    queue: float = 0.0
    setup: float = 0.0
    agent: float = 0.0
    collect: float = 0.0
    grade: float = 0.0


class Usage(CmbModel):
    """Model usage of one attempt, as metered by the gateway."""

    model: str | None = None
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    model_cost_usd: float | None = Field(default=None, description="None when the model is unpriced")
    price_table: str | None = Field(default=None, description="Version of the price table used")


class RunRecord(CmbModel):
    """Everything known about one finished attempt."""

    version: int = SCHEMA_VERSION
    key: RunKey
    study: str
    kind: str
    started_at: datetime
    finished_at: datetime
    exit_reason: str = Field(description="completed, time-limit, error, infrastructure ...")
    retries: int = Field(default=0, ge=0, description="Infrastructure retries before this record")
    timings: PhaseTimings = Field(default_factory=PhaseTimings)
    usage: Usage = Field(default_factory=Usage)
    compute_cost_usd: float | None = None
    resources: ResourceProfile
    grade: GradeReport | None = Field(default=None, description="None when the attempt never reached grading")
    audit_passed: bool = Field(default=True, description="A failed audit voids the gated score")
    audit_messages: list[str] = Field(default_factory=list)
    raw_score: float = Field(ge=0, le=1)
    gated_score: float = Field(ge=0, le=1)
    passed: bool
    failure_class: FailureClass | None = None
    task_hash: str
    grader_hash: str
    harness_version: str

    @model_validator(mode="after")
    def _consistent(self) -> RunRecord:
        if self.passed and self.failure_class is not None:
            raise ValueError("a passed attempt has no failure class")
        if self.finished_at < self.started_at:
            raise ValueError("finished_at precedes started_at")
        return self


class SweepSpec(CmbModel):
    """agents x tasks x conditions x trials, with resources per condition."""

    version: int = SCHEMA_VERSION
    name: str = Field(description="Sweep name (MLflow experiment)")
    agents: list[str] = Field(min_length=1)
    tasks: list[str] = Field(default_factory=lambda: ["all"], description="'all', ids, or study:NAME")
    conditions: list[Condition] = Field(default_factory=lambda: [Condition.SF])
    trials: int = Field(default=1, ge=1)
    backend: str = Field(default="auto")
    profiles: dict[str, ResourceProfile] = Field(default_factory=dict, description="Overrides by profile name")
    max_concurrency: int = Field(default=2, ge=1)
    max_retries: int = Field(default=2, ge=0, description="Infrastructure retries per attempt")

    def spec_hash(self) -> str:
        """Hash of everything that changes which attempts exist or how they run."""
        payload = self.model_dump(mode="json", exclude={"max_concurrency"})
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]
