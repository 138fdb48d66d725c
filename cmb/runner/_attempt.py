"""One attempt's lifecycle: stage -> sandbox -> agent (supervised) -> collect -> audit -> grade -> RunRecord."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cmb import __version__
from cmb.agents import Agent, AgentContext, AgentOutcome, GatewayAccess
from cmb.catalog import PROMPT_NAME, CatalogError, TaskEntry, assemble_solution, stage_bundle
from cmb.grading import GraderConfigError, grade, grader_hash
from cmb.manuals import MOUNT_POINT, read_manifest
from cmb.models import (
    DEFAULT_PROFILES,
    VERIFIER_DIR,
    VERIFIER_FILES,
    Category,
    ComputePriceSheet,
    ComputeUsage,
    ExitReason,
    FailureClass,
    GradeReport,
    PhaseTimings,
    ResourceProfile,
    RunKey,
    RunRecord,
    TaskSpec,
    Usage,
    VerifierSpec,
)
from cmb.runner._artifacts import ArtifactDir, artifacts_path, write_atomic
from cmb.runner._audit import AuditInput, AuditReport, NetworkProbe, audit, sha256_file
from cmb.runner._codelog import KeyRing, accept_head, code_table, parse_heads, verify_log
from cmb.runner._collect import collect_log, copy_answers, fetch_into, fetch_work, write_file_list
from cmb.runner._isolation import PROBE_TIMEOUT_S
from cmb.runner._supervise import HEAD_PREFIX
from cmb.runner._usage import usage_from_report
from cmb.runner._warm import HARNESS_DIR, WORK_DIR, Claimed, base_env, open_sandbox
from cmb.sandbox import ExecResult, Measured, Sandbox, SandboxError, SandboxSpec
from cmb.settings import DEFAULT_IMAGE

if TYPE_CHECKING:
    from cmb.gateway import TrajectorySource

GRACE_S = 60.0  # beyond the supervisor's own deadline, before the sandbox kills the command

_CATEGORY_CLASS = {
    Category.FORMAT: FailureClass.FORMAT,
    Category.SOFTWARE: FailureClass.SOFTWARE,
    Category.SCIENTIFIC: FailureClass.SCIENTIFIC,
}


@dataclass
class RunOptions:
    """How to run an attempt, beyond the task and the agent."""

    home: Path = Path("cmb-data")
    image: str = DEFAULT_IMAGE
    gateway: GatewayAccess = field(default_factory=GatewayAccess)
    profiles: dict[str, ResourceProfile] = field(default_factory=dict)  # overrides of DEFAULT_PROFILES by name
    time_limit_s: int | None = None  # overrides the task's and the profile's
    cpus: float | None = None  # overrides the profile's (a machine smaller than the profile)
    memory_gib: float | None = None
    queued_at: datetime | None = None
    check_network: bool = True  # probe the sandbox; a reachable network voids the attempt (infrastructure)
    collect_max_bytes: int = 256 * 1024 * 1024
    readonly_mounts: dict[str, Path] = field(default_factory=dict)  # sandbox path -> host path
    manuals: Path | None = None  # the offline manuals library, bound at /opt/manuals where the backend can
    usage_meter: Callable[[RunKey], Usage | None] | None = None  # the gateway's metered usage, when there is one
    compute_prices: ComputePriceSheet = field(default_factory=ComputePriceSheet.pinned)
    trajectory: TrajectorySource | None = None  # the gateway's ATIF trajectory of the attempt, when there is one
    retries: int = 0
    # Claim the sandbox from this process's warm pool of its shape, keeping up to this many spares ready; None:
    # the attempt makes its own (a single `cmb run`).
    pool_spares: int | None = None


def resolve_profile(entry: TaskEntry, options: RunOptions) -> ResourceProfile:
    """The condition's resource profile: the task's profile name, overridden by the options, then the time limit."""
    name = entry.spec.resources
    profiles = {**DEFAULT_PROFILES, **options.profiles}
    if name not in profiles:
        raise KeyError(f"task {entry.id} asks for resource profile {name!r}; known: {sorted(profiles)}")
    profile = profiles[name]
    update: dict[str, Any] = {"time_limit_s": options.time_limit_s or entry.spec.time_limit_s or profile.time_limit_s}
    if options.cpus is not None:
        update["cpus"] = options.cpus
    if options.memory_gib is not None:
        update["memory_gib"] = options.memory_gib
    return ResourceProfile.model_validate({**profile.model_dump(), **update})


def time_notice(seconds: int, answer_files: list[str]) -> tuple[str, str]:
    """The budget notice put before the prompt, and the reminder put after it."""
    minutes = seconds / 60
    span = f"{minutes:.0f} minutes" if minutes >= 2 else f"{seconds} seconds"
    head = (
        f"> **Time budget:** you have {span} of wall-clock time for this task, counted from now. The limit is "
        "enforced: when it is reached every process is stopped and only the files already written are graded.\n\n"
    )
    files = ", ".join(answer_files) if answer_files else "your work"
    tail = (
        f"\n\n> **Reminder:** leave {files} in the working folder before the {span} are up; "
        "write a first version early and improve it.\n"
    )
    return head, tail


def verifier_of(entry: TaskEntry) -> VerifierSpec | None:
    """The task's in-sandbox verifier, if its verdict comes from one (a Harbor task's tests)."""
    return entry.spec.verifier if isinstance(entry.spec, TaskSpec) else None


def image_of_task(entry: TaskEntry) -> str | None:
    """The image the task needs (a Harbor task's environment), if any."""
    return entry.spec.image if isinstance(entry.spec, TaskSpec) else None


# Condition-neutral facts about the sandbox, appended to every prompt.
ENVIRONMENT_NOTE = (
    "\n\n> **Environment:** there is no internet access. Offline manuals of the installed codes (Quantum "
    "ESPRESSO input documentation, the LAMMPS manual, phonopy and phono3py examples and help) are in "
    f"{MOUNT_POINT}, read-only; {MOUNT_POINT}/README.txt says what is where."
)


class _Infrastructure(Exception):
    """The harness or the sandbox failed; never the agent's fault."""


class _Context(AgentContext):
    """The runner's AgentContext: supervised exec with per-segment keys, bounded copies, one deadline."""

    def __init__(self, sandbox: Sandbox, ring: KeyRing, deadline: float, **kw: Any) -> None:
        super().__init__(**kw)
        self.sandbox = sandbox
        self.ring = ring
        self.deadline = deadline
        self.killed: set[str] = set()

    def remaining_s(self) -> float:
        return self.deadline - time.monotonic()

    def exec(
        self,
        argv: list[str],
        *,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        timeout_s: float | None = None,
    ) -> ExecResult:
        budget = min(timeout_s or self.remaining_s(), self.remaining_s())
        if budget <= 0:
            return ExecResult(exit_code=124, stdout="", stderr="time limit reached\n", duration_s=0.0, timed_out=True)
        seg = self.ring.new()
        self.put_files({f"key.{seg.id}": seg.key.hex()}, HARNESS_DIR)
        harness = self.paths.harness
        reap = ["--reap"] if self.sandbox.exec_pid_namespace else []
        full = ["python3", f"{harness}/_supervise.py", harness, seg.id, f"{budget:.1f}", cwd or self.paths.work]
        full += [*reap, "--"]
        result = self.sandbox.exec(full + argv, timeout_s=budget + GRACE_S, env={**self.base_env, **(env or {})})
        stderr_lines = []
        for line in result.stderr.splitlines(keepends=True):
            if line.startswith(HEAD_PREFIX):
                for head in parse_heads(line):
                    accept_head(self.ring, head)
            else:
                stderr_lines.append(line)
        timed_out = result.timed_out or (seg.head is not None and seg.head.timed_out)
        if seg.head is None and (result.timed_out or result.oom_killed or result.disk_exceeded):
            self.killed.add(seg.id)  # the sandbox killed the supervisor itself: no head can exist
        return ExecResult(
            exit_code=result.exit_code,
            stdout=result.stdout,
            stderr="".join(stderr_lines),
            duration_s=result.duration_s,
            timed_out=timed_out,
            oom_killed=result.oom_killed,
            disk_exceeded=result.disk_exceeded,
        )

    def put_dir(self, src: Path, dest: str) -> None:
        self.sandbox.put(src, dest)

    def put_files(self, files: Mapping[str, str | bytes], dest: str) -> None:
        with tempfile.TemporaryDirectory(prefix="cmb-put-") as tmp:
            for name, content in files.items():
                path = Path(tmp) / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content.encode() if isinstance(content, str) else content)
            self.sandbox.put(Path(tmp), dest)

    def fetch(self, src: str, dest: Path, max_bytes: int = 64 * 1024 * 1024) -> bool:
        rel = _relative(src, self.paths.root)
        return fetch_into(self.sandbox, rel, dest, max_bytes)


