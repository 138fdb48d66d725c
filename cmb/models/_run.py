"""Attempts, their records, and sweeps."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator, model_validator

from cmb.models._base import SCHEMA_VERSION, CmbModel
from cmb.models._compute import ComputeUsage
from cmb.models._report import GradeReport
from cmb.models._task import DEFAULT_PROFILES, Condition, Kind, ResourceProfile

_KEY_PART_FORBIDDEN = set("/\\\0") | {" "}

# 2: typed exit reason, kind and audit flags (version 1 records are upgraded on read)
RUN_RECORD_VERSION = 2


class FailureClass(StrEnum):
    """Why an attempt did not pass. Infrastructure failures are never counted as the agent's."""

    INFRASTRUCTURE = "infrastructure"
    TIME_LIMIT = "time-limit"
    FORMAT = "operational/format"
    SOFTWARE = "operational/software"
    SCIENTIFIC = "scientific"


class ExitReason(StrEnum):
    """How an attempt ended, as the runner decides it (the failure class says whose fault it was)."""

    COMPLETED = "completed"  # the agent's program exited 0
    AGENT_ERROR = "agent-error"  # it exited non-zero, or never ran
    TIME_LIMIT = "time-limit"  # stopped at the time limit
    MEMORY_LIMIT = "memory-limit"  # killed for memory
    DISK_LIMIT = "disk-limit"  # killed for filling its workspace
    AUDIT_FAILED = "audit-failed"  # graded as passing, but the execution record does not support the pass
    INFRASTRUCTURE = "infrastructure"  # the sandbox or the harness failed
    GRADER_ERROR = "grader-error"  # the grader or its reference is broken
    SANDBOX_NOT_ISOLATED = "sandbox-not-isolated"  # the sandbox reached a network it must not
    UPSTREAM_FAILED = "upstream-failed"  # the model provider failed the agent after every gateway retry


class AuditFlags(CmbModel):
    """The execution audit's verdicts; the audit passes only when every one holds."""

    log_intact: bool = Field(description="The signed code-invocation log verifies, no segment missing")
    code_invoked: bool = Field(description="Every required code has a successful recorded call")
    job_done: bool = Field(description="Those calls, and their output files, carry the code's completion marker")
    wallclock_ok: bool = Field(description="Each call took at least the code's floor, inside its command")
    network_isolated: bool = Field(description="The sandbox reached nothing but the gateway")

    @property
    def passed(self) -> bool:
        """Whether every flag holds."""
        return all(self.model_dump().values())


def upgrade_run_record(data: dict[str, Any]) -> dict[str, Any]:
    """A version 1 record (exit reason as free text, audit flags as a dict) in the current shape.

    Version 1 wrote `{}` for an attempt that never reached the audit, and every flag otherwise. An exit reason
    outside ExitReason (version 1 did not enforce one) becomes `infrastructure` on an infrastructure record and
    `agent-error` on any other.
    """
    data = {**data, "version": RUN_RECORD_VERSION}
    flags = data.get("audit_flags")
    if isinstance(flags, dict):
        data["audit_flags"] = {name: bool(flags.get(name)) for name in AuditFlags.model_fields} if flags else None
    reason = data.get("exit_reason")
    if reason not in {r.value for r in ExitReason}:
        infrastructure = data.get("failure_class") == FailureClass.INFRASTRUCTURE.value
        data["exit_reason"] = ExitReason.INFRASTRUCTURE if infrastructure else ExitReason.AGENT_ERROR
    return data


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
    source: str | None = Field(
        default=None,
        description="'gateway' (metered), 'agent-report' (the program's own token counts), 'no-model' (an agent "
        "that calls no model: $0), None",
    )
    upstream_failures: int = Field(
        default=0, ge=0, description="Model requests the provider failed after every gateway retry (the harness's)"
    )


