"""A Harbor task folder as a cmb task: `cmb run PATH` and a sweep's `tasks: [harbor:PATH]`.

The folder (instruction.md, task.toml, environment/Dockerfile, tests/test.sh, solution/solve.sh) becomes a
one-task suite of cmb's own layout under a cache folder, keyed by the folder's content hash, so that cmb's runner,
store and analysis take it as they take any task:

- the prompt is instruction.md; the agent's time limit is [agent].timeout_sec; the verifier's, [verifier];
- the environment is built with the Docker engine. cmb's sandbox mounts its workspace at /workspace and keeps the
  root read-only, so a second layer links the environment's WORKDIR to cmb's working folder, and /tests and /logs
  into the verifier's folder there; the WORKDIR's files become the task's workspace files;
- the verifier is tests/ (hidden, in references/), run by cmb's runner in the sandbox after the agent has stopped
  (`TaskSpec.verifier`); the reward it writes (logs/verifier/reward.txt or reward.json) is read into
  .verifier/verdict.json, which cmb's fixed-rule grader checks: the task passes when the reward is 1;
- the oracle is solution/, run as cmb's oracle agent runs any solution.

What cmb's sandbox cannot give a Harbor task is refused with the reason, before anything runs: an environment of
several services, a WORKDIR at / or below cmb's /workspace. What it gives differently is documented: the agent
and the verifier run as cmb's unprivileged user, offline, under cmb's resource profile, and the image needs
python3 (cmb's supervisor runs every command).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from cmb.catalog import PROMPT_NAME, TaskEntry, load_model
from cmb.models import VERIFIER_DIR, VERIFIER_FILES, Kind, TaskSpec, VerifierSpec

PREFIX = "harbor:"  # a sweep's selector of a Harbor task folder, or of a folder of them (a dataset)
STUDY = "harbor"
# cmb's workspace volume in the sandbox (the working folder is work/ in it), and the agent image's WORKDIR
SANDBOX_WORKDIR = "/workspace"
VERDICT = f"{VERIFIER_DIR}/verdict.json"
MAX_WORKSPACE_BYTES = 256 * 1024 * 1024
BUILD_TIMEOUT_S = 1800
_COMPLETE = ".complete"

# Read the reward the way Harbor does (reward.txt: one number; reward.json: {"reward": number, ...}) into one
# JSON file, so that the grader's own checks say what is missing or wrong. python3 -I: nothing the agent left in
# the working folder or its home is imported.
_VERIFY = f"""bash /tests/test.sh
status=$?
python3 -I - "$status" <<'PY'
import json, math, pathlib, sys
logs = pathlib.Path("{VERIFIER_DIR}/logs/verifier")
verdict = {{"test_exit": int(sys.argv[1])}}
try:
    if (logs / "reward.txt").is_file():
        verdict["reward"] = float((logs / "reward.txt").read_text().split()[0])
    elif (logs / "reward.json").is_file():
        verdict["reward"] = float(json.loads((logs / "reward.json").read_text())["reward"])
except (ValueError, KeyError, IndexError, TypeError) as exc:
    verdict["error"] = f"unreadable reward: {{exc}}"
if not math.isfinite(verdict.get("reward", 0.0)):
    verdict.pop("reward")
pathlib.Path("{VERDICT}").write_text(json.dumps(verdict))
PY
"""


class HarborTaskError(ValueError):
    """A folder that is not a Harbor task cmb can run, with the reason."""


def is_harbor_task(path: Path) -> bool:
    """Whether `path` is a Harbor task folder (task.toml and instruction.md)."""
    return (path / "task.toml").is_file() and (path / "instruction.md").is_file()


def harbor_folders(path: Path) -> list[Path]:
    """The task folder `path`, or the task folders directly inside it (a Harbor dataset), sorted."""
    path = Path(path)
    if is_harbor_task(path):
        return [path]
    if path.is_dir():
        found = sorted(p for p in path.iterdir() if p.is_dir() and is_harbor_task(p))
        if found:
            return found
    raise HarborTaskError(f"{path} is not a Harbor task folder (task.toml and instruction.md), nor a folder of them")


def task_id(folder: Path) -> str:
    """The cmb id of a Harbor task: harbor- and its folder name, in cmb's id alphabet."""
    slug = re.sub(r"[^a-z0-9]+", "-", folder.name.lower()).strip("-")
    return f"harbor-{slug}"[:63].rstrip("-")


def content_hash(folder: Path) -> str:
    """Hash of every file's path and bytes: a changed task is a new task."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        h.update(str(path.relative_to(folder)).encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:12]


def default_cache() -> Path:
    """Where materialized Harbor tasks are kept: $XDG_CACHE_HOME/cmb/harbor."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cmb" / "harbor"


Docker = Callable[[Sequence[str], int], str]


