"""cmb tasks as Inspect AI tasks: the prompt as input, the bundle as sample files, cmb's grader as the scorer.

An Inspect run sees what a cmb attempt sees and is graded as a cmb attempt is graded: the sandbox gets the
condition's PROMPT.md and the task's workspace files (never anything of references/ or graders/), and after the
solver the task's declared answer files are copied out of the sandbox and graded by `cmb.grading.grade` against
the hidden reference. What cmb's own runner adds (the supervisor, the code audit, the time-budget notice, the
gateway) is not reproduced: an Inspect score is the submission's grade, not the gated score of a cmb attempt.

The sandboxes: `local` (the default, and what the tests use) runs in a temporary folder on this machine and
enforces no limits and no isolation; `docker` runs in the cmb agent image with the task's resource profile as
compose limits (cpus, mem_limit, pids_limit) and no network. Any other name is handed to Inspect as it is, with no
cmb limits.
"""

from __future__ import annotations

import base64
import io
import posixpath
import tarfile
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import anyio.to_thread
import yaml
from inspect_ai import Task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, metric, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, basic_agent, solver
from inspect_ai.tool import bash, python
from inspect_ai.util import (
    ComposeConfig,
    ComposeService,
    OutputLimitExceededError,
    SandboxEnvironmentSpec,
    SandboxEnvironmentType,
    sandbox,
)

from cmb.catalog import PROMPT_NAME, Catalog, TaskEntry, assemble_solution
from cmb.grading import grade
from cmb.models import Condition, GradeReport, ResourceProfile
from cmb.settings import DEFAULT_IMAGE, CmbSettings

# Sample metadata keys: the scorer and the oracle find the task they grade or solve from these alone.
TASK_KEY, CONDITION_KEY, ROOT_KEY = "cmb_task", "cmb_condition", "cmb_root"
SANDBOXES = ("local", "docker")


@cache
def _catalog(root: Path) -> Catalog:
    return Catalog.load(root)


def _suite_root(root: Path | str | None) -> Path:
    return Path(root).resolve() if root is not None else CmbSettings().root.resolve()


def catalog(root: Path | str | None = None) -> Catalog:
    """The suite under `root` (default: the settings' suite root), loaded once per process."""
    return _catalog(_suite_root(root))


def _entry_of(metadata: dict[str, Any]) -> TaskEntry:
    return catalog(metadata[ROOT_KEY]).get(metadata[TASK_KEY])


def _condition(entry: TaskEntry, condition: str | Condition | None) -> Condition:
    if condition is None:
        return entry.conditions()[0]  # full guidance: SF for a task, WF for a workflow
    try:
        chosen = Condition(condition.upper() if isinstance(condition, str) else condition)
    except ValueError:
        raise ValueError(f"unknown condition {condition!r}; known: {[c.value for c in Condition]}") from None
    if chosen not in entry.conditions():
        known = ", ".join(c.value for c in entry.conditions())
        raise ValueError(f"{entry.id} runs under {known}, not {chosen.value}")
    return chosen


def profile_of(entry: TaskEntry) -> ResourceProfile:
    """The task's resource profile, with the task's own time limit where it sets one."""
    return entry.profile()


def sample_files(entry: TaskEntry, condition: Condition) -> dict[str, str]:
    """What the agent sees, as Inspect sample files: PROMPT.md (inline) and each workspace file (by path).

    Mirrors `cmb.catalog.stage_bundle`. A missing workspace file is an error here, because Inspect would
    otherwise stage the path string itself as the file's text.
    """
    prompt = base64.b64encode(entry.prompt(condition).encode("utf-8")).decode("ascii")
    files = {PROMPT_NAME: f"data:text/markdown;base64,{prompt}"}
    for rel in entry.spec.workspace:
        src = (entry.workspace_dir / rel).resolve()
        if not src.is_file():
            raise FileNotFoundError(f"{entry.id}: workspace file {rel} is missing ({src})")
        files[rel] = str(src)
    return files


def build_sample(entry: TaskEntry, condition: str | Condition | None = None) -> Sample:
    """One Inspect sample: the condition's prompt as input, the agent-visible files staged in the sandbox."""
    chosen = _condition(entry, condition)
    return Sample(
        id=f"{entry.id}/{chosen.value}",
        input=entry.prompt(chosen),
        files=sample_files(entry, chosen),
        metadata={
            TASK_KEY: entry.id,
            CONDITION_KEY: chosen.value,
            ROOT_KEY: str(entry.root.resolve()),
            "kind": entry.spec.kind.value,
            "study": entry.spec.study,
            "answer_files": list(entry.spec.answer_files),
        },
    )


