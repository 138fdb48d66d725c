"""cmb tasks as Harbor task folders (`cmb tasks export --format harbor`).

One folder per task and condition, in Harbor's layout:

    <id>-<condition>/
      instruction.md          the condition's prompt
      task.toml               resources and time limits from the task's profile; cmb's ids under [metadata]
      environment/            the cmb agent image with the task's workspace files and PROMPT.md in /workspace;
                              docker-compose.yaml takes the network away and caps the process count
      solution/solve.sh       runs the task's oracle (references/<id>/solution/, copied into solution/cmb/)
      tests/                  the verifier: cmb's grading package, the grader and the hidden reference

What the agent sees is what a cmb attempt sees. The hidden references are only in tests/, which Harbor copies
into the sandbox after the agent has finished; the verifier grades the declared answer files with
`cmb.grading.grade` (the same grade as `cmb grade`) and writes Harbor's reward file: 1 when every check passes,
else 0, with cmb's whole GradeReport beside it as cmb-report.json.

The verifier runs inside the agent image, which carries cmb's grading libraries (pydantic, PyYAML, qe-tools)
for that purpose; cmb's own grading code travels in tests/lib/, so the image need not change with cmb.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path

import cmb
from cmb.catalog import Catalog, TaskEntry, assemble_solution, stage_bundle
from cmb.integrations._harbor_load import (
    PREFIX,
    SANDBOX_WORKDIR,
    HarborTaskError,
    harbor_entries,
    harbor_entry,
    harbor_folders,
    is_harbor_task,
)
from cmb.models import Condition
from cmb.settings import DEFAULT_IMAGE

WORKDIR = SANDBOX_WORKDIR  # the agent image's working folder, which an exported task keeps when cmb runs it back
VERIFIER_TIMEOUT_S = 600.0
BUILD_TIMEOUT_S = 600.0
VERIFY_SCRIPT = Path(__file__).with_name("_harbor_verify.py")
# What of references/<id>/ the verifier needs: everything but the oracle, the reproduction and the QC records.
_NOT_FOR_THE_VERIFIER = frozenset({"solution", "reproduce", "QC.md", "recall.yaml", "fairness.yaml"})
# cmb's grading, and what it imports of cmb (grading is pure: see cmb.grading).
_GRADING_PARTS = ("__init__.py", "plugins.py", "grading", "models")


def folder_name(entry: TaskEntry, condition: Condition) -> str:
    """The exported folder of one task under one condition (Harbor's task name)."""
    return f"{entry.id}-{condition.value.lower()}"


def _toml_value(value: object) -> str:
    """A TOML value of a str, bool, number or list of them (JSON's string escapes are TOML's)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _toml(tables: dict[str, dict[str, object]], top: dict[str, object]) -> str:
    lines = [f"{k} = {_toml_value(v)}" for k, v in top.items()]
    for name, table in tables.items():
        lines += ["", f"[{name}]", *(f"{k} = {_toml_value(v)}" for k, v in table.items())]
    return "\n".join(lines) + "\n"


def task_toml(entry: TaskEntry, condition: Condition) -> str:
    """Harbor's task.toml: the profile as environment resources, its time limit as the agent's timeout."""
    profile = entry.profile()
    spec = entry.spec
    metadata: dict[str, object] = {
        "cmb_task": entry.id,
        "cmb_condition": condition.value,
        "cmb_version": cmb.__version__,
        "kind": spec.kind.value,
        "study": spec.study,
        "codes": list(spec.codes),
        "required_codes": list(spec.required_codes),
        "answer_files": list(spec.answer_files),
    }
    return _toml(
        {
            "metadata": metadata,
            "agent": {"timeout_sec": float(profile.time_limit_s)},
            "verifier": {"timeout_sec": VERIFIER_TIMEOUT_S, "environment_mode": "separate"},
            "solution.env": {"OMP_NUM_THREADS": "1"},
            "environment": {
                "build_timeout_sec": BUILD_TIMEOUT_S,
                "cpus": profile.cpus,
                "memory_mb": round(profile.memory_gib * 1024),
                "storage_mb": round(profile.disk_gib * 1024),
            },
        },
        {
            "schema_version": "1.4",
            # what the separate verifier gets of the agent's sandbox, at the same paths
            "artifacts": [f"{WORKDIR}/{rel}" for rel in spec.answer_files],
        },
    )


def _dockerfile(image: str) -> str:
    return (
        f"# The cmb agent image, with the task's workspace files and the prompt in {WORKDIR}.\n"
        f"FROM {image}\n"
        f"COPY --chown=1000:1000 workspace/ {WORKDIR}/\n"
        f"WORKDIR {WORKDIR}\n"
    )


def _compose(entry: TaskEntry) -> str:
    # cmb attempts run offline; Harbor's own no-network mode needs its egress sidecar image, compose does not.
    # The build context is Harbor's own (CONTEXT_DIR), or this folder where compose reads the file alone (lint).
    return (
        "services:\n  main:\n    build:\n      context: ${CONTEXT_DIR:-.}\n"
        f"    network_mode: none\n    pids_limit: {entry.profile().pids}\n"
    )


_SOLVE_SH = """#!/bin/bash
# The task's oracle, as cmb's oracle agent runs it: from the working folder, with its files in CMB_SOLUTION_DIR.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CMB_SOLUTION_DIR="$here/cmb" exec bash "$here/cmb/solve.sh"
"""

_TEST_SH = """#!/bin/bash
# cmb's grader on the answer files; writes /logs/verifier/reward.txt and cmb-report.json.
exec python3 -I /tests/verify.py
"""


def _copy_grading(dest: Path) -> None:
    package = Path(cmb.__file__).resolve().parent
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in _GRADING_PARTS:
        src = package / part
        if src.is_dir():
            shutil.copytree(src, dest / "cmb" / part, ignore=ignore)
        else:
            (dest / "cmb").mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest / "cmb" / part)


def _write_exec(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)


def export_task(entry: TaskEntry, condition: Condition, out: Path, image: str = DEFAULT_IMAGE) -> Path:
    """Write one Harbor task folder for `entry` under `condition` into `out`; return it (replaced if it exists)."""
    if condition not in entry.conditions():
        known = ", ".join(c.value for c in entry.conditions())
        raise ValueError(f"{entry.id} runs under {known}, not {condition.value}")
    folder = Path(out) / folder_name(entry, condition)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / "instruction.md").write_text(entry.prompt(condition), encoding="utf-8")
    (folder / "task.toml").write_text(task_toml(entry, condition), encoding="utf-8")

    environment = folder / "environment"
    stage_bundle(entry, condition, environment / "workspace")
    (environment / "Dockerfile").write_text(_dockerfile(image), encoding="utf-8")
    (environment / "docker-compose.yaml").write_text(_compose(entry), encoding="utf-8")

    solution = folder / "solution"
    assemble_solution(entry, solution / "cmb")
    _write_exec(solution / "solve.sh", _SOLVE_SH)

    tests = folder / "tests"
    tests.mkdir()
    _write_exec(tests / "test.sh", _TEST_SH)
    shutil.copyfile(VERIFY_SCRIPT, tests / "verify.py")
    shutil.copyfile(entry.grader_path, tests / "grader.yaml")
    reference = tests / "reference"
    reference.mkdir()
    for item in sorted(entry.reference_dir.iterdir()):
        if item.name in _NOT_FOR_THE_VERIFIER:
            continue
        if item.is_dir():
            shutil.copytree(item, reference / item.name)
        else:
            shutil.copyfile(item, reference / item.name)
    task = {"task": entry.id, "condition": condition.value, "answer_files": list(entry.spec.answer_files)}
    (tests / "task.json").write_text(json.dumps(task, indent=2) + "\n", encoding="utf-8")
    _copy_grading(tests / "lib")
    return folder


def export_tasks(
    catalog: Catalog,
    selectors: Iterable[str],
    out: Path,
    conditions: Sequence[Condition] | None = None,
    image: str = DEFAULT_IMAGE,
) -> list[Path]:
    """Export every selected task (ids, `study:NAME`, `all`) under each of its conditions (or those named)."""
    return [
        export_task(entry, c, out, image)
        for entry in catalog.select(selectors)
        for c in entry.conditions()
        if conditions is None or c in conditions
    ]


__all__ = [
    "PREFIX",
    "HarborTaskError",
    "export_task",
    "export_tasks",
    "folder_name",
    "harbor_entries",
    "harbor_entry",
    "harbor_folders",
    "is_harbor_task",
    "task_toml",
]
