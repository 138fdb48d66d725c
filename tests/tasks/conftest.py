"""Fixtures shared by the per-study task tests (helpers in _helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tasks._helpers import run_oracle


@pytest.fixture(scope="module")
def oracle_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The oracle's output folder of each task (staged for its first condition), run at most once per module and
    only for the tasks a test asks for."""

    class Lazy(dict):  # type: ignore[type-arg]
        def __missing__(self, task: str) -> Path:
            self[task] = run_oracle(task, tmp_path_factory.mktemp(task))
            return self[task]

    return Lazy()


@pytest.fixture(scope="session")
def suite_oracles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The oracle's submission of each task or workflow (its first condition), run at most once per session."""

    class Lazy(dict):  # type: ignore[type-arg]
        def __missing__(self, task: str) -> Path:
            self[task] = run_oracle(task, tmp_path_factory.mktemp(f"oracle-{task}"))
            return self[task]

    return Lazy()