def _relative(path: str, root: str) -> str:
    if path.startswith(root.rstrip("/") + "/"):
        return path[len(root.rstrip("/")) + 1 :]
    return path


@dataclass
class _State:
    """What the phases accumulate, so a failure at any point still yields a complete record."""

    timings: dict[str, float] = field(default_factory=dict)
    outcome: AgentOutcome | None = None
    audit: AuditReport | None = None
    report: GradeReport | None = None
    infra_error: str | None = None
    grader_error: str | None = None
    collected: list[str] = field(default_factory=list)
    network: NetworkProbe | None = None
    measured: Measured | None = None
    marks: dict[str, float] = field(default_factory=dict)
    sandbox_warnings: list[str] = field(default_factory=list)
    verifier_log: str | None = None  # what an in-sandbox verifier printed

    def phase(self, name: str) -> _Phase:
        return _Phase(self, name)


class _Phase:
    def __init__(self, state: _State, name: str) -> None:
        self.state, self.name = state, name

    def __enter__(self) -> None:
        self.start = time.monotonic()

    def __exit__(self, *exc: object) -> None:
        self.state.timings[self.name] = self.state.timings.get(self.name, 0.0) + time.monotonic() - self.start


def run_attempt(
    key: RunKey,
    entry: TaskEntry,
    agent: Agent,
    backend: type[Sandbox],
    options: RunOptions | None = None,
) -> RunRecord:
    """Run one attempt to its RunRecord; artifacts land under CMB_HOME/artifacts/<sweep>/<slug>/.

    Infrastructure failures (a SandboxError, a broken adapter, a leaky sandbox) come back as a record with
    failure class `infrastructure`, for the scheduler to retry; they are never the agent's.
    """
    options = options or RunOptions()
    if key.task != entry.id:
        raise ValueError(f"run key is for task {key.task!r}, entry is {entry.id!r}")
    started_at = datetime.now(UTC)
    profile = resolve_profile(entry, options)
    art = ArtifactDir(artifacts_path(options.home, key))
    state = _State()
    ring = KeyRing()
    staged_hashes: dict[str, str] = {}
    killed: frozenset[str] = frozenset()
    collected_dir: Path | None = None
    sandbox: Sandbox | None = None
    claimed: Claimed | None = None
    agent_seconds = 0.0
    log_text = ""
    with tempfile.TemporaryDirectory(prefix="cmb-attempt-") as tmp_name:
        tmp = Path(tmp_name)
        try:
            with state.phase("setup"):
                work, prompt = _stage(entry, key, profile, tmp, staged_hashes)
                mounts, mounts_warning = _mounts(options, backend)
                spec = SandboxSpec(
                    name=key.slug,
                    profile=profile,
                    image=image_of_task(entry) or options.image,
                    env=base_env(),
                    gateway_url=options.gateway.base_url,
                    readonly_mounts=mounts,
                    hidden=(entry.root,),  # the suite root: references/ and graders/
                )
                warnings = [mounts_warning] if mounts_warning is not None else []
                claimed = open_sandbox(backend, spec, options.check_network, options.pool_spares, warnings)
                sandbox = claimed.sandbox
                paths, env, state.network = claimed.prepared.paths, claimed.prepared.env, claimed.prepared.network
                sandbox.put(work, WORK_DIR)
                gateway = GatewayAccess(
                    base_url=sandbox.gateway_url if options.gateway.base_url else None,
                    api_key=options.gateway.api_key,
                    model=options.gateway.model,
                )
            ctx = _Context(
                sandbox,
                ring,
                time.monotonic() + profile.time_limit_s,
                key=key,
                task=entry.spec,
                condition=key.condition,
                prompt=prompt,
                paths=paths,
                gateway=gateway,
                time_limit_s=profile.time_limit_s,
                base_env=env,
                artifacts_dir=art.path,
                solution_dir=assemble_solution(entry, tmp / "solution") if agent.sees_solution else None,
                recall=entry.recall() if agent.sees_recall else None,
            )
            with state.phase("agent"):
                t0 = time.monotonic()
                try:
                    state.outcome = agent.run(ctx)
                except (SandboxError, _Infrastructure):
                    raise
                except Exception as exc:  # an adapter bug is the harness's failure, not the agent's
                    raise _Infrastructure(f"agent {agent.name!r} raised {type(exc).__name__}: {exc}") from exc
                agent_seconds = time.monotonic() - t0
            killed = frozenset(ctx.killed)
            with state.phase("collect"):
                try:
                    sandbox.stop_processes()  # only what was written while the agent ran is graded
                    if (verifier := verifier_of(entry)) is not None:
                        _run_verifier(sandbox, entry, verifier, env, paths.work, state)
                    collected_dir = _collect(sandbox, entry, tmp, art.path, options, state)
                    missing = any(segment.head is None for segment in ring.segments)
                    log_text, heads_text = collect_log(sandbox, HARNESS_DIR, tmp, heads=missing)
                except SandboxError as exc:
                    if not _broke_its_limits(state.outcome):
                        raise
                    # A pod evicted for outgrowing its disk takes its files along: the agent left nothing to grade.
                    sandbox.warnings.append(f"nothing collected after the agent broke its limit: {exc}")
                    log_text, heads_text = "", []
                for text in heads_text:
                    try:
                        accept_head(ring, json.loads(text))
                    except ValueError:
                        continue
                write_atomic(art.path / "codelog.jsonl", log_text)
        except Exception as exc:  # noqa: BLE001 - whatever the backend raised, the harness itself goes on
            state.infra_error = f"{type(exc).__name__}: {exc}"
        finally:
            if claimed is not None:
                state.sandbox_warnings = list(claimed.sandbox.warnings)
                state.measured = _measure(claimed.sandbox)
                try:
                    claimed.release()
                except Exception as exc:  # noqa: BLE001 - the attempt is complete; a leftover is the janitor's
                    state.sandbox_warnings.append(f"teardown failed: {type(exc).__name__}: {exc}")

        if state.infra_error is None:
            verdict = verify_log(log_text, ring, killed)
            heads = [s.head.model_dump(mode="json") for s in ring.segments if s.head is not None]
            write_atomic(art.path / "codelog-heads.json", json.dumps(heads, indent=1))
            state.audit = audit(
                AuditInput(
                    required_codes=list(entry.spec.required_codes),
                    verdict=verdict,
                    heads=[s.head for s in ring.segments if s.head is not None],
                    network=state.network or NetworkProbe(ran=False, error="no probe"),
                    collected_dir=collected_dir,
                    staged_hashes=staged_hashes,
                    table=code_table(),
                )
            )
            with state.phase("grade"):
                try:
                    state.report = grade(
                        entry.grader(), entry.reference(), art.path / "submission", entry.reference_dir
                    )
                except (CatalogError, GraderConfigError) as exc:
                    state.grader_error = f"{type(exc).__name__}: {exc}"

    _save_trajectory(options, key, art.path, state)
    backend_name = getattr(backend, "backend", backend.__name__)
    record = _record(key, entry, agent, options, profile, started_at, state, agent_seconds, backend_name)
    _write_artifacts(art.path, record, state)
    art.commit()
    return record


