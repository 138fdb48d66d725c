"""The one way to launch an attempt: resolve its agent, backend, gateway and options, then run its lifecycle.

`cmb run` and the sweep's launchers both go through `prepare` (which refuses a bad request before anything
starts) and `Launch.run`; `launch` is the two in one. The agent comes from the attempt key (`name` or
`name@model`); what the options leave open comes from the settings (image, gateway, manuals, agent files) or from
the task (resource profile, time limit).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import yaml

from cmb.agents import Agent
from cmb.catalog import TaskEntry
from cmb.models import (
    AgentRef,
    AttemptOptions,
    ComputePriceSheet,
    GatewayAccess,
    ResourceProfile,
    RunKey,
    RunRecord,
    Usage,
)
from cmb.runner._attempt import RunOptions, image_of_task, resolve_profile, run_attempt
from cmb.runner._resolve import (
    LaunchError,
    backend_class,
    check_backend,
    check_check_types,
    register_user_agents,
    resolve_agent,
)
from cmb.sandbox import Sandbox
from cmb.settings import CmbSettings

if TYPE_CHECKING:
    from cmb.gateway import TrajectorySource


def effective_options(options: AttemptOptions, settings: CmbSettings) -> AttemptOptions:
    """The options with what they leave open filled in from the settings: the image, the gateway's URL and key."""
    gateway = options.gateway
    if gateway.url is None and settings.gateway.url:
        gateway = gateway.model_copy(update={"url": settings.gateway.url})
    if gateway.admin_key is None and settings.gateway.admin_key is not None:
        gateway = gateway.model_copy(update={"admin_key": settings.gateway.admin_key})
    return options.model_copy(update={"image": options.image or settings.sandbox.image, "gateway": gateway})


@dataclass(frozen=True)
class Launch:
    """One attempt, resolved and ready to run."""

    key: RunKey
    entry: TaskEntry
    agent_ref: AgentRef
    agent: Agent
    backend: type[Sandbox]
    options: AttemptOptions  # effective: nothing left to the settings
    settings: CmbSettings
    profile: ResourceProfile | None = None  # the condition's profile (a sweep's), else the task's own
    retries: int = 0
    queued_at: datetime | None = None
    prices: ComputePriceSheet = field(default_factory=ComputePriceSheet.pinned)  # read once, by prepare()

    def run(self, pooled: bool = False) -> RunRecord:
        """Run the attempt's lifecycle; an agent that needs a gateway and has none gets one for the duration.

        `pooled` (a sweep's launchers): the sandbox comes from this process's warm pool, as the settings size it.
        """
        from cmb.gateway import attempt_access, attempt_trajectory, sweep_gateway  # the server loads aiohttp

        home = self.settings.store.home
        config = self.settings.gateway.config
        with sweep_gateway(home, self.options.gateway, self.agent.needs_gateway, config) as endpoint:
            access, meter = attempt_access(endpoint, self.key, self.agent_ref.model)
            options = self.run_options(access, meter, attempt_trajectory(endpoint))
            # Not for node-exclusive attempts: a spare would hold a whole node, to save seconds of an hours-long run.
            exclusive = resolve_profile(self.entry, options).node_exclusive
            if pooled and self.settings.sandbox.warm_pool > 0 and not exclusive:
                options.pool_spares = self.settings.sandbox.warm_pool
            return run_attempt(self.key, self.entry, self.agent, self.backend, options)

    def run_options(
        self,
        access: GatewayAccess,
        meter: Callable[[RunKey], Usage | None] | None,
        trajectory: TrajectorySource | None = None,
    ) -> RunOptions:
        """What the runner takes, from the options, the settings and the profile."""
        profile, options = self.profile, self.options
        assert options.image is not None
        return RunOptions(
            home=self.settings.store.home,
            image=options.image,
            gateway=access,
            usage_meter=meter,
            trajectory=trajectory,
            profiles={self.entry.spec.resources: profile} if profile is not None else {},
            time_limit_s=options.time_limit_s or (profile.time_limit_s if profile is not None else None),
            cpus=options.cpus,
            memory_gib=options.memory_gib,
            manuals=self.settings.sandbox.manuals,
            compute_prices=self.prices,
            queued_at=self.queued_at,
            retries=self.retries,
        )


def prepare(
    key: RunKey,
    entry: TaskEntry,
    options: AttemptOptions,
    settings: CmbSettings,
    *,
    profile: ResourceProfile | None = None,
    retries: int = 0,
    queued_at: datetime | None = None,
) -> Launch:
    """Resolve everything an attempt needs; a LaunchError names what is wrong, and nothing has started."""
    if key.task != entry.id:
        raise ValueError(f"run key is for task {key.task!r}, entry is {entry.id!r}")
    if key.condition not in entry.conditions():
        raise LaunchError(f"{entry.id} runs under {', '.join(c.value for c in entry.conditions())} only")
    register_user_agents(settings)
    ref = AgentRef.parse(key.agent)
    agent = resolve_agent(ref, options.agent_options)
    backend = backend_class(options.backend, settings)
    if (image := image_of_task(entry)) is not None and not backend.runs_images:
        raise LaunchError(f"{entry.id} runs in its own image ({image}); backend {backend.backend!r} runs no images")
    check_check_types([entry])
    prices = compute_prices(settings)
    effective = effective_options(options, settings)
    return Launch(key, entry, ref, agent, backend, effective, settings, profile, retries, queued_at, prices)


def launch(
    key: RunKey,
    entry: TaskEntry,
    options: AttemptOptions,
    settings: CmbSettings,
    *,
    profile: ResourceProfile | None = None,
    retries: int = 0,
    queued_at: datetime | None = None,
    pooled: bool = False,
) -> RunRecord:
    """Resolve and run one attempt: the launch path of `cmb run` and of every sweep attempt (`pooled`)."""
    launch = prepare(key, entry, options, settings, profile=profile, retries=retries, queued_at=queued_at)
    return launch.run(pooled=pooled)


def compute_prices(settings: CmbSettings) -> ComputePriceSheet:
    """The price sheet the settings name (else the pinned one); a LaunchError says what is wrong with it."""
    path = settings.sandbox.compute_prices
    try:
        return ComputePriceSheet.load(path)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise LaunchError(f"compute price sheet {path}: {exc}") from None


def preflight(
    agents: Iterable[str] | None,
    backend: str,
    entries: Iterable[TaskEntry],
    options: AttemptOptions,
    settings: CmbSettings,
) -> None:
    """Check a sweep's names before any attempt starts: agents (None: not the runner's to check), backend, checks.

    A backend's availability is left to the launchers: they may run on other machines than this one.
    """
    if agents is not None:
        register_user_agents(settings)
        for name in agents:
            resolve_agent(AgentRef.parse(name), options.agent_options)
    check_backend(backend)
    check_check_types(entries)
    compute_prices(settings)
