"""Submitting a sweep as a Ray job to a remote cluster (through its dashboard's job API).

The resolved spec travels as the job's working directory (one `sweep.yaml`), and the entry point is the same
`cmb sweep` command, run by the job on the head node, where Ray is already up (RAY_ADDRESS is set by Ray), so
the driver, its retries and its resume behave exactly as on a laptop. The cluster's image must carry cmb and the
task suite; CMB_HOME must be storage every node shares (a ReadWriteMany volume, see deploy/ray/).
"""

from __future__ import annotations

import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import yaml

from cmb.models import SweepSpec

SPEC_NAME = "sweep.yaml"
TERMINAL = {"SUCCEEDED", "FAILED", "STOPPED"}


def job_entrypoint(extra_args: list[str]) -> str:
    """The command the Ray job runs."""
    return shlex.join(["cmb", "sweep", SPEC_NAME, "--executor", "ray", *extra_args])


def submit_sweep(
    spec: SweepSpec,
    address: str,
    *,
    extra_args: list[str] | None = None,
    env: dict[str, str] | None = None,
    wait: bool = True,
    stream: TextIO | None = None,
    client_factory: Callable[[str], Any] | None = None,
    poll_s: float = 2.0,
) -> tuple[str, str | None]:
    """Submit the sweep; returns (job id, final status or None when not waiting). Logs are followed on `stream`."""
    if client_factory is None:
        from ray.job_submission import JobSubmissionClient

        client_factory = JobSubmissionClient
    client = client_factory(address)
    out = stream or sys.stderr
    with tempfile.TemporaryDirectory(prefix="cmb-job-") as tmp:
        (Path(tmp) / SPEC_NAME).write_text(yaml.safe_dump(spec.model_dump(mode="json"), sort_keys=False))
        job_id = str(
            client.submit_job(
                entrypoint=job_entrypoint(extra_args or []),
                submission_id=f"cmb-{spec.name}-{int(time.time())}",
                runtime_env={"working_dir": tmp, "env_vars": dict(env or {})},
                metadata={"cmb.sweep": spec.name, "cmb.spec_hash": spec.spec_hash()},
            )
        )
    out.write(f"submitted Ray job {job_id} for sweep {spec.name} to {address}\n")
    if not wait:
        return job_id, None
    shown = 0
    while True:
        raw = client.get_job_status(job_id)
        status = str(getattr(raw, "value", raw))
        logs = client.get_job_logs(job_id) or ""
        if len(logs) > shown:
            out.write(logs[shown:])
            out.flush()
            shown = len(logs)
        if status in TERMINAL:
            return job_id, status
        time.sleep(poll_s)
