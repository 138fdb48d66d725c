"""The kubernetes backend's pods: their states mapped to who is to blame, and a list + watch of a Job's pods."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from cmb.sandbox._base import SandboxError
from cmb.sandbox._kube_manifest import AGENT, FILES

# Container states and pod reasons, by who is to blame.
IMAGE_FAILURES = {"ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull"}
CONFIG_FAILURES = {"CreateContainerConfigError", "CreateContainerError", "RunContainerError"}
INFRA_POD_REASONS = {"Evicted", "NodeLost", "Preempting", "Shutdown", "Terminated", "UnexpectedAdmissionError"}
# The kubelet's eviction messages when a pod outgrew its own storage limits (the workspace emptyDir, the
# containers' ephemeral-storage): the agent filled its disk. Node pressure ("The node was low on resource") is not.
OWN_STORAGE_EVICTION = re.compile(
    r"Usage of EmptyDir volume .* exceeds the limit|Pod ephemeral local storage usage exceeds the total limit"
    r"|Container \S+ exceeded its local ephemeral storage limit"
)
DISK_LIMIT = "DiskLimit"

T = TypeVar("T")


# -- pod states ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PodVerdict:
    """Why a pod cannot (or can no longer) serve its attempt, and who is to blame."""

    blame: str  # "infrastructure" | "agent" | "pending"
    reason: str
    message: str = ""


def _statuses(pod: dict[str, Any]) -> dict[str, dict[str, Any]]:
    status = pod.get("status") or {}
    return {c.get("name", ""): c for c in status.get("containerStatuses") or []}


def container_running(pod: dict[str, Any], name: str) -> bool:
    """Whether a container of the pod runs now."""
    return "running" in ((_statuses(pod).get(name) or {}).get("state") or {})


def pod_ready(pod: dict[str, Any]) -> bool:
    """Both containers running."""
    return container_running(pod, AGENT) and container_running(pod, FILES)


def classify_pod(pod: dict[str, Any]) -> PodVerdict | None:
    """Map a pod's status to infrastructure vs agent failure; None while it is healthy (or still starting)."""
    status = pod.get("status") or {}
    reason = status.get("reason") or ""
    message = status.get("message") or ""
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return PodVerdict("infrastructure", "Deleted", "the pod is being deleted")
    if reason == "DeadlineExceeded":
        return PodVerdict("agent", "DeadlineExceeded", message or "the pod's active deadline passed")
    if reason == "Evicted" and OWN_STORAGE_EVICTION.search(message):
        return PodVerdict("agent", DISK_LIMIT, message)
    if reason in INFRA_POD_REASONS:
        return PodVerdict("infrastructure", reason, message)
    for cond in status.get("conditions") or []:
        if cond.get("type") == "DisruptionTarget" and cond.get("status") == "True":
            return PodVerdict("infrastructure", cond.get("reason") or "Disrupted", cond.get("message") or "")
    for name, cs in _statuses(pod).items():
        state = cs.get("state") or {}
        waiting = state.get("waiting") or {}
        if waiting.get("reason") in IMAGE_FAILURES | CONFIG_FAILURES:
            return PodVerdict("infrastructure", waiting["reason"], waiting.get("message") or "")
        terminated = state.get("terminated") or {}
        if terminated:
            why = terminated.get("reason") or f"exit {terminated.get('exitCode')}"
            if name == AGENT and why == "OOMKilled":
                return PodVerdict("agent", "OOMKilled", "the agent exceeded its memory limit")
            return PodVerdict("infrastructure", f"{name} container terminated: {why}", terminated.get("message") or "")
    if status.get("phase") in ("Failed", "Succeeded"):
        return PodVerdict("infrastructure", f"pod {status['phase']}", message)
    for cond in status.get("conditions") or []:
        if cond.get("type") == "PodScheduled" and cond.get("status") == "False":
            return PodVerdict("pending", "FailedScheduling", cond.get("message") or "")
    return None


# -- the watch ------------------------------------------------------------------------------------------------------


class _Gone(Exception):
    """The watch's resourceVersion expired (410 Gone): list again."""