def compose_config(entry: TaskEntry, image: str = DEFAULT_IMAGE) -> ComposeConfig:
    """Inspect's docker sandbox for `entry`: the cmb agent image under the task's resource profile, offline.

    The disk quota and node exclusivity of a profile have no compose equivalent and are not applied.
    """
    profile = profile_of(entry)
    service = ComposeService(
        image=image,
        command=["sleep", "infinity"],
        init=True,
        network_mode="none",
        cpus=float(profile.cpus),
        mem_limit=f"{round(profile.memory_gib * 1024)}m",
        pids_limit=profile.pids,
        **{"x-default": True},
    )
    return ComposeConfig(services={"default": service})


def compose_yaml(entry: TaskEntry, image: str = DEFAULT_IMAGE) -> str:
    """The compose file of `compose_config`, for `inspect eval --sandbox docker:FILE` or for reading."""
    doc = compose_config(entry, image).model_dump(mode="json", exclude_none=True, by_alias=True)
    return yaml.safe_dump(doc, sort_keys=False)


def sandbox_for(entry: TaskEntry, kind: str = "local", image: str = DEFAULT_IMAGE) -> SandboxEnvironmentType:
    """The sandbox an Inspect task of `entry` runs in: local, docker with the task's limits, or Inspect's own."""
    if kind == "docker":
        return SandboxEnvironmentSpec("docker", compose_config(entry, image))
    return kind


@metric
def pass_rate() -> Metric:
    """The fraction of samples whose grade passed (every check): cmb's pass rate, beside the mean check score."""

    def compute(scores: list[SampleScore]) -> float:
        if not scores:
            return 0.0
        return sum(bool((s.score.metadata or {}).get("passed")) for s in scores) / len(scores)

    return compute


async def _links(paths: Sequence[str]) -> set[str]:
    """The paths among `paths` (and their parent folders) that are symlinks in the sandbox.

    cmb reads a submission without following links; a copy out of the sandbox would follow them, so a linked
    answer file is left out and fails as missing.
    """
    prefixes = sorted({posixpath.join(*p.split("/")[: i + 1]) for p in paths for i in range(p.count("/") + 1)})
    script = 'for f in "$@"; do if [ -L "$f" ]; then printf "%s\\n" "$f"; fi; done'
    result = await sandbox().exec(["bash", "-c", script, "links", *prefixes])
    linked = set(result.stdout.split("\n")) - {""}
    return {p for p in paths if any(p == q or p.startswith(q + "/") for q in linked)}


async def collect_answers(entry: TaskEntry, folder: Path) -> list[str]:
    """Copy the task's declared answer files out of the sandbox into `folder`; return notes on what was left out."""
    notes: list[str] = []
    linked = await _links(entry.spec.answer_files)
    for rel in entry.spec.answer_files:
        if rel in linked:
            notes.append(f"{rel}: a symlink, not collected")
            continue
        try:
            data = await sandbox().read_file(rel, text=False)
        except (FileNotFoundError, IsADirectoryError, PermissionError):
            continue  # missing: the grader's own schema checks say so
        except OutputLimitExceededError as exc:
            notes.append(f"{rel}: too large to collect ({exc})")
            continue
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return notes


def _grade(entry: TaskEntry, folder: Path) -> GradeReport:
    return grade(entry.grader(), entry.reference(), folder, entry.reference_dir)


def report_score(report: GradeReport, notes: Sequence[str] = ()) -> Score:
    """An Inspect Score of a cmb grade: value the fraction of checks passed (1.0 exactly when the grade passed)."""
    failing = [c for c in report.checks if not c.passed]
    n = len(report.checks)
    if report.passed:
        answer = f"passed: {n}/{n} checks"
    else:
        category = report.failure_category.value if report.failure_category else "unknown"
        answer = f"failed ({category}): {n - len(failing)}/{n} checks passed"
    explanation = "\n".join([*notes, *(f"{c.id} [{c.category.value}]: {c.message}" for c in failing)])
    return Score(
        value=report.score,
        answer=answer,
        explanation=explanation or "every check passed",
        metadata={
            "passed": report.passed,
            "score": report.score,
            "partial_score": report.partial_score,
            "failure_category": report.failure_category.value if report.failure_category else None,
            "grader_hash": report.grader_hash,
            "checks": [
                {"id": c.id, "passed": c.passed, "message": c.message, "category": c.category.value}
                for c in report.checks
            ],
            "not_collected": list(notes),
        },
    )


