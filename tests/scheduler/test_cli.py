"""`cmb sweep`, `cmb mlflow-sync` and `cmb compact` from the command line (threads executor: no Ray here)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from click.testing import CliRunner

from cmb.cli._main import cli
from cmb.models import SweepSpec
from cmb.scheduler._submit import SPEC_NAME, submit_sweep
from cmb.store import ParquetStore
from tests.scheduler.fakes import make_suite

FAKE = "tests.scheduler.fakes:fake_attempt"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, Any]:
    suite = make_suite(tmp_path / "suite")
    home = tmp_path / "home"
    return {"suite": suite, "home": home, "log": f"log_dir={tmp_path / 'launches'}"}


def run(env: dict[str, Any], *args: str) -> Any:
    argv = ["--root", str(env["suite"]), *args]
    return CliRunner().invoke(cli, argv, env={"CMB_HOME": str(env["home"])}, catch_exceptions=False)


def sweep(env: dict[str, Any], *args: str) -> Any:
    return run(env, "sweep", "--executor", "threads", "--attempt-fn", FAKE, "--attempt-option", env["log"],
               "--mlflow-uri", "none", "--no-progress", *args)  # fmt: skip


def test_every_sweep_option_is_documented() -> None:
    command = cli.commands["sweep"]
    options = [p for p in command.params if isinstance(p, click.Option)]
    assert len(options) >= 20 and all(p.help for p in options)
    names = {n for p in options for n in p.opts}
    for flag in ("--agents", "--tasks", "--conditions", "--trials", "--backend", "--sweep-id", "--resume",
                 "--address", "--mlflow-uri", "--submit"):  # fmt: skip
        assert flag in names


def test_dry_run_prints_the_plan(env: dict[str, Any]) -> None:
    res = run(env, "sweep", "--agents", "oracle", "--tasks", "study:alpha", "--conditions", "SF,WF", "--trials",
              "2", "--sweep-id", "dry", "--dry-run")  # fmt: skip
    assert res.exit_code == 0, res.output
    lines = [line for line in res.stdout.splitlines() if line.startswith("dry/")]
    assert len(lines) == (2 + 1) * 2 and lines[0].startswith("dry/oracle/wf-alpha/WF/0")
    assert not (env["home"] / "sweeps").exists()


def test_sweep_then_resume_from_the_stored_spec(env: dict[str, Any]) -> None:
    res = sweep(env, "--agents", "oracle,null", "--conditions", "SF,SR", "--trials", "2", "--sweep-id", "c1", "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout.strip().splitlines()[-1])
    assert (summary["done"], summary["total"], summary["pass_rate"]) == (24, 24, 0.5)
    assert ParquetStore(env["home"] / "results").runs("c1").height == 24

    again = sweep(env, "--agents", "oracle,null", "--conditions", "SF,SR", "--trials", "2", "--sweep-id", "c1")
    assert again.exit_code == 1 and "--resume" in again.output
    changed = sweep(env, "--agents", "oracle", "--conditions", "SF,SR", "--trials", "2", "--sweep-id", "c1",
                    "--resume")  # fmt: skip
    assert changed.exit_code == 1 and "spec changed" in changed.output
    resumed = sweep(env, "--sweep-id", "c1", "--resume", "--json")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout.strip().splitlines()[-1])["skipped"] == 24


def test_sweep_from_a_yaml_spec_with_a_flag_override(env: dict[str, Any], tmp_path: Path) -> None:
    spec_file = tmp_path / "s.yaml"
    spec_file.write_text("name: fromfile\nagents: [oracle]\ntasks: [t-one]\nconditions: [SF]\ntrials: 5\n")
    res = sweep(env, str(spec_file), "--trials", "2", "--json")
    assert res.exit_code == 0, res.output
    assert ParquetStore(env["home"] / "results").runs("fromfile").height == 2


def test_compact_and_mlflow_sync(env: dict[str, Any]) -> None:
    assert sweep(env, "--agents", "oracle", "--trials", "3", "--sweep-id", "c2").exit_code == 0
    store = ParquetStore(env["home"] / "results")
    # a launcher writes the records that finish together as one batch file: how many files depends on timing
    written = len(store.files("runs", "c2"))
    assert 1 <= written <= 9
    res = run(env, "compact", "c2")
    assert res.exit_code == 0 and f"{written} files -> 1, 9 attempts" in res.output
    assert len(store.files("runs", "c2")) == 1 and store.runs("c2").height == 9
    missing = run(env, "mlflow-sync", "nope")
    assert missing.exit_code == 1 and "no results" in missing.output


class FakeJobClient:
    """Stands in for ray.job_submission.JobSubmissionClient."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.submitted: dict[str, Any] = {}
        self.polls = 0

    def submit_job(self, **kw: Any) -> str:
        self.submitted = kw
        self.spec = yaml.safe_load((Path(kw["runtime_env"]["working_dir"]) / SPEC_NAME).read_text())
        return "raysubmit_1"

    def get_job_status(self, job_id: str) -> str:
        self.polls += 1
        return "RUNNING" if self.polls < 3 else "SUCCEEDED"

    def get_job_logs(self, job_id: str) -> str:
        return "line 1\n" if self.polls < 2 else "line 1\nline 2\n"


