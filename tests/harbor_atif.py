"""Harbor for the tests: its ATIF models (harbor.models.trajectories) and its command line, in harbor's virtual
environment.

Harbor needs Python >= 3.12 and cmb runs on 3.11, so scripts/setup.sh puts harbor in a virtual environment of its
own: $XDG_CACHE_HOME/cmb/harbor-venv (~/.cache/cmb/harbor-venv); CMB_HARBOR_PYTHON names another interpreter that
has harbor. Without one the validation fails in CI (CI=true) and skips elsewhere, with the reason.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

CHECK = """
import json, sys
from harbor.models.trajectories import Trajectory
from harbor.utils.trajectory_validator import TrajectoryValidator
bad = 0
for path in sys.argv[1:]:
    Trajectory.model_validate(json.load(open(path)))
    validator = TrajectoryValidator()
    if not validator.validate(path):
        bad += 1
        print(path, *validator.errors, sep="\\n  ")
sys.exit(1 if bad else 0)
"""


def harbor_python() -> Path:
    """The interpreter that has harbor: CMB_HARBOR_PYTHON, else the one of scripts/setup.sh's virtual environment."""
    named = os.environ.get("CMB_HARBOR_PYTHON")
    if named:
        return Path(named)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "cmb" / "harbor-venv" / "bin" / "python"


def require_harbor(purpose: str) -> Path:
    """The interpreter that has harbor; without one the test fails in CI (CI=true) and skips elsewhere."""
    python = harbor_python()
    if not python.is_file():
        reason = f"no harbor to {purpose} at {python} (run scripts/setup.sh, or set CMB_HARBOR_PYTHON)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return python


def harbor_cli() -> Path:
    """Harbor's command line, beside its interpreter."""
    return require_harbor("run tasks with").with_name("harbor")


def validate_atif(*paths: Path) -> None:
    """Assert that harbor's Trajectory model and validator accept every file (one interpreter for all of them)."""
    python = require_harbor("validate ATIF with")
    done = subprocess.run(  # noqa: S603 - our own interpreter and script
        [str(python), "-c", CHECK, *map(str, paths)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, f"harbor rejected the trajectory:\n{done.stdout}{done.stderr}"
