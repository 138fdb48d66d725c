"""One attempt's lifecycle: stage, sandbox, supervised agent, collect, audit, grade, RunRecord; and its launch."""

from cmb.runner._artifacts import artifacts_path, write_atomic
from cmb.runner._attempt import RunOptions, resolve_profile, run_attempt, time_notice
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
from cmb.runner._collect import fetch_into
from cmb.runner._launch import Launch, effective_options, launch, preflight, prepare
from cmb.runner._resolve import (
    LaunchError,
    UnknownNameError,
    agent_keys,
    backend_class,
    check_backend,
    check_check_types,
    find_task,
    parse_condition,
    register_user_agents,
    resolve_agent,
    select_tasks,
)
from cmb.runner._usage import usage_from_report

__all__ = [
    "AuditInput",
    "AuditReport",
    "CodeCall",
    "CodeInfo",
    "CodeTable",
    "KeyRing",
    "Launch",
    "LaunchError",
    "LogVerdict",
    "NetworkProbe",
    "RunOptions",
    "SegmentHead",
    "UnknownNameError",
    "agent_keys",
    "artifacts_path",
    "audit",
    "backend_class",
    "check_backend",
    "check_check_types",
    "code_table",
    "effective_options",
    "fetch_into",
    "find_task",
    "launch",
    "parse_condition",
    "preflight",
    "prepare",
    "register_user_agents",
    "resolve_agent",
    "resolve_profile",
    "run_attempt",
    "select_tasks",
    "time_notice",
    "usage_from_report",
    "verify_log",
    "write_atomic",
]
