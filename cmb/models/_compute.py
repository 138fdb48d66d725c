"""Compute an attempt used, as measured, and what it costs: OpenCost's allocation rule on a versioned price sheet.

The rule: each resource is charged at max(request, usage) times its hourly price for the time the sandbox held it;
a node-exclusive attempt is charged its whole node's hours, whatever it used. The pinned sheet is package data
(`compute_prices.yaml`, never changed in place: a new price is a new version); a user sheet of the same form
replaces it, and every record names the version it was priced with.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

import yaml
from pydantic import Field

from cmb.models._base import CmbModel
from cmb.models._task import ResourceProfile

GIB = 2**30


class ComputeUsage(CmbModel):
    """What an attempt's sandbox used and held, and what that cost."""

    held_s: float = Field(
        default=0.0, ge=0, description="Wall seconds the sandbox held its resources (setup to collect)"
    )
    cpu_s: float | None = Field(default=None, ge=0, description="CPU seconds of every process in it; None: unmeasured")
    peak_memory_bytes: int | None = Field(default=None, ge=0, description="Its peak memory; None: unmeasured")
    source: str | None = Field(
        default=None, description="Who measured: 'cgroup-v1', 'cgroup-v2', 'docker' (the engine's stats), None"
    )
    price_sheet: str | None = Field(default=None, description="Version of the compute price sheet the cost used")

    @property
    def measured(self) -> bool:
        """Whether the sandbox's own counters were read (else the cost stands on the request alone)."""
        return self.cpu_s is not None


class NodeType(CmbModel):
    """A node an exclusive attempt takes whole."""

    vcpus: float = Field(gt=0)
    memory_gib: float = Field(gt=0)
    hour_usd: float | None = Field(default=None, ge=0, description="Its price; None: its vCPUs and GiB at the rates")


class ComputePriceSheet(CmbModel):
    """Hourly prices of the resources an attempt holds."""

    version: str = Field(min_length=1, description="Named in every record priced with this sheet")
    source: str = Field(default="", description="Where the prices come from")
    vcpu_hour_usd: float = Field(ge=0, description="One vCPU for one hour")
    gib_hour_usd: float = Field(ge=0, description="One GiB of memory for one hour")
    nodes: dict[str, NodeType] = Field(
        default_factory=dict, description="Node type of each node-exclusive profile, by profile name"
    )

    @classmethod
    def pinned(cls) -> ComputePriceSheet:
        """The sheet cmb ships (read once; the model is frozen)."""
        return _pinned()

    @classmethod
    def load(cls, path: Path | None) -> ComputePriceSheet:
        """A user's sheet, or the pinned one when `path` is None."""
        if path is None:
            return cls.pinned()
        return cls.model_validate(yaml.safe_load(Path(path).read_text(encoding="utf-8")))

    def node_hour_usd(self, profile: ResourceProfile) -> float:
        """Price of the whole node an exclusive attempt of `profile` takes (a node of its size when unlisted)."""
        node = self.nodes.get(profile.name) or NodeType(vcpus=profile.cpus, memory_gib=profile.memory_gib)
        if node.hour_usd is not None:
            return node.hour_usd
        return node.vcpus * self.vcpu_hour_usd + node.memory_gib * self.gib_hour_usd

    def cost(self, profile: ResourceProfile, usage: ComputeUsage) -> float:
        """USD of one attempt under OpenCost's rule: max(request, usage) of each resource for the held hours."""
        hours = usage.held_s / 3600.0
        if profile.node_exclusive:
            return hours * self.node_hour_usd(profile)
        mean_cores = (usage.cpu_s or 0.0) / usage.held_s if usage.held_s > 0 else 0.0
        cores = max(profile.cpus, mean_cores)
        gib = max(profile.memory_gib, (usage.peak_memory_bytes or 0) / GIB)
        return hours * (cores * self.vcpu_hour_usd + gib * self.gib_hour_usd)

    def priced(self, profile: ResourceProfile, usage: ComputeUsage) -> tuple[ComputeUsage, float]:
        """`usage` stamped with this sheet's version, and its cost."""
        return usage.model_copy(update={"price_sheet": self.version}), self.cost(profile, usage)


PINNED = "compute_prices.yaml"


@functools.cache
def _pinned() -> ComputePriceSheet:
    return ComputePriceSheet.model_validate(yaml.safe_load(resources.files(__package__).joinpath(PINNED).read_text()))
