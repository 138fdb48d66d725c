"""Fixtures of the red-team tests: the suite's catalog, and an attempt on each real backend with a small profile."""

from __future__ import annotations

from pathlib import Path

import pytest

from cmb.agents import ReplayAgent
from cmb.catalog import Catalog, TaskEntry
from cmb.models import Condition, RunKey, RunRecord
from cmb.runner import RunOptions, run_attempt
from cmb.sandbox import get_backend
from tests.runner.redteam_support import BACKENDS, PROFILE, REPO, Attempt
from tests.sandbox._support import build_image, require_backend


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load(REPO)


@pytest.fixture(params=BACKENDS)
def attempt(request: pytest.FixtureRequest, tmp_path: Path, catalog: Catalog) -> Attempt:
    """attempt(steps or agent, task=..., **profile) -> RunRecord on the parametrised backend."""
    backend = request.param
    require_backend(backend)
    image = build_image("slim") if backend == "docker" else "cmb-agent:slim"

    def run(agent: object, task: str = "si-eos-analysis", trial: int = 0, **profile: object) -> RunRecord:
        entry: TaskEntry = catalog.get(task)
        if isinstance(agent, list):
            agent = ReplayAgent(steps=agent)
        opts = RunOptions(
            home=tmp_path / "home",
            image=image,
            profiles={"single": PROFILE.model_copy(update=profile)},
            collect_max_bytes=16 * 1024 * 1024,
        )
        k = RunKey(sweep="redteam", agent="red", task=task, condition=Condition.SF, trial=trial)
        return run_attempt(k, entry, agent, get_backend(backend), opts)  # type: ignore[arg-type]

    return run