def _stage(
    entry: TaskEntry, key: RunKey, profile: ResourceProfile, tmp: Path, staged_hashes: dict[str, str]
) -> tuple[Path, str]:
    """The host folder of the working folder: the bundle, with the time notice in its prompt."""
    work = tmp / "stage-work"
    stage_bundle(entry, key.condition, work)
    # A verifier writes the answer files itself: the agent is not told to.
    answers = [] if verifier_of(entry) is not None else list(entry.spec.answer_files)
    head, tail = time_notice(profile.time_limit_s, answers)
    prompt = head + entry.prompt(key.condition).rstrip() + ENVIRONMENT_NOTE + tail
    (work / PROMPT_NAME).write_text(prompt, encoding="utf-8")
    for path in work.rglob("*"):
        if path.is_file():
            staged_hashes[str(path.relative_to(work))] = sha256_file(path)
    return work, prompt


def _run_verifier(
    sandbox: Sandbox, entry: TaskEntry, verifier: VerifierSpec, env: dict[str, str], work_path: str, state: _State
) -> None:
    """Run the task's verifier in the sandbox, after the agent.

    Its folder is emptied first, so that nothing the agent left there is taken for the verifier's output. A
    verifier that fails or times out leaves what it wrote; the grader's checks on its outputs decide.
    """
    folder = f"{WORK_DIR}/{VERIFIER_DIR}"
    reset = sandbox.exec(
        ["sh", "-c", 'rm -rf -- "$1" && mkdir -p "$1/tests" "$1/logs/verifier" "$1/home"', "reset", VERIFIER_DIR],
        timeout_s=PROBE_TIMEOUT_S,
        cwd=WORK_DIR,
    )
    if reset.exit_code != 0:
        raise SandboxError(f"cannot prepare the verifier's folder: {reset.stderr[-500:]}")
    sandbox.put(entry.reference_dir / VERIFIER_FILES, f"{folder}/tests")
    t0 = time.monotonic()
    # A home of its own, and no user site: what the agent left in its home (a usercustomize.py) is not run.
    own = {"HOME": f"{work_path}/{VERIFIER_DIR}/home", "PYTHONNOUSERSITE": "1"}
    result = sandbox.exec(
        ["bash", "-c", verifier.command], timeout_s=verifier.timeout_s, env={**env, **own, **verifier.env}, cwd=WORK_DIR
    )
    state.verifier_log = (
        f"exit {result.exit_code} after {time.monotonic() - t0:.1f} s\n"
        f"--- stdout\n{result.stdout[-20_000:]}\n--- stderr\n{result.stderr[-20_000:]}\n"
    )


