"""Versioned pydantic models at every boundary of cmb."""

from cmb.models._base import SCHEMA_VERSION, CmbModel
from cmb.models._gateway import GatewayAccess
from cmb.models._grader import Category, Check, GraderSpec, PartialCredit, Target, Tolerance
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
from cmb.models._run import FailureClass, PhaseTimings, RunKey, RunRecord, SweepSpec, Usage
from cmb.models._study import Citation, Cost, Precomputed, ReproductionCost, Step, StudySpec
from cmb.models._task import DEFAULT_PROFILES, Condition, GivenInput, Kind, ResourceProfile, TaskSpec, WorkflowSpec

__all__ = [
    "DEFAULT_PROFILES",
    "SCHEMA_VERSION",
    "Category",
    "Check",
    "CheckResult",
    "Citation",
    "CmbModel",
    "Condition",
    "Cost",
    "Expect",
    "FailureClass",
    "FairnessCase",
    "FairnessSpec",
    "GatewayAccess",
    "GivenInput",
    "GradeReport",
    "GraderSpec",
    "Kind",
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
    "WorkflowSpec",
]
