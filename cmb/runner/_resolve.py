"""Names resolved against the registries and the catalog, refused with the known names before anything starts."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from pathlib import Path

from cmb.agents import AGENTS, Agent, get_agent, load_user_agents, needs_gateway
from cmb.catalog import Catalog, CatalogError, TaskEntry
from cmb.grading import REGISTRY
from cmb.integrations.harbor import PREFIX as HARBOR_PREFIX
from cmb.integrations.harbor import HarborTaskError, harbor_entries, is_harbor_task
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


def _harbor_path(selector: str) -> Path | None:
    """The folder a selector names as Harbor tasks (harbor:PATH, or the path of a task folder), else None."""
    if selector.startswith(HARBOR_PREFIX):
        return Path(selector.removeprefix(HARBOR_PREFIX))
    path = Path(selector)
    return path if ("/" in selector or selector.startswith(".")) and is_harbor_task(path) else None


def add_harbor_tasks(catalog: Catalog, path: Path) -> list[TaskEntry]:
    """Materialize the Harbor tasks of `path` (a task folder or a dataset) into `catalog`; return them."""
    try:
        entries = harbor_entries(path)
    except HarborTaskError as exc:
        raise LaunchError(str(exc)) from None
    for entry in entries:
        catalog.entries[entry.id] = entry
    return entries


def find_task(catalog: Catalog, task_id: str) -> TaskEntry:
    """A task or workflow by id, or a Harbor task by its folder (harbor:PATH or the path itself)."""
    if task_id in catalog.entries:
        return catalog.entries[task_id]
    if (path := _harbor_path(task_id)) is not None:
        entries = add_harbor_tasks(catalog, path)
        if len(entries) != 1:
            raise LaunchError(f"{path} holds {len(entries)} Harbor tasks; name one of them")
        return entries[0]
    raise UnknownNameError("task", task_id, catalog.entries)


def select_tasks(catalog: Catalog, selectors: Iterable[str]) -> list[TaskEntry]:
    """'all', task ids, 'study:NAME' and 'harbor:PATH' selectors, each of which must name something."""
    chosen: list[str] = []
    for sel in (s.strip() for s in selectors if s.strip()):
        path = _harbor_path(sel)
        chosen += [e.id for e in add_harbor_tasks(catalog, path)] if path is not None else [sel]
    selectors = chosen
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
