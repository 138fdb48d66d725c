"""The sweep driver without Ray: plan, slots, retries, resume, interruption, progress (threads executor)."""

from __future__ import annotations

import errno
import io
import time
from collections import Counter
from pathlib import Path

import pytest

from cmb.catalog import Catalog, CatalogError
from cmb.models import AttemptOptions, Condition, ResourceProfile, SweepSpec
from cmb.scheduler import (
    Progress,
    ProgressDisplay,
    SlotPolicy,
    SweepDir,
    SweepStateError,
    backoff_s,
    load_spec,
    plan,
    run_sweep,
)
from cmb.settings import CmbSettings
from cmb.store import MemoryStore, ParquetStore
from tests.scheduler.fakes import fake_attempt, launches, make_suite

FAST = {"retry_backoff_s": 0.0}


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return make_suite(tmp_path / "suite")


def spec(**kw: object) -> SweepSpec:
    base: dict[str, object] = {
        "name": "s1",
        "agents": ["oracle", "null"],
        "tasks": ["all"],
        "conditions": ["SF", "SR"],
        "trials": 3,
        **FAST,
    }
    return SweepSpec.model_validate({**base, **kw})


def sweep(suite: Path, home: Path, s: SweepSpec, **kw: object):  # type: ignore[no-untyped-def]
    extra = {"log_dir": str(home / "launches"), **kw.pop("options", {})}  # type: ignore[dict-item]
    kw.setdefault("mlflow_uri", "none")
    settings = CmbSettings(root=suite, store={"home": home})
    return run_sweep(s, settings=settings, attempt_fn=fake_attempt, executor="threads",
                     options=AttemptOptions(extra=extra), progress=False, **kw)  # type: ignore[arg-type]  # fmt: skip


# plan ------------------------------------------------------------------------------------------------------------


def test_plan_applies_conditions_to_their_kind_and_puts_long_profiles_first(suite: Path) -> None:
    attempts = plan(spec(conditions=["SF", "WF"], agents=["oracle"], trials=2), Catalog.load(suite))
    keys = [str(a.key) for a in attempts]
    assert len(keys) == len(set(keys)) == (3 * 1 + 1 * 1) * 2  # 3 tasks under SF, one workflow under WF
    assert all(a.key.condition is Condition.WF for a in attempts[:2])  # workflows (5 h) dispatched first
    assert attempts[0].profile.node_exclusive and attempts[0].profile.name == "workflow"
    assert [a.key.trial for a in attempts[2:]] == [0, 0, 0, 1, 1, 1]  # then trial by trial
    assert {a.profile.name for a in attempts[2:]} == {"single"}


def test_plan_profile_per_condition_and_overrides(suite: Path) -> None:
    small = ResourceProfile(name="tiny", cpus=1, memory_gib=1, time_limit_s=60)
    s = spec(conditions=["SR"], profiles={"tiny": small}, condition_profiles={"SR": "tiny"}, trials=1)
    attempts = plan(s, Catalog.load(suite))
    assert {a.profile for a in attempts} == {small}
    with pytest.raises(ValueError, match="no attempts"):
        plan(spec(tasks=["wf-alpha"], conditions=["SF"]), Catalog.load(suite))
    with pytest.raises(KeyError, match="unknown resource profile"):
        plan(spec(condition_profiles={"SF": "nope"}), Catalog.load(suite))


def test_spec_from_yaml_with_flag_overrides_and_hash(tmp_path: Path) -> None:
    path = tmp_path / "sweep.yaml"
    path.write_text("name: nightly\nagents: [oracle]\ntasks: ['study:alpha']\nconditions: [SF, SR]\ntrials: 5\n")
    s = load_spec(path, trials=2, agents=None, max_concurrency=7)
    assert (s.name, s.tasks, s.trials, s.max_concurrency) == ("nightly", ["study:alpha"], 2, 7)
    assert s.spec_hash() == load_spec(path, trials=2, max_concurrency=1, concurrency={"single": 3}).spec_hash()
    assert s.spec_hash() != load_spec(path).spec_hash()
    path.write_text("name: nightly\nagents: [oracle]\ntrials: zero\n")
    with pytest.raises(CatalogError, match=r"sweep.yaml:3 \[trials\]"):
        load_spec(path)


# running ---------------------------------------------------------------------------------------------------------