def test_submission_as_a_ray_job(tmp_path: Path) -> None:
    import io

    made: list[FakeJobClient] = []

    def factory(address: str) -> FakeJobClient:
        made.append(FakeJobClient(address))
        return made[-1]

    spec = SweepSpec(name="remote", agents=["oracle"], trials=2, backend="kubernetes")
    out = io.StringIO()
    job_id, status = submit_sweep(spec, "http://head:8265", extra_args=["--resume"], client_factory=factory,
                                  stream=out, poll_s=0)  # fmt: skip
    client = made[0]
    assert (job_id, status, client.address) == ("raysubmit_1", "SUCCEEDED", "http://head:8265")
    assert client.submitted["entrypoint"] == "cmb sweep sweep.yaml --executor ray --resume"
    assert SweepSpec.model_validate(client.spec) == spec
    assert client.submitted["metadata"]["cmb.spec_hash"] == spec.spec_hash()
    assert out.getvalue().endswith("line 1\nline 2\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agents", "oracle,null,nobody"], "unknown agent 'nobody'"),
        (["--agents", "oracle", "--tasks", "t-one,t-four"], "unknown task 't-four'"),
        (["--agents", "oracle", "--tasks", "study:gamma"], "unknown study 'gamma'"),
        (["--agents", "oracle", "--conditions", "SF,XX"], "unknown condition 'XX'"),
        (["--agents", "oracle", "--backend", "nowhere"], "'nowhere' is not one of 'auto', 'docker', 'kubernetes'"),
    ],
)
def test_unknown_names_are_refused_before_any_attempt_or_ray_starts(
    env: dict[str, Any], args: list[str], message: str
) -> None:
    res = run(env, "sweep", *args, "--sweep-id", "bad", "--mlflow-uri", "none", "--no-progress")  # the real runner
    assert res.exit_code == 2 and message in res.output, res.output
    assert not (env["home"] / "sweeps").exists() and not (env["home"] / "results").exists()
    import sys

    assert "ray" not in sys.modules or not sys.modules["ray"].is_initialized()


def test_the_refusal_lists_the_known_agents_and_applies_to_spec_files(env: dict[str, Any], tmp_path: Path) -> None:
    spec_file = tmp_path / "s.yaml"
    spec_file.write_text("name: fromfile\nagents: [oracle, orcale]\ntasks: [t-one]\n")
    res = run(env, "sweep", str(spec_file), "--dry-run")
    assert res.exit_code == 2, res.output
    assert "unknown agent 'orcale'; did you mean oracle" in res.output and "codeact" in res.output


def test_a_custom_attempt_function_reads_agent_names_its_own_way(env: dict[str, Any]) -> None:
    res = sweep(env, "--agents", "oracle-like,anything", "--tasks", "t-one", "--sweep-id", "c3", "--json")
    assert res.exit_code == 0, res.output
    assert ParquetStore(env["home"] / "results").runs("c3").height == 2
