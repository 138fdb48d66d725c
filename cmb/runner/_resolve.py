"""Names resolved against the registries and the catalog, refused with the known names before anything starts."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from cmb.agents import AGENTS, Agent, get_agent, load_user_agents, needs_gateway
from cmb.catalog import Catalog, CatalogError, TaskEntry
from cmb.grading import REGISTRY
from cmb.models import AgentRef, Condition
from cmb.sandbox import AUTO, BACKENDS, Sandbox, backend_choices, get_backend, resolve_backend
from cmb.settings import CmbSettings


class LaunchError(ValueError):
    """A request that cannot be launched (an unknown name, a backend that cannot run here); nothing was started."""


class UnknownNameError(LaunchError):
    """A name no registry (or catalog) knows."""

    def __init__(self, kind: str, name: str, known: Iterable[str], where: str = "") -> None:
        self.kind, self.name, self.known = kind, name, sorted(known)
        near = difflib.get_close_matches(name, self.known, n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        super().__init__(f"unknown {kind} {name!r}{where}{hint} (known: {', '.join(self.known) or 'none'})")


def register_user_agents(settings: CmbSettings) -> None:
    """Register the external agents of the files the agents.files setting names."""
    try:
        load_user_agents(settings.agents.files)
    except (OSError, ValueError) as exc:
        raise LaunchError(f"agents file: {exc}") from None


def resolve_agent(ref: AgentRef, options: Mapping[str, str]) -> Agent:
    """The agent a reference names, configured with its model and options."""
    if ref.name not in AGENTS:
        raise UnknownNameError("agent", ref.name, AGENTS)
    config = {**options, **({"model": ref.model} if ref.model else {})}
    try:
        return get_agent(ref.name, **config)
    except (TypeError, ValueError) as exc:  # options it does not take, or values it refuses
        text = str(exc)
        raise LaunchError(text if repr(ref.name) in text else f"agent {ref.name!r}: {text}") from None


def check_backend(name: str) -> None:
    """A registered backend, or auto."""
    if name != AUTO and name not in BACKENDS:
        raise UnknownNameError("sandbox backend", name, backend_choices())


def backend_class(name: str, settings: CmbSettings) -> type[Sandbox]:
    """The backend `name` (auto: docker, else local) as the settings configure it; it must be able to run here."""
    check_backend(name)
    backend = get_backend(resolve_backend(name)).configured(settings)
    reason = backend.available()
    if reason is not None:
        raise LaunchError(f"backend {backend.backend!r} cannot run here: {reason}")
    return backend


def check_check_types(entries: Iterable[TaskEntry]) -> None:
    """Every check of every grader names a registered check type (a grader that does not load is the runner's)."""
    for entry in entries:
        try:
            checks = entry.grader().checks
        except CatalogError:
            continue  # recorded as a grader error by the runner, as `cmb tasks validate` reports it
        for check in checks:
            if check.type not in REGISTRY.types:
                where = f" in check {check.id!r} of {entry.id}"
                raise UnknownNameError("check type", check.type, REGISTRY.types, where)


def find_task(catalog: Catalog, task_id: str) -> TaskEntry:
    """A task or workflow by id."""
    if task_id not in catalog.entries:
        raise UnknownNameError("task", task_id, catalog.entries)
    return catalog.entries[task_id]


def select_tasks(catalog: Catalog, selectors: Iterable[str]) -> list[TaskEntry]:
    """'all', task ids and 'study:NAME' selectors, each of which must name something."""
    selectors = [s.strip() for s in selectors if s.strip()]
    studies = {e.spec.study for e in catalog.entries.values()}
    for sel in selectors:
        if sel.startswith("study:") and sel.removeprefix("study:") not in studies:
            raise UnknownNameError("study", sel.removeprefix("study:"), studies)
        if sel != "all" and not sel.startswith("study:"):
            find_task(catalog, sel)
    return catalog.select(selectors)


def parse_condition(text: str) -> Condition:
    """A condition by name (case-insensitive)."""
    try:
        return Condition(text.strip().upper())
    except ValueError:
        raise UnknownNameError("condition", text, [c.value for c in Condition]) from None


def agent_keys(names: Iterable[str], model: str | None) -> list[str]:
    """Agents as attempt keys name them: `model` goes to each that drives a model and names none of its own."""
    refs = [AgentRef.parse(name) for name in names]
    if model is None:
        return [ref.key for ref in refs]
    return [(ref.with_model(model) if ref.name in AGENTS and needs_gateway(ref.name) else ref).key for ref in refs]
