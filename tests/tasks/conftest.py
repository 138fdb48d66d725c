"""Fixtures shared by the per-study task tests (helpers in _helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tasks._helpers import plan_oracles, run_oracle


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Plan the oracles of the selected suite-wide gates (every task's oracle test and fairness cases), so that
    each runs ahead of the test that needs it; a run of a few study tests plans nothing."""
    wanted = []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if item.nodeid.startswith("tests/tasks/test_suite.py::test_oracle_passes") and "entry" in params:
            wanted.append(params["entry"].id)
        elif item.nodeid.startswith("tests/tasks/test_gates.py::test_fairness_case") and "task" in params:
            wanted.append(params["task"])
    plan_oracles(wanted)


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
