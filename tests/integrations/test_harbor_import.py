"""Harbor task folders run as cmb tasks: materialized once, refused with the reason, run, swept and analysed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
import yaml

from cmb.agents import ReplayAgent, Run, WriteFile
from cmb.catalog import Catalog
from cmb.grading import grade
from cmb.integrations._harbor_load import _VERIFY, VERDICT, task_id
from cmb.integrations.harbor import HarborTaskError, export_task, harbor_entries, harbor_entry
from cmb.models import VERIFIER_DIR, Condition, Kind, RunKey
from cmb.runner import LaunchError, RunOptions, find_task, run_attempt, select_tasks
from cmb.sandbox import get_backend
from cmb.settings import CmbSettings
from tests.tasks._helpers import CATALOG, ROOT

TASK = Path(__file__).with_name("harbor_task")  # a small Harbor task written for these tests: sum the readings
# Forges a verdict of reward 1 when imported by the verifier (as json, or as the user site's customization).
FORGE = "import pathlib\npathlib.Path('/workspace/work/.verifier/verdict.json').write_text('{\"reward\": 1}')\n"


class FakeDocker:
    """The docker client as the loader uses it: builds succeed, the WORKDIR is `workdir`, and copying it out of the
    image copies the environment folder's files (what the test task's Dockerfile copies into /app)."""

    def __init__(self, environment: Path, workdir: str = "/app") -> None:
        self.environment, self.workdir, self.calls = environment, workdir, []

    def __call__(self, args: Sequence[str], timeout_s: int) -> str:
        self.calls.append(list(args))
        if args[0] == "image":
            return self.workdir + "\n"
        if args[0] == "cp":
            for path in self.environment.iterdir():
                if path.is_file() and path.name not in {"Dockerfile", "docker-compose.yaml"}:
                    shutil.copyfile(path, Path(args[2]) / path.name)
        return ""

    def builds(self) -> list[list[str]]:
        return [c for c in self.calls if c[0] == "build"]


@pytest.fixture
def task(tmp_path: Path) -> Path:
    copy = tmp_path / "sum-readings"
    shutil.copytree(TASK, copy)
    return copy


def test_materialized_as_a_cmb_task(task: Path, tmp_path: Path) -> None:
    docker = FakeDocker(task / "environment")
    entry = harbor_entry(task, tmp_path / "cache", docker)
    spec = entry.spec
    assert entry.id == task_id(task) == "harbor-sum-readings"
    assert (spec.study, spec.kind, spec.codes) == ("harbor", Kind.RUN_AND_ANALYZE, ["harbor"])
    assert spec.time_limit_s == 300 and spec.workspace == ["readings.txt"] and spec.answer_files == [VERDICT]
    assert spec.image is not None and spec.image.startswith("cmb-harbor:harbor-sum-readings-")
    assert spec.verifier is not None and spec.verifier.timeout_s == 120
    assert spec.verifier.env == {"EXPECTED_SUM": "61.5"}
    assert entry.prompt(Condition.SF) == (task / "instruction.md").read_text()
    assert (entry.workspace_dir / "readings.txt").read_text() == (task / "environment" / "readings.txt").read_text()
    assert (entry.reference_dir / "verifier" / "test.sh").read_bytes() == (task / "tests" / "test.sh").read_bytes()
    assert (entry.reference_dir / "solution" / "harbor" / "solve.sh").is_file()
    environment_build, layer_build = docker.builds()
    assert environment_build[-1] == str(task / "environment") and layer_build[3] == spec.image


def test_the_layer_links_workdir_tests_and_logs_into_the_working_folder(task: Path, tmp_path: Path) -> None:
    from cmb.integrations._harbor_load import _layer

    text = _layer("base:1", "/app", "sum")
    assert "ln -s /workspace/work /app" in text
    assert "ln -s /workspace/work/.verifier/tests /tests" in text and "/workspace/work/.verifier/logs /logs" in text
    assert "ln -s /workspace/work /workspace" not in _layer("base:1", "/workspace", "exported")


def test_materialized_once_per_content(task: Path, tmp_path: Path) -> None:
    docker = FakeDocker(task / "environment")
    first = harbor_entry(task, tmp_path / "cache", docker)
    again = harbor_entry(task, tmp_path / "cache", docker)
    assert again.root == first.root and len(docker.builds()) == 2  # the environment and cmb's layer, once
    (task / "instruction.md").write_text("Write the sum of the readings to /app/sum.txt.\n")
    changed = harbor_entry(task, tmp_path / "cache", docker)
    assert changed.root != first.root and len(docker.builds()) == 4


def test_a_dataset_folder_gives_each_of_its_tasks(task: Path, tmp_path: Path) -> None:
    dataset = tmp_path / "dataset"
    dataset.mkdir()
    shutil.move(task, dataset / "a-task")
    shutil.copytree(dataset / "a-task", dataset / "b-task")
    entries = harbor_entries(dataset, tmp_path / "cache", FakeDocker(dataset / "a-task" / "environment"))
    assert [e.id for e in entries] == ["harbor-a-task", "harbor-b-task"]


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda t: (t / "environment" / "Dockerfile").unlink(), "environment is a Dockerfile"),
        (lambda t: (t / "tests" / "test.sh").unlink(), "no tests/test.sh"),
        (lambda t: (t / "task.toml").write_text("[agent\n"), "task.toml"),
        (
            lambda t: (t / "environment" / "docker-compose.yaml").write_text(
                "services:\n  main: {}\n  db: {image: postgres}\n"
            ),
            "services besides main (db)",
        ),
        (lambda t: (t / "instruction.md").unlink(), "not a Harbor task folder"),
    ],
)
def test_what_cmb_cannot_run_is_refused_with_the_reason(task: Path, tmp_path: Path, damage, message: str) -> None:
    damage(task)
    with pytest.raises(HarborTaskError, match=re.escape(message)):
        harbor_entry(task, tmp_path / "cache", FakeDocker(task / "environment"))


@pytest.mark.parametrize(("workdir", "message"), [("/", "WORKDIR is /"), ("/workspace/app", "inside cmb's")])
def test_a_workdir_cmb_cannot_give_is_refused(task: Path, tmp_path: Path, workdir: str, message: str) -> None:
    with pytest.raises(HarborTaskError, match=message):
        harbor_entry(task, tmp_path / "cache", FakeDocker(task / "environment", workdir))


def test_selectors_name_harbor_folders(task: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import cmb.integrations._harbor_load as loader

    monkeypatch.setattr(loader, "default_cache", lambda: tmp_path / "cache")
    monkeypatch.setattr(loader, "docker_cli", FakeDocker(task / "environment"))
    catalog = Catalog.load(ROOT)
    assert find_task(catalog, str(task)).id == "harbor-sum-readings"
    chosen = select_tasks(catalog, ["si-eos-analysis", f"harbor:{task}"])
    assert [e.id for e in chosen] == ["si-eos-analysis", "harbor-sum-readings"]
    with pytest.raises(LaunchError, match="not a Harbor task folder"):
        select_tasks(catalog, [f"harbor:{tmp_path / 'nothing-here'}"])


def _verdict(tmp_path: Path, reward_file: str | None, content: str = "") -> dict:
    """Run the verifier command's reward reading in a folder with no /tests: what it makes of each reward file."""
    work = tmp_path / "work"
    logs = work / VERIFIER_DIR / "logs" / "verifier"
    logs.mkdir(parents=True)
    if reward_file is not None:
        (logs / reward_file).write_text(content)
    subprocess.run(["bash", "-c", _VERIFY.replace("/tests/test.sh", "/nonexistent/test.sh")], cwd=work, check=False)
    return json.loads((work / VERDICT).read_text())


