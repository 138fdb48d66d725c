"""MLflow as a user sees it: a sweep mirrored by `cmb mlflow-sync` to a real server, read in the server's web UI.

Headless Chromium renders the UI (a single-page app on hash routes); each check polls the page's text.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.analysis.chromium import Browser, find_chromium
from tests.store.mlflow_helpers import shared_server
from tests.store.mlflow_ui import mlflow_sync, navigate, show_run_list, wait_for_text, write_sweep

pytest.importorskip("mlflow")
from mlflow.tracking import MlflowClient  # noqa: E402

pytestmark = pytest.mark.slow
SWEEP = "ui-check"


def _ui_installed() -> bool:
    import mlflow.server

    return (Path(mlflow.server.__file__).parent / "js" / "build" / "index.html").is_file()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    binary = find_chromium()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: scripts/setup.sh installs the Debian package 'chromium'")
        pytest.skip("chromium not installed (apt-get install chromium)")
    if not _ui_installed():
        message = "the MLflow web UI is missing (mlflow-skinny has none): scripts/setup.sh installs mlflow --no-deps"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with Browser(binary, width=1280, height=800) as b:
        yield b


@pytest.fixture(scope="module")
def mirrored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A sweep's records in Parquet under a fresh CMB_HOME, replayed into a real server by the real CLI."""
    server = shared_server()
    home = tmp_path_factory.mktemp("home")
    keys = write_sweep(home, SWEEP)
    output = mlflow_sync(home, SWEEP, server.uri)
    assert f"{SWEEP}: {len(keys)} logged" in output
    client = MlflowClient(server.uri)
    exp = client.get_experiment_by_name(SWEEP)
    assert exp is not None
    runs = {r.data.tags["mlflow.runName"]: r.info.run_id for r in client.search_runs([exp.experiment_id])}
    return {"uri": server.uri, "experiment": exp.experiment_id, "keys": keys, "runs": runs}


def test_the_experiment_lists_the_sweep_and_its_attempt_runs(browser: Browser, mirrored: dict[str, Any]) -> None:
    navigate(browser, f"{mirrored['uri']}/#/experiments")
    wait_for_text(browser, [SWEEP])
    names = ["/".join(k.split("/")[1:]) for k in mirrored["keys"]]
    show_run_list(browser, mirrored["uri"], mirrored["experiment"], names)


def test_an_attempt_run_shows_its_cmb_tags_and_metrics(browser: Browser, mirrored: dict[str, Any]) -> None:
    name = "oracle/si-bulk-modulus/SF/0"
    navigate(browser, f"{mirrored['uri']}/#/experiments/{mirrored['experiment']}/runs/{mirrored['runs'][name]}")
    wait_for_text(
        browser,
        [
            name,
            "cmb.agent : oracle",
            "cmb.task : si-bulk-modulus",
            "cmb.condition : SF",
            "cmb.role : attempt",
            "score 1",
            "passed 1",
            "cost 0.0625",
        ],
    )


def test_the_parent_run_shows_the_sweep_aggregates(browser: Browser, mirrored: dict[str, Any]) -> None:
    navigate(browser, f"{mirrored['uri']}/#/experiments/{mirrored['experiment']}/runs/{mirrored['runs']['sweep']}")
    wait_for_text(
        browser,
        [
            "cmb.role : sweep",
            "attempts 8",
            "pass_rate 0.5",
            "pass_rate.agent.oracle 1",
            "pass_rate.agent.null 0",
            "pass_rate.condition.SF 0.5",
        ],
    )
