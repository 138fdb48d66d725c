"""A local stand-in for a Kubernetes API server: the REST, watch and exec (websocket) protocols, enough of them
for the kubernetes sandbox backend, with the failure modes a real cluster has.

- Jobs: create (422 when the object fails strict schema validation, 409 when the name is taken), get, list by
  label, delete (its pods go too). A small job controller creates one pod per Job and "schedules" it: a pod asking
  for more CPU than the fake node has, or for a node pool the fake lacks, stays Pending/Unschedulable with a
  FailedScheduling event; an image listed in `pull_fail_images` ends in ImagePullBackOff; otherwise the pod runs.
- Pods: get, list, and watch (chunked JSON lines with resourceVersions and bookmarks). A watch from a version
  older than the retained history gets an ERROR 410 Gone event, as from a real server; `expire_history` and
  `gone_live_watches` force that, `drop_watches` and `drop_watch_after` cut connections mid-stream.
- Exec: a websocket speaking v5.channel.k8s.io (v4 too): stdin on channel 0 (closed with the v5 CLOSE signal),
  stdout/stderr on 1/2, the status on 3 (NonZeroExitCode with the exit code as a cause). The command runs on this
  machine, with the container's mount paths (its workdir, /tmp) mapped to per-pod folders, so tar, sh and the
  backend's detached-command protocol run for real. Exec into a container that is not running is refused with 400.
- Test controls: terminate a container (e.g. OOMKilled), evict a pod, exceed its deadline, finish a Job.

It runs an aiohttp server on 127.0.0.1 in a thread of the test process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import string
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

KUBE_VERSION = "1.30.0"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _matches(labels: dict[str, str], selector: str | None) -> bool:
    if not selector:
        return True
    for term in selector.split(","):
        term = term.strip()
        if not term:
            continue
        if "!=" in term:
            k, v = term.split("!=", 1)
            if labels.get(k.strip()) == v.strip():
                return False
        elif "=" in term:
            k, v = term.replace("==", "=").split("=", 1)
            if labels.get(k.strip()) != v.strip():
                return False
        elif labels.get(term) is None:
            return False
    return True


def _cpu(value: str) -> float:
    return float(value[:-1]) / 1000 if value.endswith("m") else float(value)


class FakeKubeApiServer:
    """See the module docstring. Start with `start()`, point a kubeconfig at `url`, stop with `stop()`."""

    def __init__(
        self, root: Path, *, node_cpus: float = 8, pools: tuple[str, ...] = (), validate_as: str | None = KUBE_VERSION
    ) -> None:
        self.root = root
        self.node_cpus = node_cpus
        self.pools = set(pools)
        self.validate_as = validate_as
        self.pull_fail_images: set[str] = set()
        self.start_delay_s = 0.1
        self.drop_watch_after: int | None = None  # cut every watch connection after this many events
        self.rv = 100
        self.history_floor = 0  # watches from a version below this get 410 Gone
        self.jobs: dict[tuple[str, str], dict[str, Any]] = {}
        self.pods: dict[tuple[str, str], dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self.history: list[tuple[int, str, dict[str, Any]]] = []  # (rv, type, pod)
        self.watchers: set[asyncio.Queue[Any]] = set()
        self.requests: list[tuple[str, str]] = []
        self.exec_log: list[tuple[str, str, list[str]]] = []  # (pod, container, argv as sent)
        self.watch_requests = 0
        self.created_jobs: list[dict[str, Any]] = []
        self.loop: asyncio.AbstractEventLoop | None = None
        self.port = 0
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._ready = threading.Event()

    # -- lifecycle ---------------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kubeconfig(self, path: Path, namespace: str = "cmb-agents") -> Path:
        path.write_text(json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "fake",
            "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
            "users": [{"name": "fake", "user": {"token": "fake-token"}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake", "namespace": namespace}}],
        }))  # fmt: skip
        return path

    def start(self) -> FakeKubeApiServer:
        self._thread = threading.Thread(target=self._serve, name="fake-kube-apiserver", daemon=True)
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("fake API server did not start")
        return self

    def _serve(self) -> None:
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        app = web.Application(client_max_size=1024**3)
        app.router.add_route("*", "/{tail:.*}", self._dispatch)
        self._runner = web.AppRunner(app)
        self.loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._ready.set()
        self.loop.run_forever()

    def stop(self) -> None:
        if self.loop is None:
            return

        async def shutdown() -> None:
            for q in list(self.watchers):
                q.put_nowait(("DROP", None))
            assert self._runner is not None
            await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    def call(self, fn: Any, *args: Any) -> Any:
        """Run fn(*args) on the server's loop (test controls must not race the handlers)."""
        assert self.loop is not None

        async def run() -> Any:
            return fn(*args)

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(30)

    # -- state changes (on the loop) -----------------------------------------------------------------------------

    def _bump(self, obj: dict[str, Any]) -> None:
        self.rv += 1
        obj["metadata"]["resourceVersion"] = str(self.rv)

    def _pod_event(self, kind: str, pod: dict[str, Any]) -> None:
        self._bump(pod)
        snapshot = json.loads(json.dumps(pod))
        self.history.append((self.rv, kind, snapshot))
        for q in list(self.watchers):
            q.put_nowait((kind, snapshot))

    def _set_pod(self, pod: dict[str, Any], kind: str = "MODIFIED") -> None:
        self.pods[(pod["metadata"]["namespace"], pod["metadata"]["name"])] = pod
        self._pod_event(kind, pod)

    def _make_pod(self, ns: str, job: dict[str, Any]) -> None:
        name = f"{job['metadata']['name']}-{''.join(random.choices(string.ascii_lowercase, k=5))}"
        template = job["spec"]["template"]
        labels = {**(template.get("metadata") or {}).get("labels", {}), "job-name": job["metadata"]["name"],
                  "batch.kubernetes.io/job-name": job["metadata"]["name"],
                  "controller-uid": job["metadata"]["uid"]}  # fmt: skip
        pod = {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "uid": str(uuid.uuid4()), "labels": labels,
                         "creationTimestamp": _now(),
                         "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": job["metadata"]["name"],
                                              "uid": job["metadata"]["uid"], "controller": True}]},
            "spec": json.loads(json.dumps(template["spec"])),
            "status": {"phase": "Pending", "conditions": []},
        }  # fmt: skip
        (self.root / name).mkdir(parents=True, exist_ok=True)
        self._set_pod(pod, "ADDED")
        assert self.loop is not None
        self.loop.call_later(self.start_delay_s, self._schedule, ns, name)

    def _schedule(self, ns: str, name: str) -> None:
        pod = self.pods.get((ns, name))
        if pod is None:
            return
        spec = pod["spec"]
        cpus = sum(_cpu(c["resources"]["requests"]["cpu"]) for c in spec["containers"])
        pool = (spec.get("nodeSelector") or {}).get("cmb/pool")
        why = None
        if cpus > self.node_cpus:
            why = f"0/1 nodes are available: 1 Insufficient cpu ({cpus} requested, {self.node_cpus} allocatable)."
        elif pool is not None and pool not in self.pools:
            why = "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."
        if why is not None:
            pod["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                            "message": why, "lastTransitionTime": _now()}]  # fmt: skip
            self.events.append({"metadata": {"name": f"{name}.{self.rv}", "namespace": ns},
                                "involvedObject": {"kind": "Pod", "name": name, "namespace": ns},
                                "reason": "FailedScheduling", "message": why, "type": "Warning"})  # fmt: skip
            self._set_pod(pod)
            return
        pod["spec"]["nodeName"] = "fake-node"
        pod["status"]["conditions"] = [{"type": "PodScheduled", "status": "True", "lastTransitionTime": _now()}]
        pod["status"]["containerStatuses"] = [
            {"name": c["name"], "image": c["image"], "ready": False, "restartCount": 0, "imageID": "",
             "state": {"waiting": {"reason": "ContainerCreating"}}}
            for c in spec["containers"]
        ]  # fmt: skip
        self._set_pod(pod)
        assert self.loop is not None
        self.loop.call_later(self.start_delay_s, self._run_containers, ns, name)

    def _run_containers(self, ns: str, name: str) -> None:
        pod = self.pods.get((ns, name))
        if pod is None:
            return
        spec = pod["spec"]
        statuses = []
        for c in spec["containers"]:
            if c["image"] in self.pull_fail_images:
                state = {"waiting": {"reason": "ImagePullBackOff",
                                     "message": f'Back-off pulling image "{c["image"]}"'}}  # fmt: skip
            else:
                state = {"running": {"startedAt": _now()}}
            statuses.append({"name": c["name"], "image": c["image"], "ready": "running" in state, "restartCount": 0,
                             "state": state, "imageID": "", "containerID": f"fake://{uuid.uuid4().hex}"})  # fmt: skip
        pod["status"]["containerStatuses"] = statuses
        if all("running" in s["state"] for s in statuses):
            pod["status"]["phase"] = "Running"
            pod["status"]["conditions"].append({"type": "Ready", "status": "True", "lastTransitionTime": _now()})
        self._set_pod(pod)

    def _delete_pod(self, key: tuple[str, str]) -> None:
        pod = self.pods.pop(key, None)
        if pod is not None:
            self._pod_event("DELETED", pod)

    # -- test controls (from the test thread) ---------------------------------------------------------------------

    def pod_of(self, job: str, ns: str = "cmb-agents") -> dict[str, Any]:
        def find() -> dict[str, Any]:
            pods = [p for (n, _), p in self.pods.items() if n == ns and p["metadata"]["labels"].get("job-name") == job]
            assert pods, f"no pod for job {job}"
            return json.loads(json.dumps(pods[-1]))

        return self.call(find)  # type: ignore[no-any-return]

    def terminate_container(self, pod: str, container: str, reason: str, exit_code: int = 137,
                            ns: str = "cmb-agents") -> None:  # fmt: skip
        def go() -> None:
            p = self.pods[(ns, pod)]
            for s in p["status"]["containerStatuses"]:
                if s["name"] == container:
                    s["state"] = {"terminated": {"reason": reason, "exitCode": exit_code, "finishedAt": _now()}}
                    s["ready"] = False
            self._set_pod(p)

        self.call(go)

    def evict(self, pod: str, ns: str = "cmb-agents", message: str = "The node was low on resource: memory. ") -> None:
        """The kubelet's eviction: node pressure by default, or a pod over its own storage limit (`message`)."""

        def go() -> None:
            p = self.pods[(ns, pod)]
            p["status"].update({"phase": "Failed", "reason": "Evicted", "message": message})
            p["status"]["conditions"].append({"type": "DisruptionTarget", "status": "True",
                                              "reason": "TerminationByKubelet"})  # fmt: skip
            self._set_pod(p)

        self.call(go)

    def deadline_exceeded(self, pod: str, ns: str = "cmb-agents") -> None:
        def go() -> None:
            p = self.pods[(ns, pod)]
            message = "Pod was active on the node longer than the specified deadline"
            p["status"].update({"phase": "Failed", "reason": "DeadlineExceeded", "message": message})
            self._set_pod(p)

        self.call(go)

    def finish_job(self, job: str, condition: str = "Complete", ns: str = "cmb-agents") -> None:
        def go() -> None:
            j = self.jobs[(ns, job)]
            j["status"] = {"conditions": [{"type": condition, "status": "True", "lastTransitionTime": _now()}]}
            self._bump(j)

        self.call(go)

    def expire_history(self) -> None:
        """Compact: every version seen so far is now too old to watch from."""
        self.call(lambda: setattr(self, "history_floor", self.rv + 1))

    def gone_live_watches(self) -> None:
        """Send 410 Gone to every open watch (as after an etcd compaction) and expire the history."""

        def go() -> None:
            self.history_floor = self.rv + 1
            for q in list(self.watchers):
                q.put_nowait(("GONE", None))

        self.call(go)

    def drop_watches(self) -> None:
        """Cut every open watch connection without a proper end."""
        self.call(lambda: [q.put_nowait(("DROP", None)) for q in list(self.watchers)])

    # -- HTTP ------------------------------------------------------------------------------------------------------

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        parts = [p for p in request.path.split("/") if p]
        self.requests.append((request.method, request.path))
        try:
            if parts[:2] == ["apis", "batch"] and len(parts) >= 6 and parts[5] == "jobs":
                return await self._jobs(request, parts[4], parts[6] if len(parts) > 6 else None)
            if parts[:2] == ["api", "v1"] and len(parts) >= 5 and parts[4] == "pods":
                if len(parts) == 7 and parts[6] == "exec":
                    return await self._exec(request, parts[3], parts[5])
                return await self._pods(request, parts[3], parts[5] if len(parts) > 5 else None)
            if parts[:2] == ["api", "v1"] and len(parts) == 5 and parts[4] == "events":
                items = [e for e in self.events if e["metadata"]["namespace"] == parts[3]]
                fs = request.query.get("fieldSelector", "")
                if fs.startswith("involvedObject.name="):
                    items = [e for e in items if e["involvedObject"]["name"] == fs.split("=", 1)[1]]
                return web.json_response({"kind": "EventList", "apiVersion": "v1",
                                          "metadata": {"resourceVersion": str(self.rv)}, "items": items})  # fmt: skip
            if parts == ["version"]:
                major, minor, _ = KUBE_VERSION.split(".")
                return web.json_response({"major": major, "minor": minor, "gitVersion": f"v{KUBE_VERSION}"})
        except KeyError:
            pass
        return self._status(404, "NotFound", f"{request.path} not found")

    @staticmethod
    def _status(code: int, reason: str, message: str) -> web.Response:
        return web.json_response({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                  "message": message, "reason": reason, "code": code}, status=code)  # fmt: skip

    async def _jobs(self, request: web.Request, ns: str, name: str | None) -> web.StreamResponse:
        if request.method == "POST" and name is None:
            body = await request.json()
            if self.validate_as:
                import kubernetes_validate

                try:
                    kubernetes_validate.validate(body, self.validate_as, strict=True)
                except kubernetes_validate.ValidationError as exc:
                    return self._status(422, "Invalid", f"Job is invalid: {exc}")
            job_name = body["metadata"]["name"]
            if (ns, job_name) in self.jobs:
                return self._status(409, "AlreadyExists", f'jobs.batch "{job_name}" already exists')
            body["metadata"].update({"namespace": ns, "uid": str(uuid.uuid4()), "creationTimestamp": _now()})
            body["status"] = {}
            self._bump(body)
            self.jobs[(ns, job_name)] = body
            self.created_jobs.append(json.loads(json.dumps(body)))
            self._make_pod(ns, body)
            return web.json_response(body, status=201)
        if request.method == "GET" and name is None:
            selector = request.query.get("labelSelector")
            items = [j for (n, _), j in self.jobs.items() if n == ns and _matches(j["metadata"]["labels"], selector)]
            return web.json_response({"kind": "JobList", "apiVersion": "batch/v1",
                                      "metadata": {"resourceVersion": str(self.rv)}, "items": items})  # fmt: skip
        if name is None or (ns, name) not in self.jobs:
            return self._status(404, "NotFound", f'jobs.batch "{name}" not found')
        if request.method == "GET":
            return web.json_response(self.jobs[(ns, name)])
        if request.method == "DELETE":
            job = self.jobs.pop((ns, name))
            for key, pod in list(self.pods.items()):
                if key[0] == ns and pod["metadata"]["labels"].get("job-name") == name:
                    self._delete_pod(key)
            details = {"name": name, "kind": "jobs", "uid": job["metadata"]["uid"]}
            return web.json_response({"kind": "Status", "apiVersion": "v1", "status": "Success", "details": details})
        return self._status(405, "MethodNotAllowed", request.method)

    async def _pods(self, request: web.Request, ns: str, name: str | None) -> web.StreamResponse:
        if name is not None:
            pod = self.pods.get((ns, name))
            if pod is None:
                return self._status(404, "NotFound", f'pods "{name}" not found')
            return web.json_response(pod)
        selector = request.query.get("labelSelector")
        if (request.query.get("watch") or "").lower() in ("true", "1"):
            return await self._watch(request, ns, selector)
        items = [p for (n, _), p in self.pods.items() if n == ns and _matches(p["metadata"]["labels"], selector)]
        return web.json_response({"kind": "PodList", "apiVersion": "v1",
                                  "metadata": {"resourceVersion": str(self.rv)}, "items": items})  # fmt: skip

    async def _watch(self, request: web.Request, ns: str, selector: str | None) -> web.StreamResponse:
        self.watch_requests += 1
        since = int(request.query.get("resourceVersion") or 0)
        timeout = float(request.query.get("timeoutSeconds") or 300)
        resp = web.StreamResponse(headers={"Content-Type": "application/json"})
        await resp.prepare(request)

        async def send(kind: str, obj: dict[str, Any]) -> None:
            await resp.write(json.dumps({"type": kind, "object": obj}).encode() + b"\n")

        gone = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Expired", "code": 410,
                "message": f"too old resource version: {since} ({self.history_floor})"}  # fmt: skip
        if since and since < self.history_floor:
            await send("ERROR", gone)
            return resp

        def wanted(pod: dict[str, Any]) -> bool:
            return pod["metadata"]["namespace"] == ns and _matches(pod["metadata"]["labels"], selector)

        queue: asyncio.Queue[Any] = asyncio.Queue()
        self.watchers.add(queue)
        sent = 0
        try:
            if since == 0:
                for pod in list(self.pods.values()):
                    if wanted(pod):
                        queue.put_nowait(("ADDED", pod))
            else:
                for rv, kind, pod in self.history:
                    if rv > since and wanted(pod):
                        queue.put_nowait((kind, pod))
            deadline = time.monotonic() + timeout
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return resp
                try:
                    kind, pod = await asyncio.wait_for(queue.get(), timeout=min(left, 1.0))
                except TimeoutError:
                    await send("BOOKMARK", {"kind": "Pod", "apiVersion": "v1",
                                            "metadata": {"resourceVersion": str(self.rv)}})  # fmt: skip
                    continue
                if kind == "DROP":
                    if request.transport is not None:
                        request.transport.abort()
                    return resp
                if kind == "GONE":
                    await send("ERROR", gone)
                    return resp
                if not wanted(pod):
                    continue
                await send(kind, pod)
                sent += 1
                if self.drop_watch_after is not None and sent >= self.drop_watch_after:
                    if request.transport is not None:
                        request.transport.abort()
                    return resp
        except (ConnectionResetError, asyncio.CancelledError):
            return resp
        finally:
            self.watchers.discard(queue)

    # -- exec ------------------------------------------------------------------------------------------------------

    def _mapping(self, pod: dict[str, Any], container: dict[str, Any]) -> list[tuple[str, str]]:
        base = self.root / pod["metadata"]["name"]
        pairs = []
        for m in container.get("volumeMounts") or []:
            host = base / m["name"]
            host.mkdir(parents=True, exist_ok=True)
            pairs.append((m["mountPath"].rstrip("/") or "/", str(host)))
        # A container sees its own cgroup at /sys/fs/cgroup; here it is a folder whose counters the tests write.
        pairs.append(("/sys/fs/cgroup", str(self.cgroup_dir(pod["metadata"]["name"], container["name"]))))
        return sorted(pairs, key=lambda p: -len(p[0]))

    def cgroup_dir(self, pod: str, container: str) -> Path:
        """What a container of `pod` reads as its own cgroup (cgroup v2 files: cpu.stat, memory.peak)."""
        path = self.root / pod / f"cgroup-{container}"
        path.mkdir(parents=True, exist_ok=True)
        return path

    @staticmethod
    def _map(value: str, pairs: list[tuple[str, str]]) -> str:
        for inside, host in pairs:
            if value == inside or value.startswith(inside + "/"):
                return host + value[len(inside) :]
        return value

    async def _exec(self, request: web.Request, ns: str, name: str) -> web.StreamResponse:
        pod = self.pods.get((ns, name))
        if pod is None:
            return self._status(404, "NotFound", f'pods "{name}" not found')
        cname = request.query.get("container") or pod["spec"]["containers"][0]["name"]
        container = next((c for c in pod["spec"]["containers"] if c["name"] == cname), None)
        status = next((s for s in pod["status"].get("containerStatuses") or [] if s["name"] == cname), None)
        if container is None or status is None or "running" not in status["state"]:
            return self._status(400, "BadRequest", f"container {cname} is not valid for pod {name}")
        argv = request.query.getall("command")
        self.exec_log.append((name, cname, list(argv)))
        pairs = self._mapping(pod, container)
        host_argv = [self._map(a, pairs) for a in argv]
        env = {e["name"]: self._map(e.get("value", ""), pairs) for e in container.get("env") or []}
        env["PATH"] = os.environ.get("PATH", env.get("PATH", "/usr/bin:/bin"))
        cwd = self._map(container.get("workingDir") or "/", pairs)
        Path(cwd).mkdir(parents=True, exist_ok=True)
        want_stdin = (request.query.get("stdin") or "").lower() in ("true", "1")

        ws = web.WebSocketResponse(protocols=("v5.channel.k8s.io", "v4.channel.k8s.io"), max_msg_size=0)
        await ws.prepare(request)
        try:
            proc = await asyncio.create_subprocess_exec(
                *host_argv, cwd=cwd, env=env, start_new_session=True,
                stdin=asyncio.subprocess.PIPE if want_stdin else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
        except OSError as exc:
            await ws.send_bytes(b"\x03" + json.dumps({"metadata": {}, "status": "Failure", "reason": "InternalError",
                                                      "message": str(exc)}).encode())  # fmt: skip
            await ws.close()
            return ws

        async def pump(stream: asyncio.StreamReader, channel: int) -> None:
            while chunk := await stream.read(65536):
                await ws.send_bytes(bytes([channel]) + chunk)

        async def feed() -> None:
            async for msg in ws:
                if msg.type != WSMsgType.BINARY or not msg.data:
                    continue
                data: bytes = msg.data
                if data[0] == 255 and len(data) > 1 and data[1] == 0 and proc.stdin is not None:
                    proc.stdin.close()
                elif data[0] == 0 and proc.stdin is not None and not proc.stdin.is_closing():
                    proc.stdin.write(data[1:])
                    with contextlib.suppress(ConnectionError):
                        await proc.stdin.drain()

        feeder = asyncio.create_task(feed())
        assert proc.stdout is not None and proc.stderr is not None
        await asyncio.gather(pump(proc.stdout, 1), pump(proc.stderr, 2))
        code = await proc.wait()
        code = 128 - code if code < 0 else code  # killed by a signal: reported as 128 + signal, like a runtime
        if code == 0:
            status_msg: dict[str, Any] = {"metadata": {}, "status": "Success"}
        else:
            status_msg = {"metadata": {}, "status": "Failure", "reason": "NonZeroExitCode",
                          "message": f"command terminated with non-zero exit code: {code}",
                          "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]}}  # fmt: skip
        await ws.send_bytes(b"\x03" + json.dumps(status_msg).encode())
        await ws.close()
        feeder.cancel()
        return ws
