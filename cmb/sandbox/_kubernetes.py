"""Sandbox backend: kubernetes. One Job per attempt, built from the official client's models.

The Job is named after the sandbox (the attempt's deterministic slug): a retried launch finds it (409 Conflict on
create) and attaches to it instead of starting a duplicate; a finished or dying one is deleted and recreated.

Pod shape. Two containers share a workspace emptyDir (and a /tmp emptyDir): `agent`, where commands run, with
the profile's CPU and memory as requests = limits (Guaranteed QoS), and `files`, a small helper through which
the bundle is staged and outputs are collected, so the outputs of an agent killed for memory can still be read.
Both run a keeper loop and nothing else; `activeDeadlineSeconds` bounds the pod's life and `ttlSecondsAfterFinished`
removes the Job afterwards. Security: non-root uid 1000, no privilege escalation, every capability dropped,
seccomp RuntimeDefault, read-only root filesystem, no service-account token, no service links. Workflow profiles
(node_exclusive) go to a dedicated, tainted node pool (`cmb/pool=workflow`, taint `cmb/workflow=true:NoSchedule`)
with a required anti-affinity against every other agent pod, so each gets a node of its own.

Staging and collection go through the exec API with tar, as `kubectl cp` does: no extra storage service, and the
agent pod's egress stays limited to the gateway and DNS (deploy/k8s NetworkPolicy). Commands run detached: an exec
starts them under `setsid` with a watchdog and returns; short long-polling execs wait for the exit code, which is
kept in /tmp. A dropped connection during a five-hour agent run therefore loses nothing, and a retried launch that
re-issues the same command attaches to the process already running instead of starting a second one.

Pod state comes from a list + watch of the Job's pods in a background thread that survives dropped connections
(it resumes from the last resourceVersion) and 410 Gone (it lists again). Failure causes are mapped to
infrastructure (SandboxError: FailedScheduling past its timeout, ImagePullBackOff, eviction, a lost node) or to the
agent (OOMKilled, DeadlineExceeded as a time-out) by `classify_pod`.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import math
import os
import tarfile
import tempfile
import threading
import time
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar

from cmb.sandbox._base import ExecResult, Measured, Sandbox, SandboxError, SandboxSpec, register_backend
from cmb.sandbox._cgroup import REPORT_SCRIPT, parse_report
from cmb.sandbox._files import extract_tar, relative_parts
from cmb.sandbox._kube_manifest import AGENT, FILES, MANAGED_BY, OWNER, ROLE, job_manifest
from cmb.sandbox._kube_pods import DISK_LIMIT, PodVerdict, PodWatch, classify_pod, pod_ready
from cmb.sandbox._owner import owner_dead, owner_of_label
from cmb.settings import CmbSettings, KubernetesSettings

log = logging.getLogger(__name__)

EXEC_ROOT = "/tmp/.cmb-exec"  # noqa: S108 - inside the pod's own /tmp emptyDir
OUTPUT_LIMIT = 8 * 2**20
TAR_CHUNK = 1 << 20

# Start a command detached, once per exec id: its own session, output to files, a watchdog killing the whole
# session at the limit, the exit code written last (atomically). Re-running it for a started id does nothing.
START = r"""d="$1"; cwd="$2"; limit="$3"; shift 3
mkdir -p "$d" || exit 90
[ -e "$d/started" ] && exit 0
: > "$d/started"
if ! cd "$cwd" 2>/dev/null; then echo "cannot enter $cwd" > "$d/err"; : > "$d/out"; echo 126 > "$d/rc"; exit 0; fi
(
  setsid "$@" > "$d/out" 2> "$d/err" < /dev/null &
  pid=$!
  echo "$pid" > "$d/pid"
  ( sleep "$limit"; : > "$d/timedout"; kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null ) &
  w=$!
  wait "$pid"; rc=$?
  kill "$w" 2>/dev/null
  echo "$rc" > "$d/rc.tmp" && mv "$d/rc.tmp" "$d/rc"
) > /dev/null 2>&1 &
"""

# Wait up to $2 tenths of a second for the exit code, then print it (or nothing).
WAIT = r"""i=0; while [ ! -e "$1/rc" ] && [ "$i" -lt "$2" ]; do sleep 0.1; i=$((i+1)); done; cat "$1/rc" 2>/dev/null"""

STAT = (
    r"""if [ -L "$1" ]; then echo link; elif [ -d "$1" ]; then echo dir; """
    r"""elif [ -e "$1" ]; then echo file; else echo none; fi"""
)


# -- the client ------------------------------------------------------------------------------------------------------

_config_lock = threading.Lock()
_config: dict[str | None, Any] = {}


def client_configuration(context: str | None = None) -> Any:
    """The cluster's client configuration: in-cluster when running in a pod, else the kubeconfig (cached)."""
    from kubernetes import client as k
    from kubernetes import config

    with _config_lock:
        if context not in _config:
            cfg = k.Configuration()
            if os.environ.get("KUBERNETES_SERVICE_HOST") and not os.environ.get("KUBECONFIG"):
                config.load_incluster_config(client_configuration=cfg)
            else:
                # KUBECONFIG is read now, not when the client was imported (it may be a ':'-separated list)
                config.load_kube_config(
                    config_file=os.environ.get("KUBECONFIG") or None, context=context, client_configuration=cfg
                )
            _config[context] = cfg
        return _config[context]


