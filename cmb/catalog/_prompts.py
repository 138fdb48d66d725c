"""The reduced-prompt rule: a target that a check enforces is stated in every prompt of the task.

Reduced guidance removes method only. A bound the grader enforces (a k-point density, a cutoff floor, a number of
points) is part of the target, so each check that sets one names the sentences stating it (`states`), and every
prompt of the task must contain them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import BaseModel

from cmb.catalog._errors import Problem
from cmb.catalog._load import TaskEntry
from cmb.grading import REGISTRY, GraderConfigError, validate_params
from cmb.models import Check, Condition, GraderSpec


def normalize(text: str) -> str:
    """Whitespace collapsed, so a sentence matches however the prompt wraps it."""
    return re.sub(r"\s+", " ", text).strip()


def thresholds_set(check: Check) -> list[str]:
    """The threshold params of the check's type that this check sets (to other than their defaults)."""
    try:
        ctype = REGISTRY.get(check.type)
        params: BaseModel = validate_params(check)
    except (KeyError, GraderConfigError):
        return []  # reported by the grader validation
    fields = type(params).model_fields
    return [
        name
        for name in ctype.thresholds
        if getattr(params, name) is not None and getattr(params, name) != fields[name].default
    ]


def unstated_targets(entry: TaskEntry, grader: GraderSpec, prompts: Mapping[Condition, str]) -> list[Problem]:
    """Checks that set a threshold without naming its sentence, and named sentences missing from a prompt."""
    problems: list[Problem] = []
    texts = {c: normalize(p) for c, p in prompts.items()}
    for check in grader.checks:
        where = f"checks[{check.id}]"
        bounds = thresholds_set(check)
        if bounds and not check.states:
            problems.append(
                Problem(
                    entry.grader_path,
                    f"sets {', '.join(bounds)} but names no prompt sentence stating it ('states')",
                    field=where,
                )
            )
        for sentence in check.states:
            for condition, text in texts.items():
                if normalize(sentence) not in text:
                    problems.append(
                        Problem(
                            entry.prompt_path(condition),
                            f"does not state the target of check {check.id!r}: {sentence!r}",
                            field=condition.value,
                        )
                    )
    return problems
