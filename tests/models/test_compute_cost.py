"""The compute price sheet and OpenCost's allocation rule, on constructed usage."""

from __future__ import annotations

import pytest
import yaml
from pydantic import ValidationError

from cmb.models import ComputePriceSheet, ComputeUsage, ResourceProfile

SHEET = ComputePriceSheet(
    version="test-1",
    vcpu_hour_usd=0.04,
    gib_hour_usd=0.005,
    nodes={"workflow": {"vcpus": 16, "memory_gib": 64}, "priced-node": {"vcpus": 8, "memory_gib": 32, "hour_usd": 1.5}},
)
SINGLE = ResourceProfile(name="single", cpus=4, memory_gib=16, time_limit_s=3600)
HOUR = 3600.0
GIB = 2**30


def test_an_attempt_within_its_request_pays_the_request():
    usage = ComputeUsage(held_s=HOUR / 2, cpu_s=600.0, peak_memory_bytes=2 * GIB)
    assert SHEET.cost(SINGLE, usage) == pytest.approx(0.5 * (4 * 0.04 + 16 * 0.005))


def test_usage_above_the_request_is_charged_at_the_usage():
    """OpenCost charges max(request, usage): 6 cores on average and 20 GiB at peak over one hour."""
    usage = ComputeUsage(held_s=HOUR, cpu_s=6 * HOUR, peak_memory_bytes=20 * GIB)
    assert SHEET.cost(SINGLE, usage) == pytest.approx(6 * 0.04 + 20 * 0.005)
    cpu_only = ComputeUsage(held_s=HOUR, cpu_s=6 * HOUR, peak_memory_bytes=GIB)
    assert SHEET.cost(SINGLE, cpu_only) == pytest.approx(6 * 0.04 + 16 * 0.005)


def test_an_unmeasured_attempt_pays_its_request():
    assert SHEET.cost(SINGLE, ComputeUsage(held_s=HOUR)) == pytest.approx(4 * 0.04 + 16 * 0.005)
    assert not ComputeUsage(held_s=HOUR).measured
    assert ComputeUsage(held_s=HOUR, cpu_s=1.0).measured


def test_a_node_exclusive_attempt_pays_the_whole_node_whatever_it_used():
    workflow = ResourceProfile(name="workflow", cpus=16, memory_gib=64, time_limit_s=3600, node_exclusive=True)
    idle = ComputeUsage(held_s=2 * HOUR, cpu_s=1.0, peak_memory_bytes=GIB)
    assert SHEET.cost(workflow, idle) == pytest.approx(2 * (16 * 0.04 + 64 * 0.005))
    priced = workflow.model_copy(update={"name": "priced-node"})
    assert SHEET.cost(priced, idle) == pytest.approx(2 * 1.5)
    unlisted = workflow.model_copy(update={"name": "big", "cpus": 32, "memory_gib": 128})
    assert SHEET.cost(unlisted, idle) == pytest.approx(2 * (32 * 0.04 + 128 * 0.005))


def test_nothing_held_costs_nothing():
    assert SHEET.cost(SINGLE, ComputeUsage(held_s=0.0, cpu_s=5.0)) == 0.0


def test_priced_usage_names_the_sheet():
    usage, cost = SHEET.priced(SINGLE, ComputeUsage(held_s=HOUR))
    assert usage.price_sheet == "test-1" and cost > 0


def test_the_pinned_sheet_and_a_user_sheet(tmp_path):
    pinned = ComputePriceSheet.pinned()
    assert pinned.version.startswith("cmb-compute-")
    assert pinned.vcpu_hour_usd > 0 and pinned.gib_hour_usd > 0 and "workflow" in pinned.nodes
    assert ComputePriceSheet.load(None) == pinned
    path = tmp_path / "prices.yaml"
    path.write_text(yaml.safe_dump(SHEET.model_dump(mode="json")))
    assert ComputePriceSheet.load(path) == SHEET
    path.write_text(yaml.safe_dump({"version": "bad", "vcpu_hour_usd": -1, "gib_hour_usd": 0}))
    with pytest.raises(ValidationError):
        ComputePriceSheet.load(path)
