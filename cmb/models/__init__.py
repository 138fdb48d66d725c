"""Versioned pydantic models at every boundary of cmb."""

from cmb.models._base import SCHEMA_VERSION, CmbModel
from cmb.models._compute import ComputePriceSheet, ComputeUsage, NodeType
from cmb.models._gateway import GatewayAccess
from cmb.models._grader import Category, Check, GraderSpec, PartialCredit, Target, Tolerance
from cmb.models._launch import ATTEMPT_OPTIONS_VERSION, AgentRef, AttemptOptions, GatewayEndpoint, model_key_form
from cmb.models._quality import (
    Expect,
    FairnessCase,
    FairnessSpec,
    RecallFile,
    RecallSpec,
    RecallValue,
    TextEdit,
)
from cmb.models._reference import Reference, ReferenceValue
from cmb.models._report import CheckResult, GradeReport
from cmb.models._run import (
    RUN_RECORD_VERSION,
    AuditFlags,
    ExitReason,
    FailureClass,
    PhaseTimings,
    RunKey,
    RunRecord,
    SweepSpec,
    Usage,
    upgrade_run_record,
)
from cmb.models._study import Citation, Cost, Precomputed, ReproductionCost, Step, StudySpec
from cmb.models._task import (
    DEFAULT_PROFILES,
    VERIFIER_DIR,
    Condition,
    GivenInput,
    Kind,
    ResourceProfile,
    TaskSpec,
    VerifierSpec,
    WorkflowSpec,
)

__all__ = [
    "ATTEMPT_OPTIONS_VERSION",
    "DEFAULT_PROFILES",
    "RUN_RECORD_VERSION",
    "SCHEMA_VERSION",
    "VERIFIER_DIR",
    "AgentRef",
    "AttemptOptions",
    "AuditFlags",
    "Category",
    "Check",
    "CheckResult",
    "Citation",
    "CmbModel",
    "ComputePriceSheet",
    "ComputeUsage",
    "Condition",
    "Cost",
    "ExitReason",
    "Expect",
    "FailureClass",
    "FairnessCase",
    "FairnessSpec",
    "GatewayAccess",
    "GatewayEndpoint",
    "GivenInput",
    "GradeReport",
    "GraderSpec",
    "Kind",
    "NodeType",
    "PartialCredit",
    "PhaseTimings",
    "Precomputed",
    "RecallFile",
    "RecallSpec",
    "RecallValue",
    "Reference",
    "ReproductionCost",
    "ReferenceValue",
    "ResourceProfile",
    "RunKey",
    "RunRecord",
    "Step",
    "StudySpec",
    "SweepSpec",
    "Target",
    "TaskSpec",
    "TextEdit",
    "Tolerance",
    "Usage",
    "VerifierSpec",
    "WorkflowSpec",
    "model_key_form",
    "upgrade_run_record",
]
