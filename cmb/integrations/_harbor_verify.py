"""The verifier of an exported Harbor task (tests/verify.py): cmb's grade of the answer files, as Harbor's reward.

Runs inside the sandbox after the agent, with python3 of the cmb agent image and cmb's grading package from
tests/lib. Like cmb's collector it takes only the declared answer files, each a regular file reached through no
symlink, so a link out of the working folder fails as a missing answer. Writes reward.txt (1 when every check
passes, else 0) and cmb-report.json (the GradeReport) into Harbor's verifier log folder.
"""

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MAX_ANSWER_BYTES = 64 * 1024 * 1024
sys.path.insert(0, str(HERE / "lib"))

import yaml  # noqa: E402  (the image's, beside cmb's package in lib/)

from cmb.grading import grade  # noqa: E402
from cmb.models import GraderSpec, Reference  # noqa: E402


def _linked(work: Path, rel: str) -> bool:
    path = work
    for part in Path(rel).parts:
        path = path / part
        if path.is_symlink():
            return True
    return False


def collect(work: Path, answer_files: list[str], dest: Path) -> list[str]:
    """Copy the answer files out of `work` into `dest`; return notes on those left out."""
    notes = []
    for rel in answer_files:
        src = work / rel
        if _linked(work, rel):
            notes.append(f"{rel}: a symlink, not collected")
        elif src.is_file() and src.stat().st_size > MAX_ANSWER_BYTES:
            notes.append(f"{rel}: over {MAX_ANSWER_BYTES} bytes, not collected")
        elif src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest / rel)
    return notes


def main() -> int:
    task = json.loads((HERE / "task.json").read_text(encoding="utf-8"))
    work = Path(os.environ.get("CMB_WORKSPACE") or Path.cwd())  # Harbor runs the tests from the working folder
    logs = Path(os.environ.get("CMB_VERIFIER_LOGS") or "/logs/verifier")
    logs.mkdir(parents=True, exist_ok=True)
    spec = GraderSpec.model_validate(yaml.safe_load((HERE / "grader.yaml").read_text(encoding="utf-8")))
    reference_dir = HERE / "reference"
    reference = Reference.model_validate(yaml.safe_load((reference_dir / "reference.yaml").read_text(encoding="utf-8")))
    with tempfile.TemporaryDirectory(prefix="cmb-verify-") as tmp:
        notes = collect(work, task["answer_files"], Path(tmp))
        report = grade(spec, reference, Path(tmp), reference_dir)
    doc = json.loads(report.model_dump_json())
    doc["not_collected"] = notes
    (logs / "cmb-report.json").write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    (logs / "reward.txt").write_text("1\n" if report.passed else "0\n", encoding="utf-8")
    print(f"{task['task']}/{task['condition']}: {'passed' if report.passed else 'failed'}")
    for check in report.checks:
        print(f"  {'ok  ' if check.passed else 'FAIL'} {check.id} [{check.category.value}] {check.message}")
    for note in notes:
        print(f"  note: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