def _mounts(options: RunOptions, backend: type[Sandbox]) -> tuple[dict[str, Path], str | None]:
    """The read-only binds and a warning, if any.

    The binds are the options' own plus the manuals library where the backend binds host folders; the warning
    says the library should be bound but is not built.
    """
    mounts = dict(options.readonly_mounts)
    if options.manuals is None or not backend.host_mounts or MOUNT_POINT in mounts:
        return mounts, None
    if read_manifest(options.manuals) is None:
        warning = (
            f"no manuals library at {options.manuals} (run `cmb manuals build`); {MOUNT_POINT} is what the image "
            "carries, if anything"
        )
        return mounts, warning
    mounts[MOUNT_POINT] = options.manuals
    return mounts, None


def _collect(
    sandbox: Sandbox, entry: TaskEntry, tmp: Path, art: Path, options: RunOptions, state: _State
) -> Path | None:
    """The working folder if it fits the bound, else the answer files one by one; answers go to submission/."""
    collected = tmp / "collected"
    collected.mkdir()
    answer_files = list(entry.spec.answer_files)
    whole = fetch_work(sandbox, WORK_DIR, answer_files, collected, art, options.collect_max_bytes)
    if not whole:
        state.marks["collect_fallback"] = 1.0
    state.collected = copy_answers(collected, answer_files, art / "submission")
    write_file_list(collected, art)
    return collected if whole else None


