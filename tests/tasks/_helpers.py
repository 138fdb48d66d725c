"""Helpers shared by the per-study task tests: grading a submission, running an oracle, probing tolerance edges.

Every study module keeps its own task lists and traps; what they all need (the catalog entry of a task, grading a
folder or an answer, the oracle run in a staged folder, the reference answer, the tolerance-edge probe, the
reduced-prompt check) lives here. The module-scoped `oracle_dirs` fixture is in conftest.py beside this file.
"""

from __future__ import annotations

import atexit
import copy
import importlib.util
import json
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from cmb.catalog import PROMPT_NAME, Catalog, TaskEntry, run_solution, stage_bundle
from cmb.grading import get_field, grade
from cmb.models import Check, Condition, GradeReport, GraderSpec, Reference, TaskSpec, Tolerance, WorkflowSpec
from cmb.settings import CmbSettings

ROOT = Path(__file__).resolve().parents[2]
CATALOG = Catalog.load(CmbSettings().root)
NUMERIC = ("numeric.scalar", "numeric.array")


# ------------------------------------------------------------------------------------------------ catalog entries


def reproduce_module(task: str, name: str) -> ModuleType:
    """A module of references/<task>/reproduce, imported with that folder first on sys.path. Reproduce folders
    share module names (values.py beside alternatives.py), so the folder's modules are dropped from sys.modules
    before and after: one task's values never stands in for another's in a test session."""
    folder = ROOT / "references" / task / "reproduce"
    local = {p.stem for p in folder.glob("*.py")}
    saved = {n: sys.modules.pop(n) for n in local if n in sys.modules}
    sys.path.insert(0, str(folder))
    try:
        spec = importlib.util.spec_from_file_location(f"{task.replace('-', '_')}_{name}", folder / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(folder))
        for n in local:
            sys.modules.pop(n, None)
        sys.modules.update(saved)


def entry(task: str) -> TaskEntry:
    return CATALOG.get(task)


def grade_dir(task: str, submission: Path) -> GradeReport:
    e = entry(task)
    return grade(e.grader(), e.reference(), submission, e.reference_dir)


def failed(report: GradeReport) -> set[str]:
    return {c.id for c in report.checks if not c.passed}


def write_answer(folder: Path, answer: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "answer.json").write_text(json.dumps(answer))
    return folder


def read_answer(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "answer.json").read_text())


def grade_answer(task: str, answer: dict[str, Any], folder: Path) -> GradeReport:
    return grade_dir(task, write_answer(folder, answer))


def stage_workspace(task: str, dest: Path) -> Path:
    """The agent's view without the prompt: the task's staged workspace files, nothing else."""
    e = entry(task)
    dest.mkdir(parents=True, exist_ok=True)
    for rel in e.spec.workspace:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(e.workspace_dir / rel, dest / rel)
    return dest


_ORACLE_RUNS: dict[str, Future[Path]] = {}
_LOCK = threading.Lock()
# Oracles run one at a time in the test thread; a session that will need many (the whole suite's oracle test is
# selected) runs the next one it needs beside it, on the second core. Each still runs once per session.
_PLANNED: list[str] = []
_AHEAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="oracle-ahead")
_ahead: Future[None] | None = None


def plan_oracles(tasks: Sequence[str]) -> None:
    """The tasks whose oracle this session will run (with the prompt staged); they are run ahead, one at a time."""
    _PLANNED[:] = list(dict.fromkeys(tasks))


def run_oracle(
    task: str, dest: Path, condition: Condition | None = None, *, timeout_s: float = 600, with_prompt: bool = True
) -> Path:
    """Stage `task` in `dest` (the bundle of `condition`, by default the first; or the bare workspace when
    `with_prompt` is false), run its oracle there and return `dest`.

    No oracle reads the prompt (test_suite.py checks that), so its output is the same under every condition and
    without any prompt: it runs once per task per test session, and each call gets its own copy with the prompt of
    the condition it asked for (or none)."""
    if condition is not None and not with_prompt:
        raise AssertionError("a condition needs the prompt staged")
    e = entry(task)
    run, mine = _claim(task)
    _run_ahead()
    if mine:
        _fill(run, e, timeout_s)
    shutil.copytree(run.result(), dest, symlinks=True, dirs_exist_ok=True)
    if with_prompt:
        (dest / PROMPT_NAME).write_text(e.prompt(condition or e.conditions()[0]), encoding="utf-8")
    else:
        (dest / PROMPT_NAME).unlink()
    return dest


def _claim(task: str) -> tuple[Future[Path], bool]:
    """The run of `task`, and whether the caller must make it (nobody has started it)."""
    with _LOCK:
        if task in _ORACLE_RUNS:
            return _ORACLE_RUNS[task], False
        _ORACLE_RUNS[task] = Future()
        return _ORACLE_RUNS[task], True


def _fill(run: Future[Path], e: TaskEntry, timeout_s: float) -> None:
    try:
        run.set_result(_run_oracle_once(e, _cache_dir(e.id), timeout_s=timeout_s))
    except BaseException as exc:  # the test that waits on it reports it
        run.set_exception(exc)