def reset_client_configuration() -> None:
    """Forget cached configurations (after KUBECONFIG changed)."""
    with _config_lock:
        _config.clear()


def _api_client(context: str | None) -> Any:
    from kubernetes import client as k

    return k.ApiClient(client_configuration(context))


@register_backend("kubernetes")
class KubernetesSandbox(Sandbox):
    """A Job in the cluster; commands run through the exec API."""

    runs_images = True
    kube: ClassVar[KubernetesSettings] = KubernetesSettings()  # the defaults; `configured` binds the effective ones

    host_mounts = False  # pods read the manuals the image carries (deploy/image builds them in)
    processes_outlive_exec = True  # one pod serves every exec of the attempt

    @classmethod
    def configured(cls, settings: CmbSettings) -> type[Sandbox]:
        """The backend bound to the kubernetes section of the settings."""
        return type(cls.__name__, (cls,), {"kube": settings.kubernetes, "__doc__": cls.__doc__})

    def __init__(self, spec: SandboxSpec) -> None:
        super().__init__(spec)
        self.settings = self.kube
        self.pod_name: str | None = None
        self.attached = False
        self._watch: PodWatch | None = None
        self._calls: dict[str, int] = {}
        if spec.readonly_mounts:
            self.warnings.append("readonly mounts are not available on kubernetes; bake manuals into the image")

    @classmethod
    def available(cls) -> str | None:
        """None when a cluster configuration can be loaded."""
        try:
            import kubernetes  # noqa: F401
        except ImportError:
            return "the kubernetes client is not installed (pip install kubernetes)"
        try:
            client_configuration(cls.kube.context)
        except Exception as exc:
            return f"no cluster configuration: {exc}"
        return None

    # -- lifecycle -------------------------------------------------------------------------------------------------

    def _apis(self) -> tuple[Any, Any]:
        from kubernetes import client as k

        api = _api_client(self.settings.context)
        return k.BatchV1Api(api), k.CoreV1Api(api)

    def start(self) -> None:
        """Create the Job (or attach to a live one of the same name) and wait until its pod runs."""
        from kubernetes.client.exceptions import ApiException

        batch, _ = self._apis()
        ns = self.settings.namespace
        body = job_manifest(self.spec, self.settings)
        for _ in range(3):
            try:
                batch.create_namespaced_job(ns, body)
                break
            except ApiException as exc:
                if exc.status != 409:
                    raise SandboxError(f"cannot create Job {self.spec.name}: {exc.status} {exc.reason}") from exc
                if self._attachable(batch):
                    self.attached = True
                    break
        else:
            raise SandboxError(f"Job {self.spec.name} exists and could not be replaced")
        self._watch = PodWatch(_api_client(self.settings.context), ns, f"job-name={self.spec.name}")
        self._watch.start()
        self._await_running()

    def _attachable(self, batch: Any) -> bool:
        """A live Job of the same name is attached to; a finished or dying one is deleted (then created anew)."""
        from kubernetes.client.exceptions import ApiException

        ns = self.settings.namespace
        try:
            job = batch.read_namespaced_job(self.spec.name, ns)
        except ApiException as exc:
            if exc.status == 404:
                return False  # gone meanwhile: create again
            raise SandboxError(f"cannot read Job {self.spec.name}: {exc.status} {exc.reason}") from exc
        status = job.status
        finished = any(
            c.type in ("Complete", "Failed") and c.status == "True"
            for c in (status.conditions if status else None) or []
        )
        if not finished and job.metadata.deletion_timestamp is None:
            log.info("attaching to running Job %s", self.spec.name)
            return True
        self._delete(wait_s=60)
        return False

    def _await_running(self) -> None:
        assert self._watch is not None
        started = time.monotonic()
        settings = self.settings

        def ready_or_failed(pods: dict[str, dict[str, Any]]) -> tuple[str, Any] | None:
            if not pods:
                return None
            pod = max(pods.values(), key=lambda p: p["metadata"].get("creationTimestamp") or "")
            verdict = classify_pod(pod)
            if verdict is not None and verdict.blame != "pending":
                return ("failed", verdict)
            if verdict is not None and time.monotonic() - started > settings.schedule_timeout_s:
                return ("failed", verdict)
            if pod_ready(pod):
                return ("ready", pod)
            return None

        result = self._watch.wait_for(ready_or_failed, settings.schedule_timeout_s + settings.start_timeout_s)
        if result is None:
            pod = self._watch.current()
            why = classify_pod(pod) if pod else None
            detail = f"{why.reason}: {why.message}" if why else "no running pod"
            raise SandboxError(f"Job {self.spec.name} did not start in time ({detail})")
        kind, value = result
        if kind == "failed":
            raise SandboxError(f"Job {self.spec.name} cannot run: {value.reason}: {value.message}".rstrip(": "))
        self.pod_name = value["metadata"]["name"]

    def alive(self) -> bool:
        """The pod runs and nothing has ended it (a pooled pod may have been evicted or deleted while it waited)."""
        return self.pod_name is not None and self._verdict() is None

    def measure(self) -> Measured | None:
        """The agent container's own cgroup, read by an exec (cgroup v2 on current nodes, v1 on older ones)."""
        if self.pod_name is None:
            return None
        try:
            code, out, _ = self._exec_retrying(AGENT, ["/bin/sh", "-c", REPORT_SCRIPT, "sh", "/sys/fs/cgroup"], tries=2)
        except (SandboxError, OSError):
            return None
        return parse_report(out.decode(errors="replace")) if code == 0 else None

    def teardown(self) -> None:
        """Delete the Job and its pods (background propagation); safe to call twice."""
        if self._watch is not None:
            self._watch.stop()
        self._delete(wait_s=0)
        self.pod_name = None

    def _delete(self, wait_s: float) -> None:
        from kubernetes.client.exceptions import ApiException

        batch, _ = self._apis()
        ns = self.settings.namespace
        try:
            batch.delete_namespaced_job(self.spec.name, ns, propagation_policy="Background", grace_period_seconds=0)
        except ApiException as exc:
            if exc.status != 404:
                log.warning("could not delete Job %s: %s %s", self.spec.name, exc.status, exc.reason)
                return
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            try:
                batch.read_namespaced_job(self.spec.name, ns)
            except ApiException as exc:
                if exc.status == 404:
                    return
            time.sleep(0.2)

    @classmethod
    def cleanup(cls, selector: str = "", *, finished_only: bool = False) -> list[str]:
        """Delete cmb's agent Jobs matching an extra label selector (e.g. a sweep's); returns their names.

        `finished_only` spares running Jobs, except those whose harness process is known dead (one of this host
        that no longer runs): a killed launcher's sandboxes, its warm pool's among them.
        """
        from kubernetes import client as k

        settings = cls.kube
        batch = k.BatchV1Api(_api_client(settings.context))
        base = f"{MANAGED_BY}=cmb,{ROLE}=agent"
        jobs = batch.list_namespaced_job(settings.namespace, label_selector=f"{base},{selector}".rstrip(","))
        removed = []
        for job in jobs.items:
            conditions = (job.status.conditions if job.status else None) or []
            finished = any(c.type in ("Complete", "Failed") and c.status == "True" for c in conditions)
            orphaned = owner_dead(owner_of_label((job.metadata.labels or {}).get(OWNER))) is True
            if finished_only and not (finished or orphaned):
                continue
            batch.delete_namespaced_job(job.metadata.name, settings.namespace, propagation_policy="Background")
            removed.append(job.metadata.name)
        return removed

    @classmethod
    def cleanup_orphans(cls) -> list[str]:
        """Finished agent Jobs whose TTL has not removed them yet, and running ones of a dead harness process."""
        return cls.cleanup(finished_only=True)

    # -- exec ------------------------------------------------------------------------------------------------------

    def _require_pod(self) -> str:
        if self.pod_name is None:
            raise SandboxError(f"sandbox {self.spec.name} is not started")
        return self.pod_name

    def _verdict(self) -> PodVerdict | None:
        pod = self._watch.current() if self._watch is not None else None
        if pod is None:
            return PodVerdict("infrastructure", "PodGone", "the pod disappeared") if self._watch else None
        return classify_pod(pod)

    def _exec_raw(
        self, container: str, argv: list[str], stdin: bytes | None = None, timeout_s: float = 120.0
    ) -> tuple[int, bytes, bytes]:
        """One exec over the websocket API: (exit code, stdout, stderr). Connection problems raise."""
        from kubernetes import client as k
        from kubernetes.stream import stream

        pod = self._require_pod()
        core = k.CoreV1Api(_api_client(self.settings.context))  # exec patches its client: never share it
        resp = stream(
            core.connect_get_namespaced_pod_exec,
            pod,
            self.settings.namespace,
            container=container,
            command=argv,
            stdin=stdin is not None,
            stdout=True,
            stderr=True,
            tty=False,
            binary=True,
            _preload_content=False,
            _request_timeout=timeout_s,
        )
        out, err = bytearray(), bytearray()
        try:
            if stdin is not None:
                for i in range(0, len(stdin), TAR_CHUNK):
                    resp.write_stdin(stdin[i : i + TAR_CHUNK])
                resp.close_channel(0)
            deadline = time.monotonic() + timeout_s
            while resp.is_open():
                resp.update(timeout=1)
                out += resp.read_channel(1)
                err += resp.read_channel(2)
                if time.monotonic() > deadline:
                    raise TimeoutError(f"exec in {pod}/{container} took longer than {timeout_s:.0f}s")
            out += resp.read_channel(1)
            err += resp.read_channel(2)
            status_text = resp.read_channel(3)
        finally:
            resp.close()
        if not status_text:
            raise ConnectionError(f"exec in {pod}/{container} ended without a status")
        status = json.loads(status_text)
        if status.get("status") == "Success":
            return 0, bytes(out), bytes(err)
        causes = (status.get("details") or {}).get("causes") or []
        code = next((c.get("message") for c in causes if c.get("reason") == "ExitCode"), None)
        if code is None:
            raise ConnectionError(f"exec in {pod}/{container} failed: {status.get('message')}")
        return int(code), bytes(out), bytes(err)

    def _exec_retrying(
        self, container: str, argv: list[str], stdin: bytes | None = None, timeout_s: float = 120.0, tries: int = 4
    ) -> tuple[int, bytes, bytes]:
        """An idempotent exec, retried over dropped connections; a dead pod becomes a SandboxError."""
        delay = 0.5
        for attempt in range(tries):
            try:
                return self._exec_raw(container, argv, stdin, timeout_s)
            except Exception as exc:  # dropped connection, handshake failure, timeout
                verdict = self._verdict()
                if verdict is not None and verdict.blame != "pending":
                    raise SandboxError(f"pod of {self.spec.name} failed: {verdict.reason}: {verdict.message}") from exc
                if attempt == tries - 1:
                    raise SandboxError(f"exec in {self.spec.name} failed {tries} times: {exc}") from exc
                time.sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")

    def _exec_id(self, argv: list[str], env: dict[str, str] | None, cwd: str | None, timeout_s: float) -> str:
        digest = hashlib.sha256(json.dumps([argv, sorted((env or {}).items()), cwd, timeout_s]).encode()).hexdigest()
        n = self._calls.get(digest, 0)
        self._calls[digest] = n + 1
        return f"{digest[:16]}-{n}"

    def exec(
        self, argv: list[str], timeout_s: float, env: dict[str, str] | None = None, cwd: str | None = None
    ) -> ExecResult:
        """Run a command detached in the agent container, wait for it, and return its outcome.

        The n-th identical call of a sandbox gets the same id in a retried launch, so a command still running
        from the previous launch is waited for instead of started twice.
        """
        if not argv:
            raise ValueError("empty command")
        self._require_pod()
        exec_id = self._exec_id(argv, env, cwd, timeout_s)
        state = f"{EXEC_ROOT}/{exec_id}"
        workdir = self._path(cwd) if cwd and not cwd.startswith("/") else (cwd or self.spec.workdir)
        limit = str(max(1, math.ceil(timeout_s)))
        command = ["env", *[f"{k}={v}" for k, v in sorted((env or {}).items())], *argv] if env else list(argv)
        t0 = time.monotonic()
        self._exec_retrying(AGENT, ["/bin/sh", "-c", START, "sh", state, workdir, limit, *command])
        rc: int | None = None
        hard_deadline = t0 + timeout_s + 120
        tenths = str(int(max(1.0, self.settings.poll_s) * 10))
        while rc is None:
            verdict = self._verdict()
            if verdict is not None and verdict.blame == "agent":
                return self._pod_ended(verdict, time.monotonic() - t0)
            if verdict is not None and verdict.blame == "infrastructure":
                raise SandboxError(f"pod of {self.spec.name} failed: {verdict.reason}: {verdict.message}")
            try:
                code, out, _ = self._exec_raw(AGENT, ["/bin/sh", "-c", WAIT, "sh", state, tenths],
                                              timeout_s=self.settings.poll_s + 30)  # fmt: skip
                text = out.decode().strip()
                rc = int(text) if code == 0 and text else None
            except Exception as exc:  # a dropped long-poll: the command runs on; look again
                log.debug("wait on %s interrupted: %s", exec_id, exc)
                time.sleep(0.5)
            if rc is None and time.monotonic() > hard_deadline:
                raise SandboxError(f"command in {self.spec.name} outlived its limit by 120 s")
        duration = time.monotonic() - t0
        _, out, _ = self._exec_retrying(FILES, ["tail", "-c", str(OUTPUT_LIMIT), f"{state}/out"])
        _, err, _ = self._exec_retrying(FILES, ["tail", "-c", str(OUTPUT_LIMIT), f"{state}/err"])
        code, _, _ = self._exec_retrying(FILES, ["test", "-e", f"{state}/timedout"])
        return ExecResult(
            exit_code=rc,
            stdout=out.decode("utf-8", "replace"),
            stderr=err.decode("utf-8", "replace"),
            duration_s=duration,
            timed_out=code == 0,
        )

    def _pod_ended(self, verdict: PodVerdict, duration: float) -> ExecResult:
        """The agent's container died (OOM), its pod outgrew its storage or its deadline passed: the agent's doing."""
        return ExecResult(
            exit_code=137,
            stdout="",
            stderr=f"{verdict.reason}: {verdict.message}\n",
            duration_s=duration,
            timed_out=verdict.reason == "DeadlineExceeded",
            oom_killed=verdict.reason == "OOMKilled",
            disk_exceeded=verdict.reason == DISK_LIMIT,
        )

    # -- files -----------------------------------------------------------------------------------------------------

    def _path(self, rel: str) -> str:
        parts = relative_parts(rel)
        return str(PurePosixPath(self.spec.workdir, *parts))

    def put(self, src: Path, dest: str = ".") -> None:
        """Copy a host folder's contents into the workspace: a tar stream into `tar -x` in the files container."""
        if not Path(src).is_dir():
            raise NotADirectoryError(f"{src} is not a folder")
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            for path in sorted(Path(src).rglob("*")):
                tar.add(path, arcname=str(path.relative_to(src)), recursive=False)
        data = buf.getvalue()
        target = self._path(dest)
        script = 'mkdir -p "$1" && head -c "$2" | tar -x -o -f - -C "$1"'
        code, _, err = self._exec_retrying(FILES, ["/bin/sh", "-c", script, "sh", target, str(len(data))], stdin=data)
        if code != 0:
            raise SandboxError(f"staging into {self.spec.name}:{target} failed: {err.decode(errors='replace')[-500:]}")

    def get(self, src: str, dest: Path, max_bytes: int = 256 * 1024 * 1024) -> None:
        """Copy a workspace path out as a tar stream from the files container (see Sandbox.get)."""
        path = self._path(src)
        _, kind_out, _ = self._exec_retrying(FILES, ["/bin/sh", "-c", STAT, "sh", path])
        kind = kind_out.decode().strip()
        if kind == "none":
            raise FileNotFoundError(f"{src} not found in the workspace of {self.spec.name}")
        if kind == "link":
            self.warnings.append(f"not copied out: {src} is a symbolic link")
            return
        if kind == "dir":  # the folder's contents, as members ./...
            argv = ["tar", "-c", "-f", "-", "-C", path, "."]
        else:
            argv = ["tar", "-c", "-f", "-", "-C", str(PurePosixPath(path).parent), "--", PurePosixPath(path).name]
        code, data, err = self._exec_retrying(FILES, argv, timeout_s=600)
        if code not in (0, 1):  # 1: a file changed while read
            raise SandboxError(f"collecting {src} from {self.spec.name} failed: {err.decode(errors='replace')[-500:]}")
        if len(data) > max_bytes + 64 * 2**20:
            self.warnings.append(f"not copied out: {src} is larger than the {max_bytes}-byte copy limit")
            return
        with tempfile.TemporaryFile() as spool:
            spool.write(data)
            spool.seek(0)
            with tarfile.open(fileobj=spool, mode="r|") as tar:
                extract_tar(tar, dest, 0, max_bytes, self.warnings.append)  # members are ./x or name