def _measure(sandbox: Sandbox) -> Measured | None:
    try:
        return sandbox.measure()
    except Exception:  # noqa: BLE001 - an unreadable counter leaves the cost on the request, never the attempt
        return None


def _compute(options: RunOptions, profile: ResourceProfile, state: _State) -> tuple[ComputeUsage, float]:
    """What the sandbox used while it held its resources (setup to collect), priced by OpenCost's rule."""
    held = sum(state.timings.get(phase, 0.0) for phase in ("setup", "agent", "collect"))
    m = state.measured
    usage = ComputeUsage(
        held_s=round(held, 3),
        cpu_s=None if m is None else round(m.cpu_s, 3),
        peak_memory_bytes=None if m is None else m.peak_memory_bytes,
        source=None if m is None else m.source,
    )
    return options.compute_prices.priced(profile, usage)


def _broke_its_limits(outcome: AgentOutcome | None) -> bool:
    """The agent's run ended on its own memory or disk limit (its sandbox may be gone with it)."""
    return outcome is not None and (outcome.oom_killed or outcome.disk_exceeded)


def _classify(
    state: _State, timed_out: bool, limit: ExitReason | None, upstream_failures: int
) -> tuple[bool, FailureClass | None, ExitReason]:
    """passed, failure class, exit reason: infrastructure, time limit, then the grade; a failed audit voids a pass.

    A model provider that failed the agent after every gateway retry makes any attempt that did not pass the
    harness's failure (retried), whatever the agent did next: it was denied its model.
    """
    outcome = state.outcome
    if state.infra_error is not None:
        return False, FailureClass.INFRASTRUCTURE, ExitReason.INFRASTRUCTURE
    if state.grader_error is not None or state.report is None:
        return False, FailureClass.INFRASTRUCTURE, ExitReason.GRADER_ERROR
    assert state.audit is not None
    if not state.audit.flags.network_isolated:
        return False, FailureClass.INFRASTRUCTURE, ExitReason.SANDBOX_NOT_ISOLATED
    if upstream_failures and not (state.report.passed and state.audit.passed and not timed_out):
        return False, FailureClass.INFRASTRUCTURE, ExitReason.UPSTREAM_FAILED
    if timed_out:
        return False, FailureClass.TIME_LIMIT, ExitReason.TIME_LIMIT
    exited = ExitReason.COMPLETED if outcome is not None and outcome.exit_code == 0 else ExitReason.AGENT_ERROR
    reason = limit or exited
    if state.report.passed:
        if state.audit.passed:
            return True, None, reason
        return False, FailureClass.SOFTWARE, ExitReason.AUDIT_FAILED  # a pass the execution record does not support
    if limit is not None:  # killed for memory or disk: the agent's run broke, whatever it left behind
        return False, FailureClass.SOFTWARE, reason
    category = state.report.failure_category or Category.FORMAT
    return False, _CATEGORY_CLASS[category], reason