class RunRecord(CmbModel):
    """Everything known about one finished attempt."""

    version: int = RUN_RECORD_VERSION
    key: RunKey
    study: str
    kind: Kind
    started_at: datetime
    finished_at: datetime
    exit_reason: ExitReason = Field(description="How the attempt ended")
    retries: int = Field(default=0, ge=0, description="Infrastructure retries before this record")
    timings: PhaseTimings = Field(default_factory=PhaseTimings)
    usage: Usage = Field(default_factory=Usage)
    compute_cost_usd: float | None = Field(
        default=None, description="Compute cost at `compute.price_sheet` (OpenCost's rule); None: not priced"
    )
    compute: ComputeUsage = Field(default_factory=ComputeUsage, description="What the sandbox used and held")
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
    # added with the attempt runner; defaults keep older records loadable
    backend: str | None = Field(default=None, description="Sandbox backend the attempt ran on")
    sandbox_warnings: list[str] = Field(default_factory=list, description="Degraded isolation, skipped files ...")
    audit_flags: AuditFlags | None = Field(default=None, description="None when the attempt never reached the audit")
    agent_exit_code: int | None = Field(default=None, description="Exit status of the agent program")
    agent_seconds: float | None = Field(default=None, ge=0, description="Wall-clock seconds of the agent phase")
    agent_steps: int | None = Field(default=None, description="Steps the agent reported or replayed")
    agent_reported_usage: dict[str, Any] | None = Field(
        default=None, description="The agent program's own usage report, as parsed; never trusted for cost"
    )
    code_calls: int = Field(default=0, ge=0, description="Verified calls of wrapped simulation codes")
    submitted_files: list[str] = Field(default_factory=list, description="Answer files collected for grading")
    error: str | None = Field(default=None, description="Infrastructure, grader or adapter error, if any")

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("version", RUN_RECORD_VERSION) < RUN_RECORD_VERSION:
            return upgrade_run_record(data)
        return data

    @model_validator(mode="after")
    def _consistent(self) -> RunRecord:
        if self.passed and self.failure_class is not None:
            raise ValueError("a passed attempt has no failure class")
        if self.finished_at < self.started_at:
            raise ValueError("finished_at precedes started_at")
        return self


SWEEP_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")

# Fields that change neither which attempts exist nor how one runs: a resumed sweep may change them freely.
_HASH_EXCLUDED = frozenset({"max_concurrency", "concurrency", "slot_weights", "retry_backoff_s", "launcher_resources"})


class SweepSpec(CmbModel):
    """agents x tasks x conditions x trials, with resources per condition."""

    version: int = SCHEMA_VERSION
    name: str = Field(description="Sweep name (MLflow experiment, results partition)")
    agents: list[str] = Field(min_length=1)
    tasks: list[str] = Field(default_factory=lambda: ["all"], description="'all', ids, or study:NAME")
    conditions: list[Condition] = Field(default_factory=lambda: [Condition.SF])
    trials: int = Field(default=1, ge=1)
    backend: str = Field(default="auto")
    profiles: dict[str, ResourceProfile] = Field(default_factory=dict, description="Overrides by profile name")
    condition_profiles: dict[Condition, str] = Field(
        default_factory=dict,
        description="Profile name per condition; a condition not listed uses its task's own profile "
        "(tasks default to 'single', workflows to 'workflow')",
    )
    max_concurrency: int = Field(default=2, ge=1, description="Attempts running at once, all profiles together")
    concurrency: dict[str, int] = Field(
        default_factory=dict, description="Slots per profile name (default: max_concurrency); backpressure per profile"
    )
    slot_weights: dict[str, int] = Field(
        default_factory=dict,
        description="Slots of max_concurrency one attempt of a profile takes (default 1); on one shared node pool, "
        "weigh a node-exclusive profile by the single-task attempts a node holds",
    )
    max_retries: int = Field(default=2, ge=0, description="Infrastructure retries per attempt")
    retry_backoff_s: float = Field(default=2.0, ge=0, description="First retry delay in s, doubled per retry")
    launcher_resources: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="Ray resources a launcher of a profile requests (e.g. {'workflow': {'cmb-workflow-node': 1}}), "
        "so Ray places and autoscales launchers per profile",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not SWEEP_NAME.match(v):
            raise ValueError(f"sweep name {v!r} must be letters, digits, '.', '_' or '-' (at most 100)")
        return v

    @field_validator("concurrency")
    @classmethod
    def _slots(cls, v: dict[str, int]) -> dict[str, int]:
        for name, n in v.items():
            if n < 1:
                raise ValueError(f"concurrency of profile {name!r} must be at least 1")
        return v

    def spec_hash(self) -> str:
        """Hash of everything that changes which attempts exist or how they run."""
        payload = self.model_dump(mode="json", exclude=set(_HASH_EXCLUDED))
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]

    def profile(self, name: str) -> ResourceProfile:
        """A profile by name: the sweep's override, else the built-in default."""
        if name in self.profiles:
            return self.profiles[name]
        try:
            return DEFAULT_PROFILES[name]
        except KeyError:
            known = sorted({*DEFAULT_PROFILES, *self.profiles})
            raise KeyError(f"unknown resource profile {name!r}; known: {known}") from None

    def profile_name(self, condition: Condition, task_profile: str) -> str:
        """The profile an attempt under `condition` of a task whose own profile is `task_profile` runs with."""
        return self.condition_profiles.get(condition, task_profile)

    def slots(self, profile_name: str) -> int:
        """Attempts of one profile allowed to run at once."""
        return min(self.concurrency.get(profile_name, self.max_concurrency), self.max_concurrency)
