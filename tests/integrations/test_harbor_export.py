"""cmb tasks as Harbor task folders: the layout, what stays hidden, the verifier's verdict, and Harbor's own runner."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from cmb.catalog import PROMPT_NAME
from cmb.cli import cli
from cmb.integrations.harbor import export_task, folder_name
from cmb.models import Condition
from cmb.settings import DEFAULT_IMAGE
from tests.harbor_atif import harbor_cli, require_harbor
from tests.tasks._helpers import CATALOG, ROOT, grade_dir, run_oracle

TASK = "si-eos-analysis"  # a fast oracle (< 1 s); its grader has format and numeric checks


def _export(tmp_path: Path, task: str = TASK, condition: Condition = Condition.SF) -> Path:
    return export_task(CATALOG.get(task), condition, tmp_path / "harbor")


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def _verify(folder: Path, work: Path, logs: Path) -> tuple[str, dict]:
    """Run the exported verifier as Harbor runs it (python3 -I), on `work`; return the reward and the report."""
    env = {**os.environ, "CMB_WORKSPACE": str(work), "CMB_VERIFIER_LOGS": str(logs)}
    done = subprocess.run(
        ["python3", "-I", str(folder / "tests" / "verify.py")], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return (logs / "reward.txt").read_text().strip(), json.loads((logs / "cmb-report.json").read_text())


def test_layout_and_task_config(tmp_path: Path) -> None:
    entry = CATALOG.get(TASK)
    folder = _export(tmp_path, condition=Condition.SR)
    assert folder.name == folder_name(entry, Condition.SR) == f"{TASK}-sr"
    assert (folder / "instruction.md").read_text() == entry.prompt(Condition.SR)
    config = tomllib.loads((folder / "task.toml").read_text())
    profile = entry.profile()
    assert config["agent"]["timeout_sec"] == profile.time_limit_s
    assert config["environment"]["cpus"] == profile.cpus
    assert config["environment"]["memory_mb"] == round(profile.memory_gib * 1024)
    assert config["environment"]["storage_mb"] == round(profile.disk_gib * 1024)
    assert config["verifier"]["environment_mode"] == "separate"
    assert config["artifacts"] == [f"/workspace/{rel}" for rel in entry.spec.answer_files]
    assert config["metadata"]["cmb_task"] == TASK and config["metadata"]["cmb_condition"] == "SR"
    assert config["metadata"]["codes"] == entry.spec.codes
    assert config["metadata"]["required_codes"] == entry.spec.required_codes
    assert (folder / "environment" / "Dockerfile").read_text().startswith("# The cmb agent image")
    assert f"FROM {DEFAULT_IMAGE}\n" in (folder / "environment" / "Dockerfile").read_text()
    assert "network_mode: none" in (folder / "environment" / "docker-compose.yaml").read_text()
    for script in ("solution/solve.sh", "tests/test.sh"):
        assert os.access(folder / script, os.X_OK), script
    assert (folder / "tests" / "lib" / "cmb" / "grading" / "__init__.py").is_file()


def test_the_agent_sees_the_bundle_and_nothing_of_the_reference(tmp_path: Path) -> None:
    """Outside tests/ (copied in only for the verifier) and solution/ (the oracle's), only the bundle."""
    entry = CATALOG.get(TASK)
    folder = _export(tmp_path)
    visible = {f for f in _files(folder) if not f.startswith(("tests/", "solution/"))}
    bundle = {f"environment/workspace/{rel}" for rel in [PROMPT_NAME, *entry.spec.workspace]}
    own = {"instruction.md", "task.toml", "environment/Dockerfile", "environment/docker-compose.yaml"}
    assert visible == own | bundle
    reference = (entry.reference_dir / "reference.yaml").read_bytes()
    assert (folder / "tests" / "reference" / "reference.yaml").read_bytes() == reference
    assert all(reference not in (folder / f).read_bytes() for f in visible)
    hidden = {"QC.md", "recall.yaml", "fairness.yaml", "solution", "reproduce"}
    assert not hidden & {p.name for p in (folder / "tests" / "reference").iterdir()}


def test_the_verifier_gives_cmb_grade_s_verdict(tmp_path: Path) -> None:
    folder = _export(tmp_path)
    work = run_oracle(TASK, tmp_path / "work")
    reward, report = _verify(folder, work, tmp_path / "logs-oracle")
    expected = grade_dir(TASK, work)
    assert reward == "1" and report["passed"] is True
    assert report["grader_hash"] == expected.grader_hash
    assert [(c["id"], c["passed"]) for c in report["checks"]] == [(c.id, c.passed) for c in expected.checks]

    empty = tmp_path / "empty"
    empty.mkdir()
    reward, report = _verify(folder, empty, tmp_path / "logs-null")
    assert reward == "0" and report["failure_category"] == "format"


def test_the_verifier_refuses_a_linked_answer(tmp_path: Path) -> None:
    folder = _export(tmp_path)
    work = run_oracle(TASK, tmp_path / "work")
    answers = tmp_path / "elsewhere"
    answers.mkdir()
    for rel in CATALOG.get(TASK).spec.answer_files:
        shutil.move(work / rel, answers / rel)
        (work / rel).symlink_to(answers / rel)
    reward, report = _verify(folder, work, tmp_path / "logs")
    assert reward == "0"
    assert report["not_collected"] and "symlink" in report["not_collected"][0]


def test_every_task_and_condition_exports(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--root", str(ROOT), "tasks", "export", "--out", str(tmp_path / "all")])
    assert result.exit_code == 0, result.output
    expected = {folder_name(e, c) for e in CATALOG.entries.values() for c in e.conditions()}
    assert {p.name for p in (tmp_path / "all").iterdir()} == expected
    for name in expected:
        folder = tmp_path / "all" / name
        assert {"instruction.md", "task.toml", "solution/solve.sh", "tests/grader.yaml"} <= _files(folder), name


def test_export_errors_are_plain(tmp_path: Path) -> None:
    runner = CliRunner()
    unknown = runner.invoke(cli, ["--root", str(ROOT), "tasks", "export", "--out", str(tmp_path), "no-such-task"])
    assert unknown.exit_code == 1 and "no task 'no-such-task'" in unknown.output
    bad = runner.invoke(cli, ["--root", str(ROOT), "tasks", "export", "--out", str(tmp_path), "--conditions", "XX"])
    assert bad.exit_code == 2 and "--conditions" in bad.output
    with pytest.raises(ValueError, match="runs under SF, SR"):
        export_task(CATALOG.get(TASK), Condition.WF, tmp_path)


def test_harbor_reads_the_task_and_lints_it_clean(tmp_path: Path) -> None:
    """Harbor's own task model loads the folder, and `harbor lint` finds nothing.

    invalid-task-config is left out: it runs `docker compose config --no-env-resolution`, a flag newer than the
    Compose of Debian (2.26); `docker compose config` itself loads the file (checked here)."""
    python = require_harbor("read task folders with")
    folder = _export(tmp_path)
    load = "import sys; from harbor.models.task.task import Task; print(Task(sys.argv[1]).config.agent.timeout_sec)"
    done = subprocess.run([str(python), "-c", load, str(folder)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert float(done.stdout.strip()) == CATALOG.get(TASK).profile().time_limit_s
    lint = subprocess.run(
        [str(harbor_cli()), "lint", "--ignore", "invalid-task-config", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert lint.returncode == 0 and not lint.stdout.strip(), lint.stdout + lint.stderr
    if shutil.which("docker") is not None:
        compose = subprocess.run(
            ["docker", "compose", "-f", "docker-compose.yaml", "config"],
            cwd=folder / "environment",
            capture_output=True,
            text=True,
            timeout=60,
        )
        if compose.returncode == 0 or "unknown command" not in compose.stderr:
            assert compose.returncode == 0, compose.stderr


def _harbor_trial(folder: Path, agent: str, trials: Path) -> dict:
    """One `harbor trial start` on Harbor's docker environment; the trial's result.json."""
    cpus = min(folder_cpus(folder), os.cpu_count() or 1)  # the engine refuses more CPUs than the host has
    done = subprocess.run(
        [str(harbor_cli()), "trial", "start", "-p", str(folder), "-a", agent, "-e", "docker"]
        + ["--trials-dir", str(trials), "--override-cpus", str(cpus)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    (result,) = [p for p in trials.glob("*/result.json") if json.loads(p.read_text())["agent_info"]["name"] == agent]
    return json.loads(result.read_text())


def folder_cpus(folder: Path) -> float:
    return float(tomllib.loads((folder / "task.toml").read_text())["environment"]["cpus"])


def _docker_compose_missing() -> str | None:
    if shutil.which("docker") is None:
        return "no docker client"
    if subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
        return "no Docker engine answers"
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode != 0:
        return "Harbor's docker environment needs docker compose (v2); scripts/setup.sh installs it"
    probe = ["docker", "run", "--rm", "--network", "none", DEFAULT_IMAGE, "python3", "-c", "import pydantic, yaml"]
    if subprocess.run(probe, capture_output=True).returncode != 0:
        return f"{DEFAULT_IMAGE} lacks cmb's grading libraries (deploy/image/build-local.sh full)"
    return None


# An output analysis and an input preparation graded statically: two kinds, two grader families.
@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("task", [TASK, "crn-ldau-vasp-inputs"])
def test_oracle_passes_and_null_fails_in_harbor_s_runner(tmp_path: Path, task: str) -> None:
    if reason := _docker_compose_missing():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    folder = _export(tmp_path, task)
    oracle = _harbor_trial(folder, "oracle", tmp_path / "trials")
    assert oracle["exception_info"] is None, oracle["exception_info"]
    assert oracle["verifier_result"]["rewards"] == {"reward": 1.0}
    null = _harbor_trial(folder, "nop", tmp_path / "trials")
    assert null["verifier_result"]["rewards"] == {"reward": 0.0}
    report = json.loads(next((tmp_path / "trials").glob("*/verifier/cmb-report.json")).read_text())
    assert report["task_id"] == task