def docker_cli(args: Sequence[str], timeout_s: int) -> str:
    """Run the docker client; its stdout, or a HarborTaskError with its stderr."""
    try:
        done = subprocess.run(  # noqa: S603 - the docker client, with arguments we built
            ["docker", *args], capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except FileNotFoundError:
        raise HarborTaskError("a Harbor task's environment is built with Docker; there is no docker client") from None
    except subprocess.TimeoutExpired:
        raise HarborTaskError(f"docker {args[0]} took over {timeout_s} s") from None
    if done.returncode != 0:
        raise HarborTaskError(f"docker {' '.join(args[:2])} failed: {done.stderr.strip()[-1500:]}")
    return done.stdout


def _config(folder: Path) -> dict[str, Any]:
    try:
        return tomllib.loads((folder / "task.toml").read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise HarborTaskError(f"{folder}/task.toml: {exc}") from None


def _check_environment(folder: Path) -> None:
    environment = folder / "environment"
    if not (environment / "Dockerfile").is_file():
        raise HarborTaskError(f"{folder}: cmb runs Harbor tasks whose environment is a Dockerfile; none found")
    compose = environment / "docker-compose.yaml"
    if compose.is_file():
        try:
            services = (yaml.safe_load(compose.read_text(encoding="utf-8")) or {}).get("services") or {}
        except yaml.YAMLError as exc:
            raise HarborTaskError(f"{compose}: {exc}") from None
        others = sorted(set(services) - {"main"})
        if others:
            raise HarborTaskError(
                f"{folder}: its environment has services besides main ({', '.join(others)}); a cmb sandbox is one "
                "container"
            )
    if not (folder / "tests" / "test.sh").is_file():
        raise HarborTaskError(f"{folder}: no tests/test.sh, the verifier that writes the reward")


def _extract_workdir(image: str, workdir: str, dest: Path, docker: Docker) -> list[str]:
    """Copy the environment's WORKDIR out of its image into `dest`; the regular files found, relative."""
    name = f"cmb-harbor-extract-{os.getpid()}-{hashlib.sha256(image.encode()).hexdigest()[:8]}"
    docker(["create", "--name", name, image], 120)
    try:
        with tempfile.TemporaryDirectory(prefix="cmb-harbor-") as tmp:
            docker(["cp", f"{name}:{workdir}/.", tmp], 600)
            files, total = [], 0
            for path in sorted(Path(tmp).rglob("*")):
                if path.is_symlink() or not path.is_file():
                    continue  # links stay out, as cmb's bundle never carries them
                total += path.stat().st_size
                if total > MAX_WORKSPACE_BYTES:
                    raise HarborTaskError(f"{image}: {workdir} holds over {MAX_WORKSPACE_BYTES} bytes")
                rel = str(path.relative_to(tmp))
                if rel == PROMPT_NAME:
                    continue  # the runner writes the prompt (instruction.md) itself
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, dest / rel)
                files.append(rel)
            return files
    finally:
        docker(["rm", "-f", name], 120)


def _layer(base: str, workdir: str, name: str) -> str:
    """The layer that fits a Harbor environment to cmb's sandbox (a read-only root, a workspace volume).

    The WORKDIR becomes a link to cmb's working folder, unless it is cmb's own /workspace (a task exported by
    cmb, whose paths are relative to the working folder); /tests and /logs link into the verifier's folder.
    """
    work = f"{SANDBOX_WORKDIR}/work"
    links = f"rm -rf /tests /logs && mkdir -p {SANDBOX_WORKDIR}"
    if workdir != SANDBOX_WORKDIR:
        links += f" && rm -rf {workdir} && mkdir -p {PurePosixPath(workdir).parent} && ln -s {work} {workdir}"
    links += f" && ln -s {work}/{VERIFIER_DIR}/tests /tests && ln -s {work}/{VERIFIER_DIR}/logs /logs"
    return (
        f"FROM {base}\nUSER root\nRUN {links}\n"
        f"LABEL cmb=1 cmb.image=harbor cmb.harbor-task={json.dumps(name)}\n"
        f"WORKDIR {SANDBOX_WORKDIR}\n"
    )


def _workdir_of(image: str, docker: Docker) -> str:
    workdir = docker(["image", "inspect", "--format", "{{.Config.WorkingDir}}", image], 60).strip()
    path = PurePosixPath(workdir or "/")
    if path == PurePosixPath("/") or not path.is_absolute():
        raise HarborTaskError(f"{image}: its WORKDIR is {workdir or '/'}; cmb needs a folder the agent works in")
    if PurePosixPath(SANDBOX_WORKDIR) in path.parents:
        raise HarborTaskError(f"{image}: its WORKDIR {workdir} is inside cmb's {SANDBOX_WORKDIR}")
    return str(path)


def _write_suite(
    folder: Path, config: dict[str, Any], root: Path, tid: str, image: str, workspace_dir: Path, files: list[str]
) -> None:
    agent, verifier = config.get("agent") or {}, config.get("verifier") or {}
    spec = TaskSpec(
        id=tid,
        study=STUDY,
        kind=Kind.RUN_AND_ANALYZE,  # the agent acts in an environment; the verifier checks the outcome
        codes=["harbor"],
        title=f"Harbor task {folder.name}",
        time_limit_s=math.ceil(float(agent.get("timeout_sec") or 3600)),
        answer_files=[VERDICT],
        workspace=files,
        image=image,
        verifier=VerifierSpec(
            command=_VERIFY,
            timeout_s=math.ceil(float(verifier.get("timeout_sec") or 600)),
            env={str(k): str(v) for k, v in (verifier.get("env") or {}).items()},
        ),
    )
    task_dir = root / "tasks" / STUDY / tid
    task_dir.mkdir(parents=True)
    (task_dir / "task.yaml").write_text(yaml.safe_dump(spec.model_dump(mode="json"), sort_keys=False))
    shutil.copyfile(folder / "instruction.md", task_dir / "prompt.full.md")
    shutil.move(str(workspace_dir), task_dir / "workspace")

    grader = {
        "version": 1,
        "task": tid,
        "checks": [
            {
                "id": "verdict",
                "type": "schema.file",
                "category": "format",
                "target": {"file": VERDICT},
                "params": {"format": "json"},
                "description": "The verifier ran and its reward was read.",
            },
            {
                "id": "reward",
                "type": "numeric.scalar",
                "category": "scientific",
                "target": {"file": VERDICT, "field": "reward"},
                "reference": "reward",
                "tolerance": {"abs": 1.0e-9},
                "description": "Harbor's reward: 1 when the task's tests pass.",
            },
        ],
    }
    (root / "graders").mkdir()
    (root / "graders" / f"{tid}.yaml").write_text(yaml.safe_dump(grader, sort_keys=False))

    reference = root / "references" / tid
    reference.mkdir(parents=True)
    values = {"reward": {"value": 1.0, "unit": "1", "note": "Harbor's reward of a solved task"}}
    (reference / "reference.yaml").write_text(yaml.safe_dump({"version": 1, "task": tid, "values": values}))
    shutil.copytree(folder / "tests", reference / VERIFIER_FILES)
    solution = reference / "solution"
    if (folder / "solution").is_dir():
        shutil.copytree(folder / "solution", solution / "harbor")
        (solution / "solve.sh").write_text(
            "#!/bin/bash\n# The Harbor task's own solution, run from the working folder.\n"
            'exec bash "$CMB_SOLUTION_DIR/harbor/solve.sh"\n'
        )
    (root / "SOURCE").write_text(f"{folder.resolve()}\n")


def _materialize(folder: Path, config: dict[str, Any], root: Path, tid: str, digest: str, docker: Docker) -> None:
    env_image = f"cmb-harbor-env:{tid}-{digest}"
    image = f"cmb-harbor:{tid}-{digest}"
    docker(["build", "-q", "-t", env_image, str(folder / "environment")], BUILD_TIMEOUT_S)
    workdir = _workdir_of(env_image, docker)
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    workspace = root / "staging-workspace"
    workspace.mkdir()
    files = _extract_workdir(env_image, workdir, workspace, docker)
    with tempfile.TemporaryDirectory(prefix="cmb-harbor-layer-") as ctx:
        (Path(ctx) / "Dockerfile").write_text(_layer(env_image, workdir, folder.name))
        docker(["build", "-q", "-t", image, ctx], BUILD_TIMEOUT_S)
    _write_suite(folder, config, root, tid, image, workspace, files)
    (root / _COMPLETE).write_text("")


def harbor_entry(folder: Path, cache: Path | None = None, docker: Docker | None = None) -> TaskEntry:
    """The cmb task of a Harbor task folder, materialized (and its images built) once per content hash.

    `cache` defaults to `default_cache()`, `docker` to the docker client (`docker_cli`).
    """
    folder = Path(folder)
    docker = docker or docker_cli
    if not is_harbor_task(folder):
        raise HarborTaskError(f"{folder} is not a Harbor task folder (task.toml and instruction.md)")
    config = _config(folder)
    _check_environment(folder)
    tid, digest = task_id(folder), content_hash(folder)
    cache = cache or default_cache()
    root = cache / f"{tid}-{digest}"
    spec_file = root / "tasks" / STUDY / tid / "task.yaml"
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / f"{tid}-{digest}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one materialization at a time; a waiting one finds it done
        if not (root / _COMPLETE).is_file():
            _materialize(folder, config, root, tid, digest, docker)
    return TaskEntry(spec=load_model(spec_file, TaskSpec), dir=spec_file.parent, root=root)


def harbor_entries(path: Path, cache: Path | None = None, docker: Docker | None = None) -> list[TaskEntry]:
    """Every Harbor task of `path` (one task folder or a dataset folder of them) as a cmb task."""
    return [harbor_entry(folder, cache, docker) for folder in harbor_folders(path)]
