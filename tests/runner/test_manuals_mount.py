"""Every attempt reads the manuals library at /opt/manuals, read-only, and its prompt says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cmb.agents import ReplayAgent, Run
from cmb.catalog import Catalog
from cmb.manuals import MOUNT_POINT
from cmb.models import Condition, ResourceProfile, RunKey, RunRecord
from cmb.runner import RunOptions, artifacts_path, run_attempt
from cmb.sandbox import get_backend
from tests.sandbox._support import build_image, require_backend

REPO = Path(__file__).resolve().parents[2]
PROFILE = ResourceProfile(name="single", cpus=1, memory_gib=0.5, time_limit_s=60, pids=128, disk_gib=0.25)
BACKENDS = [pytest.param("local", id="local"), pytest.param("docker", id="docker", marks=pytest.mark.docker)]
PROBE = (
    f"cat {MOUNT_POINT}/README.txt; grep -c '{MOUNT_POINT}/README.txt' PROMPT.md; "
    f"(echo x > {MOUNT_POINT}/evil) 2>/dev/null || echo REFUSED-NEW; "
    f"(echo x >> {MOUNT_POINT}/README.txt) 2>/dev/null || echo REFUSED-APPEND"
)


def _library(path: Path) -> Path:
    path.mkdir()
    (path / "README.txt").write_text("library under test\n")
    (path / "manifest.json").write_text(json.dumps({"recipe": "test", "sources": [], "generated": []}))
    for p in (path, *path.iterdir()):
        p.chmod(0o755 if p.is_dir() else 0o644)
    return path


def _attempt(backend: str, home: Path, manuals: Path) -> RunRecord:
    require_backend(backend)
    entry = Catalog.load(REPO).get("si-eos-analysis")
    opts = RunOptions(
        home=home,
        image=build_image("slim") if backend == "docker" else "cmb-agent:slim",
        profiles={"single": PROFILE},
        manuals=manuals,
    )
    key = RunKey(sweep="manuals", agent="reader", task=entry.id, condition=Condition.SR, trial=0)
    return run_attempt(key, entry, ReplayAgent(steps=[Run(shell=PROBE)]), get_backend(backend), opts)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_library_is_mounted_read_only_and_named_in_the_prompt(backend: str, tmp_path: Path) -> None:
    lib = _library(tmp_path / "manuals")
    record = _attempt(backend, tmp_path / "home", lib)
    out = (artifacts_path(tmp_path / "home", record.key) / "stdout.txt").read_text()
    assert "library under test" in out and "REFUSED-NEW" in out and "REFUSED-APPEND" in out, out
    assert "\n1\n" in out  # the prompt names the library once
    assert sorted(p.name for p in lib.iterdir()) == ["README.txt", "manifest.json"]
    assert not any("manuals" in w for w in record.sandbox_warnings), record.sandbox_warnings


def test_a_missing_library_is_a_recorded_warning_not_a_failure(tmp_path: Path) -> None:
    record = _attempt("local", tmp_path / "home", tmp_path / "never-built")
    assert any("no manuals library" in w and "cmb manuals build" in w for w in record.sandbox_warnings)
    assert record.failure_class is None or record.failure_class.value != "infrastructure"


def test_kubernetes_pods_read_the_image_copy() -> None:
    assert not get_backend("kubernetes").host_mounts
    assert get_backend("local").host_mounts and get_backend("docker").host_mounts
