r"""The `replay` agent and its trajectory format: a JSONL list of steps, each a file write or a command.

```
{"action": "write_file", "path": "answer.json", "content": "{\"x\": 1}"}
{"action": "write_file", "path": "data.bin", "content": "AAEC", "encoding": "base64"}
{"action": "run", "argv": ["pw.x", "-in", "scf.in"], "stdout": "scf.out", "timeout_s": 600}
{"action": "run", "shell": "python3 fit.py > answer.json"}
```
Paths are relative to the working folder. A replay records what it did in the same format (each step with a
`result`), so a replayed attempt can itself be replayed. Red-team tests are replays too: the sandbox, not the
replayer, is what keeps a hostile step in.
"""

from __future__ import annotations

import base64
import json
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, model_validator

from cmb.agents._base import Agent, AgentContext, AgentOutcome, register_agent
from cmb.models import CmbModel

TRAJECTORY_NAME = "trajectory.jsonl"
REPLAYER = Path(__file__).with_name("_replayer.py")


class WriteFile(CmbModel):
    """Write one file in the working folder."""

    action: Literal["write_file"] = "write_file"
    path: str
    content: str
    encoding: Literal["utf-8", "base64"] = "utf-8"
    result: dict[str, Any] | None = None


class Run(CmbModel):
    """Run one command in the working folder: an argv list, or a shell line."""

    action: Literal["run"] = "run"
    argv: list[str] | None = None
    shell: str | None = None
    stdout: str | None = Field(default=None, description="File (in the working folder) that receives stdout")
    timeout_s: float | None = Field(default=None, gt=0)
    result: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _one_form(self) -> Run:
        if (self.argv is None) == (self.shell is None):
            raise ValueError("a run step has exactly one of argv and shell")
        if self.argv is not None and not self.argv:
            raise ValueError("argv may not be empty")
        return self


Step = Annotated[WriteFile | Run, Field(discriminator="action")]
_STEPS: TypeAdapter[list[WriteFile | Run]] = TypeAdapter(list[Step])


def load_trajectory(path: Path) -> list[WriteFile | Run]:
    """Steps from a trajectory file, or from a previous attempt's artifacts folder.

    A folder holding a replay-format trajectory.jsonl replays it; otherwise its submission/ files are written back.
    """
    path = Path(path)
    if path.is_dir():
        traj = path / TRAJECTORY_NAME
        if traj.is_file():
            try:
                return load_trajectory(traj)
            except ValueError:
                pass  # another program's trajectory: fall back to the submitted files
        sub = path / "submission"
        if not sub.is_dir():
            raise ValueError(f"{path} holds neither a replay trajectory nor a submission/ folder")
        return [
            WriteFile(
                path=str(f.relative_to(sub)), content=base64.b64encode(f.read_bytes()).decode(), encoding="base64"
            )
            for f in sorted(sub.rglob("*"))
            if f.is_file() and not f.is_symlink()
        ]
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return _STEPS.validate_python(rows)


def dump_trajectory(steps: list[WriteFile | Run]) -> str:
    """JSONL text of steps."""
    return "".join(s.model_dump_json(exclude_none=True) + "\n" for s in steps)


@register_agent("replay")
class ReplayAgent(Agent):
    """Replays a recorded trajectory (a file or a previous attempt's artifacts folder) step by step."""

    def __init__(self, trajectory: str | Path | None = None, steps: list[WriteFile | Run] | None = None) -> None:
        if (trajectory is None) == (steps is None):
            raise ValueError("replay needs exactly one of trajectory=PATH and steps")
        self.steps = steps if steps is not None else load_trajectory(Path(str(trajectory)))

    def run(self, ctx: AgentContext) -> AgentOutcome:
        """Send the steps and the replayer in, run it once under the supervisor, bring its record back."""
        with tempfile.TemporaryDirectory(prefix="cmb-replay-") as tmp:
            stage = Path(tmp)
            (stage / "steps.jsonl").write_text(dump_trajectory(self.steps), encoding="utf-8")
            (stage / "replayer.py").write_text(REPLAYER.read_text(encoding="utf-8"), encoding="utf-8")
            ctx.put_dir(stage, ".replay")
        src = f"{ctx.paths.root}/.replay"
        record = f"{ctx.paths.home}/{TRAJECTORY_NAME}"
        result = ctx.exec(["python3", f"{src}/replayer.py", f"{src}/steps.jsonl", record])
        files: list[Path] = []
        with tempfile.TemporaryDirectory(prefix="cmb-replay-out-") as tmp:
            if ctx.fetch(record, Path(tmp)) and (Path(tmp) / TRAJECTORY_NAME).is_file():
                dest = ctx.artifacts_dir / TRAJECTORY_NAME
                dest.write_bytes((Path(tmp) / TRAJECTORY_NAME).read_bytes())
                files.append(dest)
        return AgentOutcome.from_exec(result, trajectory_files=files, steps=len(self.steps))