def _record(
    key: RunKey,
    entry: TaskEntry,
    agent: Agent,
    options: RunOptions,
    profile: ResourceProfile,
    started_at: datetime,
    state: _State,
    agent_seconds: float,
    backend_name: str,
) -> RunRecord:
    outcome = state.outcome
    timed_out = bool(outcome and outcome.timed_out)
    limit = None
    if outcome is not None and outcome.oom_killed:
        limit = ExitReason.MEMORY_LIMIT
    elif outcome is not None and outcome.disk_exceeded:
        limit = ExitReason.DISK_LIMIT
    metered = _metered(options, key, agent, state)
    passed, failure, reason = _classify(state, timed_out, limit, metered.upstream_failures if metered else 0)
    raw = state.report.score if state.report is not None else 0.0
    valid = state.audit is not None and state.audit.passed and not timed_out and failure != FailureClass.INFRASTRUCTURE
    queue = 0.0
    if options.queued_at is not None:
        queue = max(0.0, (started_at - options.queued_at).total_seconds())
    reported = outcome.reported_usage if outcome is not None else None
    usage = metered or usage_from_report(reported, agent.model())
    if metered is None and not reported and not agent.needs_gateway and agent.model() is None:
        usage = Usage(model_cost_usd=0.0, source="no-model")  # oracle, null, replay: nothing to price, $0
    messages = list(state.audit.messages) if state.audit is not None else []
    if state.infra_error:
        messages.append(f"infrastructure: {state.infra_error}")
    if state.grader_error:
        messages.append(f"grader: {state.grader_error}")
    upstream_error = None
    if reason is ExitReason.UPSTREAM_FAILED and metered is not None:
        upstream_error = (
            f"the model provider failed {metered.upstream_failures} request(s) after every gateway retry "
            "(the gateway transcript has each fault)"
        )
        messages.append(f"upstream: {upstream_error}")
    compute, compute_cost = _compute(options, profile, state)
    try:
        g_hash = grader_hash(entry.grader(), entry.reference())
    except (CatalogError, GraderConfigError):
        g_hash = "unavailable"
    return RunRecord(
        key=key,
        study=entry.spec.study,
        kind=entry.spec.kind,
        started_at=started_at,
        finished_at=max(datetime.now(UTC), started_at),
        exit_reason=reason,
        retries=options.retries,
        timings=PhaseTimings(
            queue=queue,
            setup=state.timings.get("setup", 0.0),
            agent=state.timings.get("agent", 0.0),
            collect=state.timings.get("collect", 0.0),
            grade=state.timings.get("grade", 0.0),
        ),
        usage=usage,
        compute=compute,
        compute_cost_usd=compute_cost,
        resources=profile,
        grade=state.report,
        audit_passed=state.audit.passed if state.audit is not None else False,
        audit_messages=messages,
        audit_flags=state.audit.flags if state.audit is not None else None,
        raw_score=raw,
        gated_score=raw if valid else 0.0,
        passed=passed,
        failure_class=failure,
        task_hash=entry.task_hash(),
        grader_hash=g_hash,
        harness_version=__version__,
        backend=backend_name,
        sandbox_warnings=state.sandbox_warnings,
        agent_exit_code=outcome.exit_code if outcome is not None else None,
        agent_seconds=round(agent_seconds, 3),
        agent_steps=outcome.steps if outcome is not None else None,
        agent_reported_usage=reported,
        code_calls=len(state.audit.calls) if state.audit is not None else 0,
        submitted_files=state.collected,
        error=state.infra_error
        or state.grader_error
        or upstream_error
        or (outcome.error if outcome is not None else None),
    )


