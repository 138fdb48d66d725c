"""cmb tasks as Inspect AI tasks: what the sandbox gets, how it is graded, and that the verdict is cmb's own."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, EvalSample, list_eval_logs, read_eval_log
from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model
from inspect_ai.solver import Generate, Solver, TaskState, chain, solver
from inspect_ai.util import ComposeConfig, sandbox

from cmb.catalog import PROMPT_NAME, stage_bundle
from cmb.integrations.inspect import (
    build_task,
    cmb_oracle,
    compose_config,
    compose_yaml,
    sample_files,
    suite_tasks,
)
from cmb.models import DEFAULT_PROFILES
from cmb.settings import DEFAULT_IMAGE
from tests.tasks._helpers import CATALOG, ROOT, grade_dir, run_oracle

# Fast oracles of the three kinds: input preparation (~4 s, run twice), output analysis and run-and-analyze (< 1 s).
ORACLE_TASKS = [pytest.param("si-pw-scf-inputs", marks=pytest.mark.slow), "si-eos-analysis", "landau-transition-fit"]
PAIRS = [(e, c) for e in CATALOG.entries.values() for c in e.conditions()]


def mock_model() -> Model:
    """mockllm/model, answering in words only; the usage is given so Inspect never fetches a tokenizer (offline)."""

    def outputs() -> Iterator[ModelOutput]:
        while True:
            out = ModelOutput.from_content("mockllm/model", "I will not write any file.")
            out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
            yield out

    return get_model("mockllm/model", custom_outputs=outputs())


def run_eval(task: object, tmp_path: Path, **kwargs: object) -> EvalSample:
    logs: list[EvalLog] = inspect_eval(
        task, model=mock_model(), log_dir=str(tmp_path / "logs"), display="none", **kwargs
    )
    assert len(logs) == 1 and logs[0].status == "success", logs[0].error
    assert logs[0].samples is not None and len(logs[0].samples) == 1
    return logs[0].samples[0]


# ------------------------------------------------------------------------------------------------ what the agent sees


def test_staged_files_are_the_bundle_and_nothing_hidden() -> None:
    hidden = (ROOT / "references", ROOT / "graders")
    for entry, condition in PAIRS:
        files = sample_files(entry, condition)
        assert set(files) == {PROMPT_NAME, *entry.spec.workspace}, entry.id
        prompt = files[PROMPT_NAME].removeprefix("data:text/markdown;base64,")
        assert base64.b64decode(prompt).decode("utf-8") == entry.prompt(condition)
        for rel in entry.spec.workspace:
            path = Path(files[rel])
            assert path == (entry.workspace_dir / rel).resolve()
            assert not any(path.is_relative_to(h.resolve()) for h in hidden), (entry.id, rel)


def test_staged_names_match_stage_bundle(tmp_path: Path) -> None:
    entry = CATALOG.get("si-eos-analysis")
    written = stage_bundle(entry, entry.conditions()[0], tmp_path)
    assert {p.relative_to(tmp_path).as_posix() for p in written} == set(sample_files(entry, entry.conditions()[0]))


def test_every_task_and_condition_builds() -> None:
    tasks = suite_tasks()
    assert len(tasks) == len(PAIRS)
    for task, (entry, condition) in zip(tasks, PAIRS, strict=True):
        (sample,) = list(task.dataset)
        assert sample.id == f"{entry.id}/{condition.value}"
        assert sample.input == entry.prompt(condition)
        assert sample.metadata is not None and sample.metadata["cmb_task"] == entry.id
        assert task.name == f"cmb_{entry.id}_{condition.value}"
        assert task.time_limit == (entry.spec.time_limit_s or DEFAULT_PROFILES[entry.spec.resources].time_limit_s)
        assert task.sandbox is not None and task.sandbox.type == "local"
    assert {t.name for t in suite_tasks(["study:si-first-principles"], conditions=["SR", "WR"])} == {
        f"cmb_{e.id}_{'WR' if e.is_workflow else 'SR'}" for e in CATALOG.study_entries("si-first-principles")
    }


def test_the_default_condition_is_full_guidance_and_the_other_kind_is_refused() -> None:
    assert build_task("si-eos-analysis").name == "cmb_si-eos-analysis_SF"
    assert build_task("si-first-principles-workflow").name == "cmb_si-first-principles-workflow_WF"
    assert build_task("si-eos-analysis", "sr").name == "cmb_si-eos-analysis_SR"
    with pytest.raises(ValueError, match="runs under SF, SR"):
        build_task("si-eos-analysis", "WF")
    with pytest.raises(ValueError, match="unknown condition"):
        build_task("si-eos-analysis", "XX")


@solver
def list_files() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        listing = await sandbox().exec(["find", ".", "-type", "f"])
        state.metadata["listing"] = sorted(p.removeprefix("./") for p in listing.stdout.split())
        state.metadata["prompt"] = await sandbox().read_file(PROMPT_NAME)
        return state

    return solve


def test_the_local_sandbox_holds_exactly_the_bundle(tmp_path: Path) -> None:
    entry = CATALOG.get("si-eos-analysis")
    sample = run_eval(build_task(entry.id, "SR", solver=list_files()), tmp_path)
    assert sample.metadata["listing"] == sorted([PROMPT_NAME, *entry.spec.workspace])
    assert sample.metadata["prompt"] == entry.prompt(entry.conditions()[1])


# ------------------------------------------------------------------------------------------------ sandbox limits


def test_docker_sandbox_carries_the_resource_profile(tmp_path: Path) -> None:
    for task_id in ("si-eos-analysis", "si-first-principles-workflow"):
        entry = CATALOG.get(task_id)
        profile = DEFAULT_PROFILES[entry.spec.resources]
        service = compose_config(entry).services["default"]
        assert service.image == DEFAULT_IMAGE and service.network_mode == "none"
        assert service.cpus == profile.cpus and service.pids_limit == profile.pids
        assert service.mem_limit == f"{round(profile.memory_gib * 1024)}m"
        doc = yaml.safe_load(compose_yaml(entry, image="cmb-agent:slim"))
        assert doc["services"]["default"]["image"] == "cmb-agent:slim"
        assert doc["services"]["default"]["x-default"] is True
        assert ComposeConfig.model_validate(doc) == compose_config(entry, image="cmb-agent:slim")
    task = build_task("si-eos-analysis", sandbox="docker")
    assert task.sandbox is not None and task.sandbox.type == "docker"
    assert isinstance(task.sandbox.config, ComposeConfig)


# ------------------------------------------------------------------------------------------------ grading


def test_inspect_agent_with_the_mock_model_is_graded(tmp_path: Path) -> None:
    entry = CATALOG.get("si-pw-scf-inputs")
    sample = run_eval(build_task(entry.id), tmp_path, message_limit=6)
    score = sample.scores["cmb_scorer"]
    assert score.value == 0
    assert score.metadata is not None and score.metadata["passed"] is False
    assert score.metadata["failure_category"] == "format"
    checks = score.metadata["checks"]
    assert [c["id"] for c in checks] == [c.id for c in entry.grader().checks]
    assert all(set(c) == {"id", "passed", "message", "category"} and not c["passed"] for c in checks)
    assert "not found" in checks[0]["message"]


@pytest.mark.parametrize("task_id", ORACLE_TASKS)
def test_oracle_through_inspect_gets_cmb_verdict(task_id: str, tmp_path: Path) -> None:
    sample = run_eval(build_task(task_id, solver=cmb_oracle()), tmp_path)
    assert sample.metadata["cmb_oracle"]["returncode"] == 0, sample.metadata["cmb_oracle"]
    score = sample.scores["cmb_scorer"]
    assert score.metadata is not None
    through_inspect = (score.metadata["passed"], score.value, {c["id"]: c["passed"] for c in score.metadata["checks"]})
    report = grade_dir(task_id, run_oracle(task_id, tmp_path / "oracle"))  # cmb's own grading, outside Inspect
    assert through_inspect == (report.passed, report.score, {c.id: c.passed for c in report.checks})
    assert report.passed and score.answer.startswith("passed")


@solver
def link_the_answer() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        await sandbox().exec(["bash", "-c", "mv answer.json real.json && ln -s real.json answer.json"])
        return state

    return solve


def test_a_linked_answer_file_is_not_collected(tmp_path: Path) -> None:
    sample = run_eval(build_task("si-eos-analysis", solver=chain(cmb_oracle(), link_the_answer())), tmp_path)
    score = sample.scores["cmb_scorer"]
    assert score.metadata is not None and not score.metadata["passed"]
    assert score.metadata["not_collected"] == ["answer.json: a symlink, not collected"]


@pytest.mark.slow
def test_inspect_eval_command_line(tmp_path: Path) -> None:
    """The registered task, loaded from its file as `inspect eval` loads it, with its -T arguments."""
    inspect = shutil.which("inspect")
    assert inspect is not None
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.run(
        [inspect, "eval", "cmb/integrations/inspect.py@cmb_task", "-T", "task=si-eos-analysis", "-T", "condition=SR"]
        + ["-T", "oracle=true", "--model", "mockllm/model", "--log-dir", str(tmp_path), "--display", "none"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (info,) = list_eval_logs(str(tmp_path))
    log = read_eval_log(info)
    assert log.eval.task_args["task"] == "si-eos-analysis" and log.eval.task_args["oracle"] is True
    assert log.samples is not None and log.samples[0].id == "si-eos-analysis/SR"
    assert log.results is not None and log.results.scores[0].metrics["pass_rate"].value == 1.0


def _docker_sandbox_missing() -> str | None:
    """Why Inspect's docker sandbox cannot run here (it needs Docker Engine >= 24.0.6 and compose), or None."""
    if shutil.which("docker") is None:
        return "no docker client"
    server = subprocess.run(["docker", "version", "--format", "{{.Server.Version}}"], capture_output=True, text=True)
    version = tuple(int(p) for p in server.stdout.strip().split("+")[0].split("-")[0].split(".")[:3] if p.isdigit())
    if server.returncode != 0 or version < (24, 0, 6):
        return f"Inspect's docker sandbox needs Docker Engine >= 24.0.6, not {server.stdout.strip() or 'none'}"
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode != 0:
        return "Inspect's docker sandbox needs docker compose"
    if subprocess.run(["docker", "image", "inspect", DEFAULT_IMAGE], capture_output=True).returncode != 0:
        return f"no {DEFAULT_IMAGE} image (deploy/image/build-local.sh full)"
    return None


@pytest.mark.docker
@pytest.mark.slow
def test_oracle_in_the_docker_sandbox(tmp_path: Path) -> None:
    if reason := _docker_sandbox_missing():
        pytest.skip(reason)
    sample = run_eval(build_task("si-eos-analysis", sandbox="docker", solver=cmb_oracle()), tmp_path)
    assert sample.metadata["cmb_oracle"]["returncode"] == 0, sample.metadata["cmb_oracle"]
    assert sample.scores["cmb_scorer"].value == 1.0