@pytest.mark.parametrize(
    ("reward_file", "content", "reward"),
    [("reward.txt", "1\n", 1.0), ("reward.txt", "0.5", 0.5), ("reward.json", '{"reward": 1, "speed": 3}', 1.0)],
)
def test_the_reward_is_read_as_harbor_writes_it(tmp_path: Path, reward_file: str, content: str, reward: float) -> None:
    assert _verdict(tmp_path, reward_file, content)["reward"] == reward


@pytest.mark.parametrize(
    ("reward_file", "content"), [(None, ""), ("reward.txt", "nan"), ("reward.txt", "yes"), ("reward.json", "[]")]
)
def test_a_missing_or_unreadable_reward_fails_the_grade(
    task: Path, tmp_path: Path, reward_file: str | None, content: str
) -> None:
    verdict = _verdict(tmp_path, reward_file, content)
    assert "reward" not in verdict and verdict["test_exit"] != 0
    entry = harbor_entry(task, tmp_path / "cache", FakeDocker(task / "environment"))
    report = grade(entry.grader(), entry.reference(), tmp_path / "work", entry.reference_dir)
    assert not report.passed and report.failure_category is not None


def test_a_reward_just_under_one_fails(task: Path, tmp_path: Path) -> None:
    entry = harbor_entry(task, tmp_path / "cache", FakeDocker(task / "environment"))
    for reward, passed in ((1.0, True), (0.999999, False)):
        (tmp_path / "sub" / VERIFIER_DIR).mkdir(parents=True, exist_ok=True)
        (tmp_path / "sub" / VERDICT).write_text(json.dumps({"reward": reward}))
        assert grade(entry.grader(), entry.reference(), tmp_path / "sub", entry.reference_dir).passed is passed


