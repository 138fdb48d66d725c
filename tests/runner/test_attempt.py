"""The attempt lifecycle on an in-test sandbox: records, artifacts, failure classes and the audit's verdicts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cmb.agents import Agent, AgentContext, AgentOutcome, ReplayAgent, Run, WriteFile, get_agent
from cmb.catalog import Catalog, TaskEntry
from cmb.models import AuditFlags, ComputePriceSheet, Condition, ExitReason, FailureClass, RunKey, RunRecord
from cmb.runner import RunOptions, artifacts_path, run_attempt, time_notice
from cmb.sandbox import Measured, SandboxError, drain_pools
from tests.runner._toy import ANSWER, honest_steps, install_fake_pw, key, path_with, write_suite
from tests.runner.fake_sandbox import FakeSandbox

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TaskEntry:
    install_fake_pw(tmp_path / "bin")
    monkeypatch.setenv("PATH", path_with(tmp_path / "bin"))
    return write_suite(tmp_path / "suite")


@pytest.fixture(params=[None, 1], ids=["own-sandbox", "warm-pool"])
def opts(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunOptions]:
    """Every lifecycle test runs on a sandbox of its own and on one claimed from a warm pool."""
    yield RunOptions(home=tmp_path / "home", check_network=False, time_limit_s=60, pool_spares=request.param)
    drain_pools()


def _run(entry: TaskEntry, agent: Agent, opts: RunOptions, k: RunKey | None = None) -> RunRecord:
    return run_attempt(k or key(entry.id, agent.name), entry, agent, FakeSandbox, opts)


def test_oracle_passes_and_artifacts_are_complete(toy: TaskEntry, opts: RunOptions) -> None:
    record = _run(toy, get_agent("oracle"), opts)
    assert record.passed and record.failure_class is None, record.audit_messages
    assert record.raw_score == record.gated_score == 1.0
    assert (record.usage.model_cost_usd, record.usage.source) == (0.0, "no-model")  # no model called: $0
    assert record.audit_flags == AuditFlags(
        log_intact=True, code_invoked=True, job_done=True, wallclock_ok=True, network_isolated=True
    )
    assert record.code_calls >= 2  # pw.x and python3
    art = artifacts_path(opts.home, record.key)
    assert json.loads((art / "submission" / "answer.json").read_text()) == {"energy_ry": -15.85}
    assert RunRecord.model_validate_json((art / "record.json").read_text()) == record
    for name in ("grade.json", "audit.json", "codelog.jsonl", "codelog-heads.json", "stdout.txt", "files.json"):
        assert (art / name).is_file(), name
    calls = [json.loads(line) for line in (art / "codelog.jsonl").read_text().splitlines()]
    pw = next(c for c in calls if c["exe"] == "pw.x")
    assert pw["argv"] == ["pw.x", "-in", "scf.in"] and pw["exit"] == 0 and "JOB DONE." in pw["markers"]


def test_null_fails_with_format_class(toy: TaskEntry, opts: RunOptions) -> None:
    record = _run(toy, get_agent("null"), opts)
    assert not record.passed
    assert record.failure_class is FailureClass.FORMAT
    assert record.raw_score == 0.0 and record.submitted_files == []


def test_recall_writes_its_answers_and_runs_nothing(toy: TaskEntry, opts: RunOptions) -> None:
    record = _run(toy, get_agent("recall"), opts)
    art = artifacts_path(opts.home, record.key)
    assert json.loads((art / "submission" / "answer.json").read_text()) == {"energy_ry": -15.85}
    assert record.raw_score == 1.0 and record.gated_score == 0.0 and not record.passed  # the audit voids it
    assert record.audit_flags is not None and record.audit_flags.code_invoked is False and record.code_calls == 0


def test_recall_passes_where_no_code_audit_stands_in_its_way(tmp_path: Path, opts: RunOptions) -> None:
    entry = write_suite(tmp_path / "suite", required_codes="[]", kind="output-analysis")
    record = _run(entry, get_agent("recall"), opts)
    assert record.passed  # the runner reports it faithfully: such a task fails the suite's recall gate


def test_recall_without_a_recall_file_is_the_harness_s_failure(toy: TaskEntry, opts: RunOptions) -> None:
    (toy.reference_dir / "recall.yaml").unlink()
    record = _run(toy, get_agent("recall"), opts)
    assert not record.passed and record.failure_class is FailureClass.INFRASTRUCTURE


def test_the_bundle_holds_the_prompt_with_its_time_notice_and_nothing_hidden(toy: TaskEntry, opts: RunOptions) -> None:
    record = _run(toy, get_agent("null"), opts)
    files = {f["path"] for f in json.loads((artifacts_path(opts.home, record.key) / "files.json").read_text())}
    assert files == {"PROMPT.md", "scf.in"}  # no reference, grader or solution file ever staged
    head, _ = time_notice(60, ["answer.json"])
    assert "60 seconds" in head


def test_prompt_notice_names_the_budget() -> None:
    head, tail = time_notice(3600, ["answer.json"])
    assert "60 minutes" in head and "answer.json" in tail


def test_answer_without_running_the_required_code_is_voided(toy: TaskEntry, opts: RunOptions) -> None:
    record = _run(toy, ReplayAgent(steps=[WriteFile(path="answer.json", content=ANSWER)]), opts)
    assert record.raw_score == 1.0 and record.gated_score == 0.0
    assert not record.passed and record.failure_class is FailureClass.SOFTWARE
    assert record.exit_reason == "audit-failed"
    assert record.audit_flags.code_invoked is False


@pytest.mark.parametrize(
    ("mode", "flag"),
    [("nomarker", "job_done"), ("fast", "wallclock_ok"), ("fail", "code_invoked")],
)
def test_audit_flags_a_run_that_did_not_really_complete(toy: TaskEntry, opts: RunOptions, mode: str, flag: str) -> None:
    steps = [Run(shell=f"FAKE_PW_MODE={mode} pw.x -in scf.in > scf.out"), WriteFile(path="answer.json", content=ANSWER)]
    record = _run(toy, ReplayAgent(steps=steps), opts)
    assert record.raw_score == 1.0 and record.gated_score == 0.0 and not record.passed
    assert getattr(record.audit_flags, flag) is False, record.audit_messages


def test_honest_replay_passes(toy: TaskEntry, opts: RunOptions) -> None:
    record = _run(toy, ReplayAgent(steps=honest_steps()), opts)
    assert record.passed, record.audit_messages
    art = artifacts_path(opts.home, record.key)
    replayed = [json.loads(line) for line in (art / "trajectory.jsonl").read_text().splitlines()]
    assert [s["result"].get("exit") for s in replayed] == [0, 0]


def test_replaying_a_previous_attempts_artifacts_reproduces_its_files(toy: TaskEntry, opts: RunOptions) -> None:
    first = _run(toy, get_agent("oracle"), opts)
    again = get_agent("replay", trajectory=str(artifacts_path(opts.home, first.key)))
    record = _run(toy, again, opts, key(toy.id, "replay"))
    assert record.raw_score == 1.0
    assert record.audit_flags.code_invoked is False  # the files came back, the runs did not: voided


def test_leftover_output_without_completion_marker_fails_job_done(toy: TaskEntry, opts: RunOptions) -> None:
    steps = [*honest_steps(), WriteFile(path="extra.out", content="     Program PWSCF v.6.7 starts\n (crashed)\n")]
    record = _run(toy, ReplayAgent(steps=steps), opts)
    assert record.audit_flags.job_done is False
    assert any("extra.out" in m for m in record.audit_messages)


def test_staged_precomputed_outputs_are_not_audited(opts: RunOptions) -> None:
    entry = Catalog.load(REPO).get("si-eos-analysis")  # its workspace holds finished pw.x outputs
    record = run_attempt(key(entry.id, "oracle"), entry, get_agent("oracle"), FakeSandbox, opts)
    assert record.passed, record.audit_messages


@pytest.mark.parametrize(
    "forgery",
    [
        'sed -i \'s/"exit":0/"exit":7/\' ../.cmb/codelog.jsonl',  # edit a verified line
        "tail -n 1 ../.cmb/codelog.jsonl >> ../.cmb/codelog.jsonl",  # replay a line
        ": > ../.cmb/codelog.jsonl",  # wipe the log
        "rm -f ../.cmb/heads/*",  # drop the file copy of the head (the stderr copy still counts)
    ],
)
def test_tampering_with_the_code_log_is_detected(toy: TaskEntry, opts: RunOptions, forgery: str) -> None:
    steps = [*honest_steps(), Run(shell=forgery)]
    record = _run(toy, ReplayAgent(steps=steps), opts)
    if forgery.startswith("rm"):
        assert record.passed, record.audit_messages
        return
    assert record.audit_flags.log_intact is False
    assert not record.passed and record.gated_score == 0.0


def test_calling_the_log_writer_directly_forges_nothing(toy: TaskEntry, opts: RunOptions) -> None:
    script = (
        "import sys, pathlib; sys.path.insert(0, '../.cmb'); import _supervise as s; "
        "keys = list(pathlib.Path('../.cmb').glob('key.*')); print('keys left:', keys); "
        "log = s.CodeLog(pathlib.Path('../.cmb/codelog.jsonl'), b'guessed', 's0'); "
        "log.append({'exe': 'pw.x', 'code': 'pw.x', 'argv': ['pw.x'], 'cwd': '.', 'start': 0, 'end': 99, "
        "'exit': 0, 'signal': None, 'markers': ['JOB DONE.'], 'error': None})"
    )
    steps = [Run(argv=["python3", "-c", script]), WriteFile(path="answer.json", content=ANSWER)]
    record = _run(toy, ReplayAgent(steps=steps), opts)
    stdout = (artifacts_path(opts.home, record.key) / "stdout.txt").read_text()
    assert "keys left: []" in stdout  # the supervisor deleted its key file before the agent started
    assert record.audit_flags.log_intact is False
    assert record.audit_flags.code_invoked is False
    assert not record.passed and record.failure_class is FailureClass.SOFTWARE


def test_time_limit_is_enforced_and_classified(toy: TaskEntry, tmp_path: Path) -> None:
    opts = RunOptions(home=tmp_path / "home", check_network=False, time_limit_s=2)
    record = _run(toy, ReplayAgent(steps=[Run(shell="sleep 60")]), opts)
    assert record.failure_class is FailureClass.TIME_LIMIT and record.exit_reason == "time-limit"
    assert record.timings.agent < 30
    assert record.gated_score == 0.0


def test_sandbox_failure_is_infrastructure_and_still_recorded(
    toy: TaskEntry, opts: RunOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(FakeSandbox, "fail_on", "start")
    record = _run(toy, get_agent("oracle"), opts)
    assert record.failure_class is FailureClass.INFRASTRUCTURE and record.grade is None
    assert "daemon is gone" in (record.error or "")
    assert (artifacts_path(opts.home, record.key) / "record.json").is_file()


def test_a_sandbox_that_fails_its_preparation_is_infrastructure_and_left_nowhere(
    toy: TaskEntry, opts: RunOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[FakeSandbox] = []
    original = FakeSandbox.start

    def start(self: FakeSandbox) -> None:
        original(self)
        made.append(self)

    monkeypatch.setattr(FakeSandbox, "start", start)
    monkeypatch.setattr(FakeSandbox, "fail_on", "exec")  # started, then the workdir probe fails
    record = _run(toy, get_agent("oracle"), opts)
    assert record.failure_class is FailureClass.INFRASTRUCTURE and "exec failed" in (record.error or "")
    assert made and all(sandbox.dir is None for sandbox in made)  # every one torn down


class _Broken(Agent):
    name = "broken"

    def run(self, ctx: AgentContext) -> AgentOutcome:
        raise RuntimeError("adapter bug")


def test_adapter_bug_is_infrastructure_not_the_agents(toy: TaskEntry, opts: RunOptions) -> None:
    record = _run(toy, _Broken(), opts)
    assert record.failure_class is FailureClass.INFRASTRUCTURE
    assert "adapter bug" in (record.error or "")


class _EvictedPod(FakeSandbox):
    """A pod the kubelet evicted for outgrowing its storage: its files went with it."""

    gone = False

    def _check(self) -> None:
        if self.gone:
            raise SandboxError('pod cmb-x failed: DiskLimit: Usage of EmptyDir volume "workspace" exceeds the limit')

    def stop_processes(self) -> None:  # a container's or a pod's: the first call after the agent's run
        self._check()

    def exec(self, argv, timeout_s, env=None, cwd=None):  # type: ignore[no-untyped-def]
        self._check()
        return super().exec(argv, timeout_s, env, cwd)

    def get(self, src, dest, max_bytes=256 * 1024 * 1024):  # type: ignore[no-untyped-def]
        self._check()
        super().get(src, dest, max_bytes)


class _DiskFiller(Agent):
    name = "disk-filler"

    def run(self, ctx: AgentContext) -> AgentOutcome:
        ctx.sandbox.gone = True  # type: ignore[attr-defined]
        return AgentOutcome(exit_code=137, stdout="", stderr="DiskLimit", disk_exceeded=True)


def test_an_agent_whose_pod_was_evicted_for_its_own_disk_use_fails_as_the_agent(
    toy: TaskEntry, opts: RunOptions
) -> None:
    record = run_attempt(key(toy.id, "disk-filler"), toy, _DiskFiller(), _EvictedPod, opts)
    assert record.failure_class is FailureClass.SOFTWARE and record.exit_reason is ExitReason.DISK_LIMIT
    assert not record.passed and record.submitted_files == []
    assert any("nothing collected" in w for w in record.sandbox_warnings)


def test_a_sandbox_lost_after_an_ordinary_run_is_still_infrastructure(toy: TaskEntry, opts: RunOptions) -> None:
    class _Vanisher(_DiskFiller):
        def run(self, ctx: AgentContext) -> AgentOutcome:
            ctx.sandbox.gone = True  # type: ignore[attr-defined]
            return AgentOutcome(exit_code=0, stdout="", stderr="")

    record = run_attempt(key(toy.id, "vanisher"), toy, _Vanisher(), _EvictedPod, opts)
    assert record.failure_class is FailureClass.INFRASTRUCTURE


def test_rerun_replaces_artifacts_atomically(toy: TaskEntry, opts: RunOptions) -> None:
    first = _run(toy, get_agent("null"), opts)
    art = artifacts_path(opts.home, first.key)
    (art / "stale.txt").write_text("old")
    second = _run(toy, get_agent("null"), opts)
    assert not (art / "stale.txt").exists()
    assert RunRecord.model_validate_json((art / "record.json").read_text()).started_at == second.started_at
    assert [p.name for p in art.parent.iterdir() if p.name.startswith(".")] == []


def test_condition_and_task_must_match(toy: TaskEntry, opts: RunOptions) -> None:
    with pytest.raises(ValueError, match="run key"):
        run_attempt(RunKey(sweep="s", agent="a", task="other", condition=Condition.SF, trial=0), toy,
                    get_agent("null"), FakeSandbox, opts)  # fmt: skip


def test_the_record_carries_what_the_sandbox_measured_and_its_price(
    toy: TaskEntry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sheet = ComputePriceSheet(version="sheet-7", vcpu_hour_usd=3.6, gib_hour_usd=0.36)
    opts = RunOptions(home=tmp_path / "home", check_network=False, time_limit_s=60, compute_prices=sheet)
    monkeypatch.setattr(FakeSandbox, "measure", lambda self: Measured(2.5, 3 * 2**30, "cgroup-v1"))
    record = _run(toy, get_agent("oracle"), opts)
    c = record.compute
    assert (c.cpu_s, c.peak_memory_bytes, c.source, c.price_sheet) == (2.5, 3 * 2**30, "cgroup-v1", "sheet-7")
    t = record.timings
    assert c.held_s == pytest.approx(t.setup + t.agent + t.collect, abs=2e-3)
    assert record.compute_cost_usd == pytest.approx(sheet.cost(record.resources, c))
    assert record.compute_cost_usd > 0


def test_an_unreadable_counter_leaves_the_cost_on_the_request(
    toy: TaskEntry, opts: RunOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: FakeSandbox) -> Measured:
        raise OSError("cgroup gone")

    monkeypatch.setattr(FakeSandbox, "measure", broken)
    record = _run(toy, get_agent("oracle"), opts)
    assert record.passed
    assert record.compute.cpu_s is None and record.compute.source is None
    assert record.compute.price_sheet == ComputePriceSheet.pinned().version
    assert record.compute_cost_usd == pytest.approx(ComputePriceSheet.pinned().cost(record.resources, record.compute))
