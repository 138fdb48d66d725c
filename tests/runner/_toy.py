"""A one-task suite written into a temporary folder, and a fake pw.x, for lifecycle and audit tests."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from cmb.agents import Run, WriteFile
from cmb.catalog import Catalog, TaskEntry
from cmb.models import Condition, RunKey

TASK = "toy-run"
ANSWER = '{"energy_ry": -15.85}'

FAKE_PW = """#!/bin/sh
# A stand-in for pw.x: FAKE_PW_MODE=fast (no time at all), nomarker (never finishes its output), fail (exit 3)
[ "$FAKE_PW_MODE" = fast ] || sleep 0.2
echo "     Program PWSCF v.6.7 starts on today"
echo "!    total energy              =     -15.85000000 Ry"
[ "$FAKE_PW_MODE" = fail ] && exit 3
[ "$FAKE_PW_MODE" = nomarker ] || echo "   JOB DONE."
exit 0
"""


def write_suite(root: Path, *, required_codes: str = "[pw.x]", kind: str = "run-and-analyze") -> TaskEntry:
    """tasks/, graders/ and references/ of one toy task; returns its catalog entry."""
    task_dir = root / "tasks" / "toy" / TASK
    (task_dir / "workspace").mkdir(parents=True)
    (task_dir / "task.yaml").write_text(
        f"version: 1\nid: {TASK}\nstudy: toy\nkind: {kind}\ncodes: [qe]\ntitle: Toy total energy\n"
        f"answer_files: [answer.json]\nworkspace: [scf.in]\nrequired_codes: {required_codes}\n"
    )
    (task_dir / "prompt.full.md").write_text("# Toy\n\nRun pw.x on scf.in and report the total energy.\n")
    (task_dir / "workspace" / "scf.in").write_text("&CONTROL\n/\n")
    (root / "graders").mkdir()
    (root / "graders" / f"{TASK}.yaml").write_text(
        f"version: 1\ntask: {TASK}\nchecks:\n"
        "  - {id: fields, type: schema.fields, category: format, target: {file: answer.json},"
        " params: {fields: {energy_ry: number}}}\n"
        "  - {id: energy, type: numeric.scalar, category: scientific, target: {file: answer.json, field: energy_ry},"
        " reference: energy_ry, tolerance: {abs: 0.01}}\n"
    )
    ref = root / "references" / TASK
    (ref / "solution").mkdir(parents=True)
    (ref / "reference.yaml").write_text(f"version: 1\ntask: {TASK}\nvalues:\n  energy_ry: {{value: -15.85}}\n")
    # what the recall baseline writes: here the right number, so only the code audit can stop it
    (ref / "recall.yaml").write_text(
        f"version: 1\ntask: {TASK}\nvalues:\n  - {{field: energy_ry, value: -15.85, source: a well-known toy value}}\n"
    )
    (ref / "solution" / "solve.sh").write_text(
        "#!/bin/sh\nset -e\npw.x -in scf.in > scf.out\n"
        "python3 -c \"import re,json; e=float(re.search(r'!.*=\\s*(\\S+)', open('scf.out').read()).group(1));"
        " json.dump({'energy_ry': e}, open('answer.json','w'))\"\n"
    )
    catalog = Catalog.load(root)
    assert not catalog.problems, catalog.problems
    return catalog.get(TASK)


def install_fake_pw(bin_dir: Path) -> Path:
    """A fake pw.x in `bin_dir` (put it first on PATH)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    pw = bin_dir / "pw.x"
    pw.write_text(FAKE_PW)
    pw.chmod(pw.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return pw


def key(task: str = TASK, agent: str = "test", trial: int = 0) -> RunKey:
    """An attempt key in a test sweep."""
    return RunKey(sweep="test", agent=agent, task=task, condition=Condition.SF, trial=trial)


def honest_steps() -> list[WriteFile | Run]:
    """Run the (fake) code and derive the answer from its output."""
    return [
        Run(shell="pw.x -in scf.in > scf.out"),
        Run(shell="grep -q 'JOB DONE' scf.out && printf '%s' '" + ANSWER + "' > answer.json"),
    ]


def path_with(bin_dir: Path) -> str:
    """PATH with `bin_dir` first."""
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