def _metered(options: RunOptions, key: RunKey, agent: Agent, state: _State) -> Usage | None:
    """The gateway's usage of the attempt.

    A meter that cannot answer for an agent of the gateway, or answers that it never heard of the attempt, is
    infrastructure: the attempt's model use would be lost.
    """
    if options.usage_meter is None:
        return None
    try:
        usage = options.usage_meter(key)
    except Exception as exc:  # noqa: BLE001 - a dead gateway is the harness's failure
        if agent.needs_gateway and state.infra_error is None:
            state.infra_error = f"the gateway could not report the attempt's usage: {type(exc).__name__}: {exc}"
        return None
    if usage is None and agent.needs_gateway and state.infra_error is None:
        # The token was issued before the agent started, so a gateway that no longer knows the attempt lost its
        # state mid-attempt (it was restarted): the agent met refused tokens, and its model use is unaccounted.
        state.infra_error = "the gateway no longer knows the attempt (it restarted during it); its model use is lost"
    return usage


def _save_trajectory(options: RunOptions, key: RunKey, art: Path, state: _State) -> None:
    """The attempt's model conversation in ATIF (steps, tool calls, observations, tokens) beside its artifacts.

    The gateway builds it from its transcript; an attempt that made no model request (oracle, null) has none.
    """
    if options.trajectory is None:
        return
    from cmb.gateway import TRAJECTORY  # only where a gateway served the attempt: it loads the server

    try:
        trajectory = options.trajectory(key)
    except Exception as exc:  # noqa: BLE001 - the record does not depend on it
        state.sandbox_warnings.append(f"no {TRAJECTORY}: the gateway could not build it: {type(exc).__name__}: {exc}")
        return
    if trajectory is not None:
        write_atomic(art / TRAJECTORY, json.dumps(trajectory, indent=1))


def _write_artifacts(art: Path, record: RunRecord, state: _State) -> None:
    outcome = state.outcome
    if outcome is not None:
        write_atomic(art / "stdout.txt", outcome.stdout)
        write_atomic(art / "stderr.txt", outcome.stderr)
    if state.report is not None:
        write_atomic(art / "grade.json", state.report.model_dump_json(indent=2))
    if state.audit is not None:
        write_atomic(art / "audit.json", state.audit.model_dump_json(indent=2))
    if state.network is not None:
        write_atomic(art / "network.json", state.network.model_dump_json(indent=2))
    if state.verifier_log is not None:
        write_atomic(art / "verifier.log", state.verifier_log)
    (art / "submission").mkdir(exist_ok=True)
    write_atomic(art / "record.json", record.model_dump_json(indent=2))
