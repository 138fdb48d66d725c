"""A sweep's plan: the spec (YAML and flags) resolved against the catalog into ordered attempts. No Ray here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cmb.catalog import Catalog, TaskEntry, load_model
from cmb.models import Condition, ResourceProfile, RunKey, SweepSpec
from cmb.runner import parse_condition, select_tasks

DispatchKey = tuple[int, int, str, str, str]


@dataclass(frozen=True)
class Attempt:
    """One attempt to run: its key, its task, and the resource profile of its condition."""

    key: RunKey
    entry: TaskEntry
    profile: ResourceProfile

    @property
    def id(self) -> str:
        """The attempt key as text."""
        return str(self.key)


def load_spec(path: Path | None, **overrides: Any) -> SweepSpec:
    """A SweepSpec from a YAML file (errors located by line) with command-line overrides applied on top.

    Overrides that are None are ignored, so a flag left unset never replaces a value from the file.
    """
    given = {k: v for k, v in overrides.items() if v is not None}
    if path is None:
        return SweepSpec.model_validate(given)
    spec = load_model(Path(path), SweepSpec)
    if not given:
        return spec
    return SweepSpec.model_validate({**spec.model_dump(mode="json"), **given})


def priority(attempt: Attempt) -> DispatchKey:
    """Dispatch order: longest time limit first, then trial, task, agent and condition.

    Long attempts (workflows) first shortens the makespan; trial by trial gives every task a first result early.
    """
    k = attempt.key
    return dispatch_key(attempt.profile.time_limit_s, k.trial, k.task, k.agent, k.condition.value)


def dispatch_key(
    time_limit_s: int, trial: int, task: str, agent: str, condition: str
) -> tuple[int, int, str, str, str]:
    """The sort key of `priority`, on plain values (the simulator in `_sim` orders by it too)."""
    return (-time_limit_s, trial, task, agent, condition)


def plan(spec: SweepSpec, catalog: Catalog) -> list[Attempt]:
    """Every attempt of the sweep, in dispatch order.

    A condition applies only to entries of its kind (SF/SR to single tasks, WF/WR to workflows); an unknown task
    or study, and a sweep with no attempt at all, are errors.
    """
    entries = select_tasks(catalog, spec.tasks)
    attempts: list[Attempt] = []
    for entry in entries:
        conditions = [c for c in spec.conditions if c.workflow == entry.is_workflow]
        for condition in conditions:
            profile = spec.profile(spec.profile_name(condition, entry.spec.resources))
            if entry.spec.time_limit_s is not None:
                profile = profile.model_copy(update={"time_limit_s": entry.spec.time_limit_s})
            for agent in spec.agents:
                for trial in range(spec.trials):
                    key = RunKey(sweep=spec.name, agent=agent, task=entry.id, condition=condition, trial=trial)
                    attempts.append(Attempt(key=key, entry=entry, profile=profile))
    if not attempts:
        kinds = ", ".join(c.value for c in spec.conditions)
        raise ValueError(f"sweep {spec.name!r} has no attempts: conditions {kinds} apply to none of {spec.tasks}")
    return sorted(attempts, key=priority)


def condition_list(text: str | None) -> list[Condition] | None:
    """'SF,SR' -> [SF, SR]; None stays None."""
    if text is None:
        return None
    return [parse_condition(part) for part in text.split(",") if part.strip()]


def name_list(text: str | None) -> list[str] | None:
    """'a, b' -> ['a', 'b']; None stays None."""
    if text is None:
        return None
    return [part.strip() for part in text.split(",") if part.strip()]
