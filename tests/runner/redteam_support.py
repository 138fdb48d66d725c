"""What the red-team tests share besides their fixtures (tests/runner/conftest.py): the profile, what to read back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cmb.models import FailureClass, ResourceProfile, RunRecord
from cmb.runner import artifacts_path

REPO = Path(__file__).resolve().parents[2]
PROFILE = ResourceProfile(name="single", cpus=1, memory_gib=0.5, time_limit_s=30, pids=128, disk_gib=0.25)
BACKENDS = [pytest.param("local", id="local"), pytest.param("docker", id="docker", marks=pytest.mark.docker)]
OUTSIDE = "203.0.113.1"

Attempt = Callable[..., RunRecord]


def stdout_of(record: RunRecord, home: Path) -> str:
    return (artifacts_path(home, record.key) / "stdout.txt").read_text()


def home_of(tmp_path: Path) -> Path:
    return tmp_path / "home"


def not_the_agents_fault(record: RunRecord) -> None:
    assert record.failure_class is not FailureClass.INFRASTRUCTURE, record.error
    assert not record.passed
