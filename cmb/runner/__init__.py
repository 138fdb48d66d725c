"""One attempt's lifecycle: stage, sandbox, supervised agent, collect, audit, grade, RunRecord."""

from cmb.runner._artifacts import artifacts_path, write_atomic
from cmb.runner._attempt import RunOptions, fetch_into, resolve_profile, run_attempt, time_notice
from cmb.runner._audit import AuditInput, AuditReport, NetworkProbe, audit
from cmb.runner._codelog import (
    CodeCall,
    CodeInfo,
    CodeTable,
    KeyRing,
    LogVerdict,
    SegmentHead,
    code_table,
    verify_log,
)
from cmb.runner._usage import usage_from_report

__all__ = [
    "AuditInput",
    "AuditReport",
    "CodeCall",
    "CodeInfo",
    "CodeTable",
    "KeyRing",
    "LogVerdict",
    "NetworkProbe",
    "RunOptions",
    "SegmentHead",
    "artifacts_path",
    "audit",
    "code_table",
    "fetch_into",
    "resolve_profile",
    "run_attempt",
    "time_notice",
    "usage_from_report",
    "verify_log",
    "write_atomic",
]
