"""cmb tasks in Inspect AI (extra `inspect`): every task and condition as an Inspect Task graded by cmb's grader.

From the command line (Inspect loads this file, so it holds the registered task itself):

    inspect eval cmb/integrations/inspect.py@cmb_task -T task=si-pw-scf-inputs -T condition=SR --model openai/...
    inspect eval cmb/integrations/inspect.py@cmb_task -T task=si-eos-analysis -T oracle=true --model mockllm/model

From Python: `build_task(...)` for one task, `suite_tasks(...)` for a selection, `cmb_oracle()` as a solver.
The `local` sandbox (the default) enforces no limits and isolates nothing; `sandbox=docker` runs the cmb agent
image under the task's resource profile, offline. See `cmb.integrations._inspect` for what is and is not carried
over from a cmb attempt.
"""

from __future__ import annotations

from inspect_ai import Task, task

from cmb.integrations._inspect import (
    SANDBOXES,
    build_sample,
    build_task,
    catalog,
    cmb_agent,
    cmb_oracle,
    cmb_scorer,
    collect_answers,
    compose_config,
    compose_yaml,
    pass_rate,
    profile_of,
    report_score,
    sample_files,
    sandbox_for,
    suite_tasks,
)
from cmb.settings import DEFAULT_IMAGE

__all__ = [
    "SANDBOXES",
    "build_sample",
    "build_task",
    "catalog",
    "cmb_agent",
    "cmb_oracle",
    "cmb_scorer",
    "cmb_task",
    "collect_answers",
    "compose_config",
    "compose_yaml",
    "pass_rate",
    "profile_of",
    "report_score",
    "sample_files",
    "sandbox_for",
    "suite_tasks",
]


@task
def cmb_task(
    task: str, condition: str | None = None, sandbox: str = "local", oracle: bool = False, image: str = DEFAULT_IMAGE
) -> Task:
    """One cmb task under one condition (SF/SR for a task, WF/WR for a workflow; default SF/WF), graded by cmb.

    `oracle=true` runs the task's trusted solution instead of an agent (a check of the wiring, not a baseline).
    """
    return build_task(task, condition, sandbox, solver=cmb_oracle() if oracle else None, image=image)