@scorer(metrics=[mean(), stderr(), pass_rate()])
def cmb_scorer() -> Scorer:
    """Cmb's fixed-rule grader: the declared answer files, copied out of the sandbox, against the reference."""

    async def score(state: TaskState, target: Target) -> Score:
        entry = _entry_of(state.metadata)
        with tempfile.TemporaryDirectory(prefix=f"cmb-inspect-{entry.id}-") as tmp:
            notes = await collect_answers(entry, Path(tmp))
            report = await anyio.to_thread.run_sync(_grade, entry, Path(tmp))
        return report_score(report, notes)

    return score


def _tarball(folder: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        tar.add(folder, arcname=folder.name)  # links stay links, modes stay modes
    return buf.getvalue()


@solver
def cmb_oracle(timeout_s: int | None = None) -> Solver:
    """The task's trusted oracle (references/<id>/solution/solve.sh), run inside the sandbox.

    As cmb's `oracle` agent does, the solution goes to a folder outside the working folder the answers are
    collected from, and solve.sh runs in the working folder with CMB_SOLUTION_DIR set. `timeout_s` defaults to
    the task's time limit.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        entry = _entry_of(state.metadata)
        with tempfile.TemporaryDirectory(prefix=f"cmb-inspect-solution-{entry.id}-") as tmp:
            tarball = _tarball(assemble_solution(entry, Path(tmp) / "solution"))
        box = sandbox()
        made = await box.exec(["mktemp", "-d"])
        if not made.success:
            raise RuntimeError(f"cmb_oracle: mktemp failed in the sandbox: {made.stderr}")
        home = made.stdout.strip()
        limit = timeout_s or profile_of(entry).time_limit_s
        try:
            await box.write_file(f"{home}/solution.tar", tarball)
            unpacked = await box.exec(["tar", "-xf", f"{home}/solution.tar", "-C", home])
            if not unpacked.success:
                raise RuntimeError(f"cmb_oracle: could not unpack the solution: {unpacked.stderr}")
            solution = f"{home}/solution"
            env = {"CMB_SOLUTION_DIR": solution, "OMP_NUM_THREADS": "1"}
            try:
                result = await box.exec(["bash", f"{solution}/solve.sh"], env=env, timeout=limit)
                returncode, tail = result.returncode, (result.stderr or result.stdout)[-2000:]
            except TimeoutError:
                returncode, tail = None, f"timed out after {limit} s"
        finally:
            await box.exec(["rm", "-rf", home])  # the local sandbox cleans up its own folder only
        state.metadata["cmb_oracle"] = {"returncode": returncode, "output_tail": tail}
        summary = f"oracle of {entry.id} exited {returncode}" if returncode is not None else f"oracle: {tail}"
        state.output = ModelOutput.from_content(model="cmb/oracle", content=summary)
        return state

    return solve


def cmb_agent() -> Solver:
    """Inspect's basic ReAct agent with a shell and Python in the sandbox: a plain baseline agent."""
    return basic_agent(tools=[bash(), python()])


def build_task(
    task: str,
    condition: str | Condition | None = None,
    sandbox: str = "local",
    *,
    solver: Solver | None = None,
    root: Path | str | None = None,
    image: str = DEFAULT_IMAGE,
) -> Task:
    """One cmb task under one condition as an Inspect Task of one sample, graded by `cmb_scorer`.

    `condition` defaults to full guidance (SF, or WF for a workflow); `solver` to `cmb_agent()`. The time limit
    is the task's (its profile's unless it sets its own).
    """
    entry = catalog(root).get(task)
    sample = build_sample(entry, condition)
    chosen = _condition(entry, condition).value
    return Task(
        dataset=[sample],
        solver=solver if solver is not None else cmb_agent(),
        scorer=cmb_scorer(),
        sandbox=sandbox_for(entry, sandbox, image),
        time_limit=profile_of(entry).time_limit_s,
        name=f"cmb_{entry.id}_{chosen}",
        metadata={TASK_KEY: entry.id, CONDITION_KEY: chosen, "resources": entry.spec.resources, "sandbox": sandbox},
    )


def suite_tasks(
    tasks: Sequence[str] = ("all",),
    conditions: Sequence[str | Condition] | None = None,
    sandbox: str = "local",
    *,
    solver: Solver | None = None,
    root: Path | str | None = None,
    image: str = DEFAULT_IMAGE,
) -> list[Task]:
    """An Inspect Task for each selected task (ids, `study:NAME` or `all`) under each of its conditions.

    `conditions` keeps only those named (a task runs under the ones of its kind); default: every condition.
    """
    wanted = {Condition(c.upper() if isinstance(c, str) else c) for c in conditions} if conditions else None
    return [
        build_task(entry.id, c, sandbox, solver=solver, root=root, image=image)
        for entry in catalog(root).select(tasks)
        for c in entry.conditions()
        if wanted is None or c in wanted
    ]
