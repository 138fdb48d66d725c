"""A small sweep mirrored to a real `mlflow server`, and its web UI read in headless Chromium.

Used by the browser test and to refresh the README's screenshot of a sweep's run list:

    python -m tests.store.mlflow_ui docs/mlflow.png
"""

from __future__ import annotations

import json
import re
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner

from cmb.cli import cli
from cmb.store import ParquetStore
from tests.analysis.chromium import Browser, find_chromium
from tests.store.mlflow_helpers import MlflowServer
from tests.store.records import make_record

AGENTS = ("oracle", "null")
TASKS = ("si-bulk-modulus", "cu-lattice-constant")
CONDITIONS = ("SF", "SR")


def write_sweep(home: Path, sweep: str) -> list[str]:
    """Parquet records of a 2 agents x 2 tasks x 2 conditions sweep: oracle passes everything, null nothing."""
    store = ParquetStore(home / "results")
    keys = [f"{sweep}/{a}/{t}/{c}/0" for a in AGENTS for t in TASKS for c in CONDITIONS]
    start = datetime.now(UTC) - timedelta(minutes=20)
    for i, key in enumerate(keys):
        oracle = key.split("/")[1] == "oracle"
        cost = 0.0625 * (1 + i % 4)  # binary fractions: sums print exactly
        record = make_record(key, passed=oracle, cost=cost, tokens=1000 + 100 * i, finished_after_s=40 + i)
        began = start + timedelta(minutes=2 * i)
        record = record.model_copy(
            update={"started_at": began, "finished_at": began + (record.finished_at - record.started_at)}
        )
        store.write(record, spec_hash="h")
    return keys


def mlflow_sync(home: Path, sweep: str, uri: str) -> str:
    """`cmb mlflow-sync SWEEP --mlflow-uri URI`, as a user runs it; returns its output."""
    res = CliRunner().invoke(cli, ["mlflow-sync", sweep, "--mlflow-uri", uri], env={"CMB_HOME": str(home)})
    assert res.exit_code == 0, res.output
    return res.output


def page_text(browser: Browser) -> str:
    text = browser.evaluate("document.body ? document.body.innerText : ''")
    return text if isinstance(text, str) else ""


def flat(text: str) -> str:
    """The page text on one line, words between single spaces: a tag's 'key\n: value' reads ' key : value '."""
    return " " + re.sub(r"\s+", " ", text) + " "


def wait_for_text(browser: Browser, needles: list[str], timeout_s: float = 30.0) -> str:
    """Poll the rendered page until every needle shows as whole words ('score 1' is not 'raw_score 1.5'); fail
    with the missing ones and the page text's tail."""
    deadline = time.monotonic() + timeout_s
    while True:
        text = page_text(browser)
        words = flat(text)
        missing = [n for n in needles if f" {n} " not in words]
        if not missing:
            return text
        if time.monotonic() > deadline:
            raise AssertionError(
                f"not shown after {timeout_s:.0f} s at {browser.evaluate('location.href')}: {missing}\n"
                f"--- page text (tail) ---\n{text[-3000:]}"
            )
        time.sleep(0.25)


def show_run_list(browser: Browser, uri: str, experiment_id: str, names: list[str]) -> str:
    """Open the experiment's run list (the model-training view, not the GenAI overview `#/experiments/<id>` lands
    on) and expand the sweep's parent run, as a user does, until every attempt run's name shows."""
    navigate(browser, f"{uri}/#/experiments/{experiment_id}/runs?workflowType=machine_learning")
    wait_for_text(browser, ["sweep", f"{len(names) + 1} matching runs"])
    deadline = time.monotonic() + 15
    while browser.evaluate(EXPAND_PARENTS) == 0:  # clicked once: a second click would fold it again
        if time.monotonic() > deadline:
            raise AssertionError(f"no parent run to expand\n--- page text (tail) ---\n{page_text(browser)[-3000:]}")
        time.sleep(0.25)
    return wait_for_text(browser, names)


# The expander of a parent run's row: the row's one unlabelled button (the other toggles the run's visibility).
EXPAND_PARENTS = """(() => {
  const buttons = [...document.querySelectorAll('[role=row] button:not([aria-label])')];
  buttons.forEach(b => b.click());
  return buttons.length;
})()"""


# The screenshot's columns, toggled in the run list's column picker: three attributes off, four metrics on.
SHOT_COLUMNS = ["Dataset", "Source", "Models", "passed", "score", "cost", "pass_rate"]
TOGGLE_COLUMNS = """(names => names.filter(name => {
  const hits = [...document.querySelectorAll('[role=dialog] *')].filter(e => e.textContent.trim() == name);
  if (hits.length) hits[hits.length - 1].click();
  return hits.length > 0;
}))(%s)"""


def navigate(browser: Browser, url: str) -> None:
    """Go to `url` in the open page (a new hash route of the single-page app, or a first load)."""
    if browser.session is None:
        browser.open(url)
    else:
        browser.send("Page.navigate", {"url": url})


def screenshot(out: Path, sweep: str = "demo") -> None:
    """Mirror a demo sweep to a throwaway server and capture its run list at 1280x800."""
    import base64
    import tempfile

    from mlflow.tracking import MlflowClient

    binary = find_chromium()
    if binary is None:
        sys.exit("chromium not found (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="cmb-mlflow-shot-") as tmp:
        server = MlflowServer(Path(tmp) / "server")
        server.start()
        try:
            keys = write_sweep(Path(tmp) / "home", sweep)
            mlflow_sync(Path(tmp) / "home", sweep, server.uri)
            exp = MlflowClient(server.uri).get_experiment_by_name(sweep)
            assert exp is not None
            with Browser(binary, width=1280, height=800) as b:
                names = ["/".join(k.split("/")[1:]) for k in keys]
                show_run_list(b, server.uri, exp.experiment_id, names)
                b.evaluate("document.querySelector('button[aria-label=Close]')?.click()")  # the assistant's panel
                b.evaluate(
                    "[...document.querySelectorAll('button')].find(x => x.textContent.trim() == 'Columns').click()"
                )
                time.sleep(1.0)
                toggled = b.evaluate(TOGGLE_COLUMNS % json.dumps(SHOT_COLUMNS))
                assert toggled == SHOT_COLUMNS, toggled
                for kind in ("keyDown", "keyUp"):  # close the column picker
                    b.send("Input.dispatchKeyEvent", {"type": kind, "key": "Escape", "code": "Escape",
                                                      "windowsVirtualKeyCode": 27})  # fmt: skip
                time.sleep(1.5)  # let the table settle
                shot = b.send("Page.captureScreenshot", {"format": "png"})
                out.write_bytes(base64.b64decode(shot["data"]))
        finally:
            server.stop()
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    screenshot(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/mlflow.png"))