def test_sweep_writes_exactly_the_expected_rows(suite: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    s = spec()
    summary = sweep(suite, home, s)
    assert summary.complete and summary.done == summary.total == 3 * 2 * 3 * 2
    runs = ParquetStore(home / "results").runs("s1")
    expected = {f"s1/{a}/{t}/{c}/{n}" for a in ("oracle", "null") for t in ("t-one", "t-two", "t-three")
                for c in ("SF", "SR") for n in range(3)}  # fmt: skip
    assert set(runs.get_column("key")) == expected and runs.height == len(expected)
    assert set(runs.filter(runs["agent"] == "oracle").get_column("passed")) == {True}
    assert set(runs.filter(runs["agent"] == "null").get_column("passed")) == {False}
    assert set(runs.get_column("spec_hash")) == {s.spec_hash()}
    assert summary.pass_rate == 0.5 and summary.cost == pytest.approx(0.01 * 36)
    assert len(launches(home / "launches")) == 36
    assert (home / "sweeps" / "s1" / "spec.hash").read_text().strip() == s.spec_hash()


def test_slots_per_profile_bound_concurrency(suite: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    s = spec(conditions=["SF", "WF"], agents=["oracle"], trials=4, max_concurrency=3,
             concurrency={"single": 2, "workflow": 1})  # fmt: skip
    summary = sweep(suite, home, s, options={"sleep": "0.05"})
    assert summary.complete
    peak: Counter[str] = Counter()
    for launch in launches(home / "launches"):
        peak[str(launch["profile"])] = max(peak[str(launch["profile"])], int(launch["concurrent"]))  # type: ignore[call-overload]
    assert peak["single"] <= 2 and peak["workflow"] <= 1
    assert peak["single"] == 2  # the slots were actually used


def test_skips_keys_already_in_the_store(suite: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    s = spec(trials=1)
    store = MemoryStore()
    sweep(suite, home, s, store=store, options={"crash_keys": "s1/oracle/t-one/SF/0"})
    assert store.runs("s1").height == 12
    first = len(launches(home / "launches"))
    summary = sweep(suite, home, s, store=store, resume=True)
    # only the crashed attempt (an infrastructure record after its retries) runs again
    assert (summary.skipped, summary.done) == (11, 1)
    assert len(launches(home / "launches")) == first + 1
    assert store.runs("s1").height == 12 and store.done_keys("s1") == {str(k) for k in store.runs("s1")["key"]}


def test_infrastructure_failures_retry_up_to_the_limit_and_record_the_count(suite: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    s = spec(agents=["oracle"], trials=1, conditions=["SF"], max_retries=2)
    flaky, dead, node_lost = "s1/oracle/t-one/SF/0", "s1/oracle/t-two/SF/0", "s1/oracle/t-three/SF/0"
    summary = sweep(suite, home, s, options={
        "sandbox_error_keys": f"{flaky},{dead}", "sandbox_errors": "1", "crash_keys": dead,
        "infra_record_keys": node_lost,
    })  # fmt: skip
    runs = ParquetStore(home / "results").runs("s1")
    by_key = {r["key"]: r for r in runs.iter_rows(named=True)}
    assert (by_key[flaky]["retries"], by_key[flaky]["passed"], by_key[flaky]["failure_class"]) == (1, True, None)
    assert (by_key[dead]["retries"], by_key[dead]["failure_class"]) == (2, "infrastructure")
    assert (by_key[node_lost]["retries"], by_key[node_lost]["failure_class"]) == (2, "infrastructure")
    assert Counter(str(x["key"]) for x in launches(home / "launches")) == {flaky: 2, dead: 3, node_lost: 3}
    assert summary.retries == 1 + 2 + 2 and summary.infrastructure == 2
    assert summary.pass_rate == 1.0  # infrastructure failures leave the denominator


class FullStore(MemoryStore):
    """A store that is out of space for its first `full` writes (a results volume that filled up, then freed)."""

    def __init__(self, full: int) -> None:
        super().__init__()
        self.full = full

    def write(self, record, *, spec_hash=None):  # type: ignore[no-untyped-def]
        if self.full > 0:
            self.full -= 1
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(record, spec_hash=spec_hash)


def test_a_full_store_delays_the_record_and_never_reruns_the_attempt(
    suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("time.sleep", lambda s: None)  # the write backoff, not the attempts
    home = tmp_path / "home"
    store = FullStore(full=3)
    summary = sweep(suite, home, spec(agents=["oracle"], trials=1, conditions=["SF"]), store=store)
    assert summary.complete and summary.retries == 0 and store.full == 0
    assert store.runs("s1").height == 3 and len(launches(home / "launches")) == 3  # each attempt ran once


def test_a_store_full_past_the_patience_relaunches_the_attempt(tmp_path: Path) -> None:
    from cmb.scheduler._attempt import write_patiently
    from tests.store.records import make_record

    record = make_record()
    with pytest.raises(OSError, match="No space"):
        write_patiently(record, FullStore(full=100), "h", patience_s=0.0)
    store = FullStore(full=1)
    write_patiently(record, store, "h", patience_s=5.0)
    assert store.runs(record.key.sweep).height == 1


def test_a_backend_outage_pauses_dispatch_instead_of_burning_every_queued_attempts_retries(
    suite: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    s = spec(agents=["oracle"], trials=4, conditions=["SF"], max_concurrency=1, max_retries=3, retry_backoff_s=0.2)
    outage = time.time() + 1.0  # about a second of a dead backend, then healthy
    summary = sweep(suite, home, s, options={"outage_until": str(outage)})
    runs = ParquetStore(home / "results").runs("s1")
    assert summary.complete and set(runs.get_column("passed")) == {True}  # no attempt ran out of retries
    assert summary.retries <= 4  # the pause doubles (0.2, 0.4, 0.8 s): a few launches fail, not all twelve
    assert sum(1 for x in launches(home / "launches") if float(x["t"]) < outage) == summary.retries


def test_a_sweep_of_real_sandboxes_removes_what_dead_harnesses_left_before_and_after(
    suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    monkeypatch.setattr("cmb.scheduler._run.cleanup_backend", lambda name, settings: calls.append(name) or [name])
    monkeypatch.setattr("cmb.scheduler._run.run_with_runner", fake_attempt)  # the fake stands in for the runner
    summary = sweep(suite, tmp_path / "home", spec(agents=["oracle"], trials=1, conditions=["SF"], backend="local"))
    assert summary.complete and calls == ["local", "local"]  # at the start (a killed driver's) and at the end
    calls.clear()
    monkeypatch.undo()
    monkeypatch.setattr("cmb.scheduler._run.cleanup_backend", lambda name, settings: calls.append(name) or [name])
    sweep(suite, tmp_path / "other", spec(agents=["oracle"], trials=1, conditions=["SF"], backend="local"))
    assert calls == []  # a custom attempt function owns its sandboxes, if any


def test_agent_failures_are_never_retried(suite: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    summary = sweep(suite, home, spec(agents=["null"], trials=2, max_retries=3))
    assert summary.retries == 0 and summary.passed == 0
    assert Counter(str(x["key"]) for x in launches(home / "launches")).most_common(1)[0][1] == 1
    assert set(ParquetStore(home / "results").runs("s1").get_column("failure_class")) == {"scientific"}


def test_retried_launch_reuses_the_deterministic_sandbox_name(suite: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    key = "s1/oracle/t-one/SF/0"
    sweep(suite, home, spec(agents=["oracle"], trials=1, conditions=["SF"]),
          options={"sandbox_error_keys": key, "sandbox_errors": "2"})  # fmt: skip
    tries = [x for x in launches(home / "launches") if x["key"] == key]
    assert [x["retry"] for x in tries] == [0, 1, 2] and len({x["slug"] for x in tries}) == 1


# resume and refusal ----------------------------------------------------------------------------------------------


def test_existing_sweep_needs_resume_and_a_changed_spec_is_refused(suite: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    sweep(suite, home, spec(trials=1))
    with pytest.raises(SweepStateError, match="--resume"):
        sweep(suite, home, spec(trials=1))
    with pytest.raises(SweepStateError, match="trials: 1 -> 2"):
        sweep(suite, home, spec(trials=2), resume=True)
    again = sweep(suite, home, spec(trials=1, max_concurrency=9), resume=True)  # concurrency may change
    assert (again.done, again.skipped) == (0, 12)
    assert SweepDir(home, "s1").stored_spec().trials == 1


def test_one_driver_per_sweep(suite: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    holder = SweepDir(home, "s1")
    holder.lock()
    try:
        with pytest.raises(SweepStateError, match="another driver"):
            sweep(suite, home, spec(trials=1))
    finally:
        holder.unlock()
    assert sweep(suite, home, spec(trials=1)).complete


def test_ctrl_c_stops_dispatching_lets_running_finish_and_resume_completes(suite: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    s = spec(trials=2, max_concurrency=2)
    trigger = "s1/oracle/t-one/SF/0"
    summary = sweep(suite, home, s, options={"interrupt_key": trigger, "sleep": "0.05"})
    store = ParquetStore(home / "results")
    assert summary.interrupted and not summary.complete
    assert 0 < store.runs("s1").height < 24 and trigger in set(store.runs("s1")["key"])
    summary = sweep(suite, home, s, resume=True)
    assert summary.complete and summary.skipped + summary.done == 24
    runs = store.runs("s1", dedupe=False)
    assert runs.height == 24 and runs.get_column("key").n_unique() == 24  # nothing lost, nothing twice


# small pieces ----------------------------------------------------------------------------------------------------


def test_slot_policy_and_backoff() -> None:
    policy = SlotPolicy({"single": 2, "workflow": 1}, total=2)
    assert policy.can_start("workflow")
    policy.start("workflow")
    assert not policy.can_start("workflow") and policy.can_start("single")
    policy.start("single")
    assert not policy.can_start("single")  # the overall cap
    policy.finish("workflow")
    assert policy.can_start("single") and not policy.can_start("unknown")
    assert [backoff_s(2.0, r) for r in (1, 2, 3, 10)] == [2.0, 4.0, 8.0, 60.0]


def test_slot_weights_count_a_workflow_as_the_single_tasks_its_node_would_hold() -> None:
    policy = SlotPolicy({"single": 14, "workflow": 2}, total=14, weights={"workflow": 7})
    policy.start("workflow")
    for _ in range(7):
        assert policy.can_start("single")
        policy.start("single")
    assert policy.taken() == 14 and not policy.can_start("single") and not policy.can_start("workflow")
    policy.finish("single")
    assert policy.can_start("single") and not policy.can_start("workflow")  # a workflow needs 7 free slots
    spec = SweepSpec(name="s", agents=["null"], tasks=["all"], conditions=["SF"])
    weighted = spec.model_copy(update={"slot_weights": {"workflow": 7}})
    assert weighted.spec_hash() == spec.spec_hash()  # scheduling, not which attempts exist: resume still matches


def test_progress_line_counts_and_log_mode() -> None:
    p = Progress(total=10, skipped=2)
    p.running = 2
    p.finished(True, None, 0.5)
    p.finished(False, "scientific", None)
    p.finished(False, "infrastructure", 0.1)
    p.mlflow_pending = 1  # the mirror's backlog, set by the driver
    line = p.line()
    for part in ("queued 3", "running 2", "done 5/10 (2 earlier)", "pass 50%", "cost $0.60 (+1 unpriced)",
                 "mlflow pending 1", "ETA"):  # fmt: skip
        assert part in line, (part, line)
    out = io.StringIO()
    display = ProgressDisplay(p, out)
    display.update()
    display.update()  # within log_every_s: not repeated
    display.close()
    assert out.getvalue().count("\n") == 2 and "\r" not in out.getvalue()


def test_the_driver_feeds_the_live_dashboard(suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every launch is started and finished on the dashboard's metrics (a retried one as infrastructure), with its
    model and compute cost; the gauges end at zero."""
    from cmb.scheduler import _run
    from cmb.scheduler._metrics import SweepMetrics
    from tests.analysis.test_dashboards import Recorder

    rec = Recorder()
    monkeypatch.setattr(_run.SweepMetrics, "for_ray", classmethod(lambda cls, sweep: SweepMetrics(sweep, rec)))
    home = tmp_path / "home"
    flaky = "s1/oracle/t-one/SF/0"
    s = spec(agents=["oracle", "null"], trials=1, conditions=["SF"], max_retries=2)
    sweep(suite, home, s, options={"sandbox_error_keys": flaky, "sandbox_errors": "1"})
    records = ParquetStore(home / "results").runs("s1")
    assert rec.total("cmb_attempts_started", sweep="s1") == records.height + 1  # the flaky attempt launched twice
    assert rec.total("cmb_attempts_finished", outcome="pass", agent="oracle") == 3
    assert rec.total("cmb_attempts_finished", outcome="fail", agent="null") == 3
    assert rec.total("cmb_attempts_finished", outcome="infrastructure") == 1
    recorded = sum(c or 0.0 for c in records["compute_cost_usd"].to_list())
    assert rec.total("cmb_cost_usd", part="compute") == pytest.approx(recorded)
    assert rec.last("cmb_attempts_running") == 0 and rec.last("cmb_attempts_queued") == 0