class PodWatch:
    """The pods of one Job, kept current by list + watch in a thread; survives 410 Gone and dropped connections."""

    def __init__(self, api: Any, namespace: str, selector: str, *, window_s: int = 30) -> None:
        from kubernetes import client as k

        self.core = k.CoreV1Api(api)
        self.namespace = namespace
        self.selector = selector
        self.window_s = window_s
        self.pods: dict[str, dict[str, Any]] = {}
        self.seen = False  # a pod existed at some point
        self.rv: str | None = None
        self.relists = 0
        self.watches = 0
        self.failures = 0
        self.fatal: str | None = None
        self.cond = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"cmb-watch-{selector}", daemon=True)

    def start(self) -> None:
        """Start watching."""
        self._thread.start()

    def stop(self) -> None:
        """Stop at the end of the current watch window."""
        self._stop.set()

    def _update(self, pods: dict[str, dict[str, Any]]) -> None:
        with self.cond:
            self.pods = pods
            self.seen |= bool(pods)
            self.cond.notify_all()

    def _relist(self) -> None:
        resp = self.core.list_namespaced_pod(
            self.namespace, label_selector=self.selector, _preload_content=False, _request_timeout=(10, 60)
        )
        data = json.loads(resp.data)
        self.rv = data["metadata"]["resourceVersion"]
        self.relists += 1
        self._update({p["metadata"]["name"]: p for p in data.get("items") or []})

    def _stream(self) -> None:
        from kubernetes.watch.watch import iter_resp_lines

        self.watches += 1
        resp = self.core.list_namespaced_pod(
            self.namespace,
            label_selector=self.selector,
            watch=True,
            resource_version=self.rv,
            allow_watch_bookmarks=True,
            timeout_seconds=self.window_s,
            _preload_content=False,
            _request_timeout=(10, self.window_s + 15),
        )
        try:
            for line in iter_resp_lines(resp):
                if not line:
                    continue
                event = json.loads(line)
                obj = event.get("object") or {}
                if event.get("type") == "ERROR":
                    if obj.get("code") == 410:
                        raise _Gone()
                    raise RuntimeError(f"watch error {obj.get('code')}: {obj.get('message')}")
                self.rv = (obj.get("metadata") or {}).get("resourceVersion") or self.rv
                if event.get("type") == "BOOKMARK":
                    continue
                pods = dict(self.pods)
                name = obj["metadata"]["name"]
                if event.get("type") == "DELETED":
                    pods.pop(name, None)
                else:
                    pods[name] = obj
                self._update(pods)
                if self._stop.is_set():
                    return
        finally:
            resp.close()
            resp.release_conn()

    def _run(self) -> None:
        from kubernetes.client.exceptions import ApiException

        backoff = 0.2
        while not self._stop.is_set():
            try:
                if self.rv is None:
                    self._relist()
                self._stream()
                backoff = 0.2
            except _Gone:
                self.rv = None  # expired: list again, then watch from the fresh version
            except ApiException as exc:
                if exc.status == 410:
                    self.rv = None
                    continue
                if exc.status in (401, 403):
                    with self.cond:
                        self.fatal = f"not allowed to watch pods: {exc.status} {exc.reason}"
                        self.cond.notify_all()
                    return
                self.failures += 1
                time.sleep(backoff)
                backoff = min(5.0, backoff * 2)
            except Exception:  # a dropped connection, a reset, a truncated line: resume from the last version
                self.failures += 1
                time.sleep(backoff)
                backoff = min(5.0, backoff * 2)

    def wait_for(self, predicate: Callable[[dict[str, dict[str, Any]]], T | None], timeout_s: float) -> T | None:
        """Block until predicate(pods) is not None (returned), or the timeout (None)."""
        deadline = time.monotonic() + timeout_s
        with self.cond:
            while True:
                if self.fatal:
                    raise SandboxError(self.fatal)
                result = predicate(self.pods)
                if result is not None:
                    return result
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(min(left, 1.0))

    def current(self) -> dict[str, Any] | None:
        """The Job's pod (the newest, if the controller made more than one)."""
        with self.cond:
            if not self.pods:
                return None
            return max(self.pods.values(), key=lambda p: p["metadata"].get("creationTimestamp") or "")
