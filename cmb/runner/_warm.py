"""An attempt's sandbox, ready to take the task: started, the harness staged, its network proven closed.

What this preparation does is the same for every attempt of one sandbox shape, so a warm pool (cmb.sandbox's
SandboxPool) does it ahead of demand; without a pool it runs on the attempt's critical path, the same code.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from cmb.agents import SandboxPaths
from cmb.catalog import PROMPT_NAME
from cmb.runner._audit import NetworkProbe
from cmb.runner._codelog import code_table
from cmb.runner._isolation import NETPROBE, PROBE_TIMEOUT_S, probe_network
from cmb.runner._supervise import CODES_NAME, WRAPPER_NAME
from cmb.sandbox import Sandbox, SandboxError, SandboxPool, SandboxSpec, pool_for

WORK_DIR = "work"
HOME_DIR = ".agent"
HARNESS_DIR = ".cmb"
SUPERVISOR = Path(__file__).with_name("_supervise.py")
WRAPPER = Path(__file__).with_name("_codewrap.py")


@dataclass(frozen=True)
class Prepared:
    """What the runner knows of a prepared sandbox: where things are, the commands' environment, the probe."""

    paths: SandboxPaths
    env: dict[str, str]
    network: NetworkProbe


def base_env() -> dict[str, str]:
    """What every command in the sandbox sees besides the backend's own (PATH, threads): nothing of the harness's."""
    return {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


def prepare_sandbox(sandbox: Sandbox, check_network: bool) -> Prepared:
    """Find the workdir, stage the harness and the agent's home (one copy), then probe the network from inside."""
    root = _probe_root(sandbox)
    paths = SandboxPaths(
        root=root,
        work=f"{root}/{WORK_DIR}",
        home=f"{root}/{HOME_DIR}",
        harness=f"{root}/{HARNESS_DIR}",
        prompt_file=f"{root}/{WORK_DIR}/{PROMPT_NAME}",
    )
    with tempfile.TemporaryDirectory(prefix="cmb-harness-") as tmp:
        _stage_harness(Path(tmp))
        sandbox.put(Path(tmp))
    env = {**sandbox.thread_env(), **base_env(), "HOME": paths.home}
    if check_network:
        gateway = sandbox.gateway_url if sandbox.spec.gateway_url else None
        network = probe_network(sandbox, paths, gateway, env)
    else:
        network = NetworkProbe(ran=True, reached=[], error="not checked")
    return Prepared(paths, env, network.model_copy(update={"sandbox": sandbox.spec.name}))


def _stage_harness(folder: Path) -> None:
    harness = folder / HARNESS_DIR
    harness.mkdir()
    shutil.copyfile(SUPERVISOR, harness / "_supervise.py")
    shutil.copyfile(WRAPPER, harness / WRAPPER_NAME)
    shutil.copyfile(NETPROBE, harness / "_netprobe.py")
    (harness / CODES_NAME).write_text(code_table().model_dump_json(), encoding="utf-8")
    home = folder / HOME_DIR
    home.mkdir()
    (home / ".keep").write_text("", encoding="utf-8")


def _probe_root(sandbox: Sandbox) -> str:
    result = sandbox.exec(["/bin/sh", "-c", "pwd"], timeout_s=PROBE_TIMEOUT_S)
    root = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    if result.exit_code != 0 or not root.startswith("/"):
        raise SandboxError(f"cannot find the sandbox workdir (exit {result.exit_code}: {result.stderr[-200:]})")
    return root


@dataclass
class Claimed:
    """An attempt's sandbox, prepared, and the pool it came from (None: made for this attempt alone)."""

    sandbox: Sandbox
    prepared: Prepared
    pool: SandboxPool | None = None

    def release(self) -> None:
        """Done with it: a pooled sandbox is torn down in the background, an own one here."""
        if self.pool is not None:
            self.pool.retire(self.sandbox)
        else:
            self.sandbox.teardown()


def open_sandbox(
    backend: type[Sandbox], spec: SandboxSpec, check_network: bool, spares: int | None, warnings: list[str]
) -> Claimed:
    """The attempt's sandbox: claimed from this process's warm pool of its shape (spares given), else made now.

    `warnings` (what the runner noticed while resolving the spec) go on the sandbox either way. A pooled sandbox
    was made for at least the attempt's time limit and is named by its pool, not by the attempt's key.
    """
    if spares is None:
        sandbox = backend(spec)
        sandbox.warnings.extend(warnings)
        try:
            sandbox.start()
            return Claimed(sandbox, prepare_sandbox(sandbox, check_network))
        except BaseException:
            sandbox.teardown()  # as after a pool's failed warm-up: nothing half-prepared is left running
            raise
    pool = pool_for(_shape(backend, spec, check_network), lambda: _new_pool(backend, spec, check_network, spares))
    warm = pool.claim(spec.profile.time_limit_s)
    warm.sandbox.warnings.extend(warnings)
    prepared: Prepared = warm.facts
    network = prepared.network.model_copy(update={"warm_s": round(time.monotonic() - warm.entered_at, 3)})
    return Claimed(warm.sandbox, replace(prepared, network=network), pool)


def _new_pool(backend: type[Sandbox], spec: SandboxSpec, check_network: bool, spares: int) -> SandboxPool:
    return SandboxPool(backend, spec, lambda sandbox: prepare_sandbox(sandbox, check_network), max_spares=spares)


def _shape(backend: type[Sandbox], spec: SandboxSpec, check_network: bool) -> tuple[object, ...]:
    """What makes two sandboxes interchangeable: everything of the spec but its name and time limit."""
    return (
        backend,
        spec.image,
        spec.profile.model_dump_json(exclude={"time_limit_s"}),
        tuple(sorted(spec.env.items())),
        spec.workdir,
        spec.gateway_url,
        tuple(sorted((k, str(v)) for k, v in spec.readonly_mounts.items())),
        tuple(str(p) for p in spec.hidden),
        check_network,
    )