def test_a_harbor_task_needs_a_backend_that_runs_images(task: Path, tmp_path: Path) -> None:
    from cmb.models import AttemptOptions
    from cmb.runner import prepare

    entry = harbor_entry(task, tmp_path / "cache", FakeDocker(task / "environment"))
    key = RunKey(sweep="s", agent="oracle", task=entry.id, condition=Condition.SF, trial=0)
    with pytest.raises(LaunchError, match="runs no images"):
        prepare(key, entry, AttemptOptions(backend="local"), CmbSettings())


# ----------------------------------------------------------------------------------- on the Docker engine


def _docker_missing() -> str | None:
    if shutil.which("docker") is None or subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
        return "no Docker engine answers"
    if subprocess.run(["docker", "image", "inspect", "cmb-agent:slim"], capture_output=True).returncode != 0:
        return "no cmb-agent:slim image (deploy/image/build-local.sh slim), which the test task builds on"
    return None


@pytest.fixture
def docker_engine() -> None:
    if reason := _docker_missing():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)


def _cli(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CMB_HOME": str(home), "XDG_CACHE_HOME": str(home / "cache")}
    return subprocess.run(["cmb", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.docker
def test_cmb_run_passes_the_oracle_and_fails_the_null(docker_engine: None, task: Path, tmp_path: Path) -> None:
    oracle = _cli(["run", str(task), "--agent", "oracle", "--backend", "docker", "--json"], tmp_path)
    assert oracle.returncode == 0, oracle.stderr[-2000:]
    record = json.loads(oracle.stdout)
    assert record["passed"] and record["key"]["task"] == "harbor-sum-readings"
    null = _cli(["run", f"harbor:{task}", "--agent", "null", "--backend", "docker", "--json"], tmp_path)
    assert null.returncode == 1, null.stderr[-2000:]
    assert json.loads(null.stdout)["failure_class"] == "scientific"


@pytest.mark.docker
def test_what_the_agent_leaves_for_the_verifier_is_not_its_verdict(
    docker_engine: None, task: Path, tmp_path: Path
) -> None:
    """An agent that writes the verifier's outputs and tests itself fails; one that does the task at /app passes."""
    entry = harbor_entry(task, tmp_path / "cache")
    backend = get_backend("docker").configured(CmbSettings())
    opts = RunOptions(home=tmp_path / "home", cpus=min(2.0, float(os.cpu_count() or 1)))
    cheat = ReplayAgent(
        steps=[
            WriteFile(path=VERDICT, content='{"reward": 1.0}'),
            WriteFile(path=f"{VERIFIER_DIR}/logs/verifier/reward.txt", content="1\n"),
            WriteFile(path=f"{VERIFIER_DIR}/tests/test.sh", content="echo 1 > /logs/verifier/reward.txt\n"),
            # Modules a Python verifier might import from the working folder or from the agent's home.
            WriteFile(path="json.py", content=FORGE),
            Run(shell='mkdir -p "$HOME/.local/lib/python3.11/site-packages"'),
            Run(shell='cp json.py "$HOME/.local/lib/python3.11/site-packages/usercustomize.py"'),
            Run(shell="echo 60 > /app/sum.txt"),
        ]
    )
    key = RunKey(sweep="t", agent="replay", task=entry.id, condition=Condition.SF, trial=0)
    record = run_attempt(key, entry, cheat, backend, opts)
    assert not record.passed and record.failure_class is not None and record.failure_class.value == "scientific"
    honest = ReplayAgent(steps=[Run(shell="awk '{s += $1} END {print s}' /app/readings.txt > /app/sum.txt")])
    record = run_attempt(key.model_copy(update={"trial": 1}), entry, honest, backend, opts)
    assert record.passed, record.grade
    log = (tmp_path / "home" / "artifacts" / "t").glob("*/verifier.log")
    assert any("exit 0" in p.read_text() for p in log)


@pytest.mark.docker
@pytest.mark.ray
@pytest.mark.slow
def test_a_sweep_over_a_harbor_task_lands_in_the_store_and_the_tables(
    docker_engine: None, task: Path, tmp_path: Path
) -> None:
    sweep = _cli(
        ["sweep", "--agents", "oracle,null", "--tasks", f"harbor:{task}", "--conditions", "SF", "--trials", "2"]
        + ["--sweep-id", "harbor", "--backend", "docker"],
        tmp_path,
    )
    assert sweep.returncode == 0, (sweep.stdout + sweep.stderr)[-3000:]
    table = _cli(["results", "harbor", "--json"], tmp_path)
    assert table.returncode == 0, table.stderr[-2000:]
    rows = {r["agent"]: r for r in json.loads(table.stdout)["rows"]}
    assert (rows["oracle"]["attempts"], rows["oracle"]["passes"]) == (2, 2)
    assert (rows["null"]["attempts"], rows["null"]["passes"]) == (2, 0)
    assert rows["oracle"]["by_kind"]["run-and-analyze"]["pass_rate"] == 1.0
    assert rows["oracle"]["compute_cost_usd"] > 0  # metered by the docker sandbox


@pytest.mark.docker
@pytest.mark.slow
def test_a_task_cmb_exported_runs_back_through_cmb(docker_engine: None, tmp_path: Path) -> None:
    """cmb -> Harbor -> cmb: the exported folder of a cmb task, run as a Harbor task, passes its oracle."""
    if subprocess.run(["docker", "image", "inspect", "cmb-agent:full"], capture_output=True).returncode != 0:
        pytest.skip("no cmb-agent:full image")
    folder = export_task(CATALOG.get("si-eos-analysis"), Condition.SF, tmp_path / "exported")
    oracle = _cli(["run", str(folder), "--agent", "oracle", "--backend", "docker", "--json"], tmp_path)
    assert oracle.returncode == 0, oracle.stderr[-2000:]
    assert json.loads(oracle.stdout)["passed"]
    assert yaml.safe_load((folder / "tests" / "grader.yaml").read_text())["task"] == "si-eos-analysis"