def _run_ahead() -> None:
    """Start the next planned oracle nobody has started, unless one already runs ahead."""
    global _ahead
    with _LOCK:
        if _ahead is not None and not _ahead.done():
            return
        task = next((t for t in _PLANNED if t not in _ORACLE_RUNS), None)
    if task is None:
        return
    run, mine = _claim(task)
    if mine:
        # the longest limit any test gives an oracle: one run ahead shares the machine with the test thread's
        _ahead = _AHEAD.submit(_fill, run, entry(task), 1800)


def _run_oracle_once(e: TaskEntry, dest: Path, *, timeout_s: float) -> Path:
    stage_bundle(e, e.conditions()[0], dest)
    proc = run_solution(e, dest, timeout_s=timeout_s)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return dest


def _cache_dir(task: str) -> Path:
    root = Path(tempfile.mkdtemp(prefix=f"cmb-oracle-{task}-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root / "run"


# ------------------------------------------------------------------------------------------------ reference answers


def numeric_checks(task: str, types: Sequence[str] = NUMERIC) -> list[Check]:
    return [c for c in entry(task).grader().checks if c.type in types]


def study_of(task: str) -> str:
    """The study a task belongs to."""
    return entry(task).spec.study


def with_field(doc: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of `doc` with the dotted field `path` set to `value`."""
    out = copy.deepcopy(doc)
    set_field(out, path, value)
    return out


def set_field(doc: dict[str, Any], path: str, value: Any) -> None:
    """Set the dotted field `path` of `doc` in place, creating the parent objects that are missing."""
    *parents, last = path.split(".")
    for key in parents:
        doc = doc.setdefault(key, {})
    doc[last] = value


def reference_answer(task: str, types: Sequence[str] = NUMERIC) -> dict[str, Any]:
    """A submission made of the reference values of every numeric check (dotted fields nested)."""
    ref = entry(task).reference()
    answer: dict[str, Any] = {}
    for check in numeric_checks(task, types):
        set_field(answer, check.target.field, ref.values[check.reference].value)
    return answer


# ------------------------------------------------------------------------------------------------ tolerance edges


def _moved(x: float, tol: Tolerance, side: int, factor: float) -> float:
    width = tol.width * abs(x) if tol.is_relative else tol.width
    return x + side * factor * width


def assert_tolerance_edges(
    task: str,
    base: dict[str, Any],
    tmp_path: Path,
    *,
    checks: Sequence[Check] | None = None,
    reference: Reference | None = None,
    grade_answer: Callable[[str, dict[str, Any], Path], GradeReport] = grade_answer,
    every_element: bool = True,
) -> None:
    """Each numeric check (by default every numeric check of the task): its value moved to just inside its
    tolerance passes, to just outside (either side) fails that check alone; the other fields stay as in `base`.

    An array check moves one element at a time, the others staying at the reference: every element when
    `every_element`, else only element `n % len` for the n-th check. `grade_answer(task, answer, folder)` grades
    one answer (a study may add the other answer files it needs)."""
    ref = reference or entry(task).reference()
    for n, check in enumerate(numeric_checks(task) if checks is None else checks):
        expected = ref.values[check.reference].value
        tol = check.effective_tolerance
        if not isinstance(expected, list):
            positions: Sequence[int | None] = [None]
        elif every_element:
            positions = range(len(expected))
        else:
            positions = [n % len(expected)]
        for pos in positions:
            for side in (1, -1):
                for factor, passes in ((0.98, True), (1.02, False)):
                    if pos is None:
                        value = _moved(expected, tol, side, factor)
                    else:
                        value = list(expected)
                        value[pos] = _moved(value[pos], tol, side, factor)
                    answer = copy.deepcopy(base)
                    set_field(answer, check.target.field, value)
                    report = grade_answer(task, answer, tmp_path / f"{check.id}-{pos}-{side}-{factor}")
                    if passes:
                        assert report.passed, (check.id, pos, side, factor, failed(report))
                    else:
                        assert failed(report) == {check.id}, (check.id, pos, side, factor, failed(report))


# ------------------------------------------------------------------------------------------------ files and prompts


def tolerance_offset(task: str, check: Check, answer: Mapping[str, Any]) -> float:
    """How far an answer's value for a numeric check lies from the reference, in units of its tolerance (1: the
    edge)."""
    assert check.reference is not None, check.id
    ref = entry(task).reference().values[check.reference].value
    tol = check.effective_tolerance
    return float(
        abs(get_field(answer, check.target.field) - ref) / (tol.width * abs(ref) if tol.is_relative else tol.width)
    )


def assert_routes_clear_the_tolerances(
    task: str,
    answers: Mapping[str, Mapping[str, Any]],
    valid: Sequence[str],
    traps: Mapping[str, set[str]],
    *,
    inside: float = 0.85,
    outside: float = 1.15,
) -> None:
    """Every valid route lies within `inside` of each numeric check's tolerance, and every trap beyond `outside`
    of the tolerance of each check it is meant to fail: no valid route or trap sits on an edge."""
    checks = {c.id: c for c in entry(task).grader().checks if c.tolerance is not None and c.reference}
    for check in checks.values():
        spread = max(tolerance_offset(task, check, answers[case]) for case in valid)
        assert spread < inside, (check.id, spread)
    for case, failing in traps.items():
        for check_id in failing:
            offset = tolerance_offset(task, checks[check_id], answers[case])
            assert offset > outside, (case, check_id, offset)


def assert_reduced_prompt_drops_only_the_method(task: str) -> None:
    """The reduced prompt is the full prompt without its `## Method` section, and the full one has that section."""
    e = entry(task)
    full, reduced = e.prompt(e.conditions()[0]), e.prompt(e.conditions()[1])
    assert "## Method" in full and "## Method" not in reduced
    assert re.sub(r"\n## Method\n.*?(?=\n## )", "", full, flags=re.S) == reduced


def assert_entry_is_consistent(task: str, study: str, extra_reference_files: Sequence[str] = ()) -> None:
    """The entry belongs to `study`, its prompts differ by the method only, its reference folder holds the oracle,
    the reproduce script, QC.md and `extra_reference_files`, and every check targets a declared answer file."""
    e = entry(task)
    assert e.spec.study == study
    assert_reduced_prompt_drops_only_the_method(task)
    for name in ("solution/solve.sh", "reproduce/reproduce.sh", "QC.md", *extra_reference_files):
        assert (e.reference_dir / name).is_file(), name
    for check in e.grader().checks:
        assert check.target.file in e.spec.answer_files
        assert check.description


def assert_empty_submission_fails(task: str, folder: Path) -> None:
    report = grade_dir(task, folder)
    assert not report.passed and report.score == 0 and report.failure_category == "format"


# ------------------------------------------------------------------------------------------------ VASP inputs


def incar_dict(text: str) -> dict[str, str]:
    """TAG -> value of a simple INCAR (one or more `TAG = value` statements per line, comments dropped)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = re.split(r"[#!]", line, maxsplit=1)[0]
        for stmt in line.split(";"):
            if "=" in stmt:
                tag, _, value = stmt.partition("=")
                out[tag.strip().upper()] = value.strip()
    return out


def incar_text(tags: dict[str, str]) -> str:
    return "".join(f"{k} = {v}\n" for k, v in tags.items())


def edited_oracle_inputs(
    task: str,
    oracle_dirs: dict[str, Path],
    tmp_path: Path,
    incar: str = "INCAR",
    set_: dict[str, str] | None = None,
    drop: tuple[str, ...] = (),
    files: dict[str, str] | None = None,
) -> GradeReport:
    """Grade the oracle's submission with one INCAR edited (tags set or removed) and/or files replaced."""
    sub = tmp_path / "sub"
    shutil.copytree(oracle_dirs[task], sub, dirs_exist_ok=True)
    tags = incar_dict((sub / incar).read_text())
    for t in drop:
        assert t in tags, t
        del tags[t]
    tags.update(set_ or {})
    (sub / incar).write_text(incar_text(tags))
    for name, text in (files or {}).items():
        (sub / name).write_text(text)
    return grade_dir(task, sub)


# ------------------------------------------------------------------------------------------------ files read directly


def task_dir(study: str, task: str) -> Path:
    return ROOT / "tasks" / study / task


def spec_of(study: str, task: str) -> TaskSpec | WorkflowSpec:
    """The task's (or workflow's) spec read straight from its YAML file, without the catalog."""
    folder = task_dir(study, task)
    if (folder / "workflow.yaml").is_file():
        return WorkflowSpec.model_validate(yaml.safe_load((folder / "workflow.yaml").read_text()))
    return TaskSpec.model_validate(yaml.safe_load((folder / "task.yaml").read_text()))


def grader_of(task: str) -> GraderSpec:
    return GraderSpec.model_validate(yaml.safe_load((ROOT / "graders" / f"{task}.yaml").read_text()))


def reference_of(task: str) -> Reference:
    return Reference.model_validate(yaml.safe_load((ROOT / "references" / task / "reference.yaml").read_text()))


def assert_files_are_consistent(study: str, task: str, *, reference_files: bool = True) -> None:
    """Spec, grader and reference read from disk agree on the task and study; the workspace files, the files the
    reference lists (when `reference_files`), the oracle, the reproduce script and QC.md exist."""
    spec, grader, ref = spec_of(study, task), grader_of(task), reference_of(task)
    assert spec.id == grader.task == ref.task == task
    assert spec.study == study
    for rel in spec.workspace:
        assert (task_dir(study, task) / "workspace" / rel).is_file()
    for check in grader.checks:
        assert check.target.file in spec.answer_files
        assert check.reference is None or check.reference in ref.values
    if reference_files:
        for name in ref.files:
            assert (ROOT / "references" / task / name).is_file()
    for name in ("solution/solve.sh", "reproduce/reproduce.sh", "QC.md"):
        assert (ROOT / "references" / task / name).is_file()
