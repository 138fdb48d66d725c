"""Sandbox backend: docker. One container per sandbox through the Docker engine API (the docker SDK).

The container is named after the sandbox (a retried start attaches to it), labelled `cmb=1` so everything cmb
created can be found and removed, runs as uid 1000 with a read-only root, all capabilities dropped, no new
privileges, CPU/memory/pids limits, and a workspace volume plus a size-capped /tmp tmpfs as the only writable
places. Its main process is `sleep` for at most twice the time limit, so a container whose harness was killed
stops by itself; `cleanup_orphans` removes it.

Network: none at all, or, with a gateway, an internal network whose bridge has no host address
(`inhibit_ipv4`: a plain `--internal` network still reaches every host service through the bridge address) and
whose only other member is a relay container that forwards one port to the gateway. So the gateway is the only
destination the sandbox can reach.
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import re
import tarfile
import time
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar
from urllib.parse import urlsplit, urlunsplit

from cmb.sandbox._base import ExecResult, Measured, Sandbox, SandboxError, SandboxSpec, register_backend
from cmb.sandbox._cgroup import REPORT_SCRIPT, parse_report
from cmb.sandbox._docker_support import LABEL, RELAY_SOURCE, OutputCollector, Spool, dir_info, remove_labelled
from cmb.sandbox._files import extract_tar, relative_parts
from cmb.sandbox._owner import OWNER_LABEL, owner_dead, owner_tag

log = logging.getLogger(__name__)

USER = "1000:1000"
# The container's own process (init + sleep) runs as nobody: `kill -9 -1` by the agent's uid cannot stop it.
KEEPER = "65534:65534"
RELAY_PORT = 8080
RELAY_ALIAS = "gateway"
_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,100}$")
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "[::1]"}


def _client() -> Any:
    import docker  # imported lazily: the local backend and the models must not need the SDK

    return docker.from_env(timeout=60)


@register_backend("docker")
class DockerSandbox(Sandbox):
    """A container with the profile's limits, reached through the Docker engine API."""

    runs_images = True
    lifetime_factor: ClassVar[float] = 2.0  # the container's own sleep outlives every exec by this factor
    tmp_max_bytes: ClassVar[int] = 2 * 2**30
    processes_outlive_exec = True  # one container serves every exec of the attempt

    def __init__(self, spec: SandboxSpec, client: Any = None) -> None:
        super().__init__(spec)
        if not _NAME.match(spec.name):
            raise SandboxError(f"sandbox name {spec.name!r} is not a valid container name")
        self._docker = client
        self.container: Any = None
        self.volume_name = f"{spec.name}-ws"
        self.network_name = f"{spec.name}-net"
        self.relay_name = f"{spec.name}-gw"
        self._inside_gateway: str | None = None

    @property
    def client(self) -> Any:
        """The docker SDK client (created on first use)."""
        if self._docker is None:
            try:
                self._docker = _client()
            except Exception as exc:
                raise SandboxError(f"Docker engine unreachable: {exc}") from exc
        return self._docker

    @classmethod
    def available(cls) -> str | None:
        """None when a Docker engine answers, else why not."""
        try:
            client = _client()
            client.ping()
        except Exception as exc:  # ImportError, DockerException, connection refused ...
            return f"Docker engine unavailable: {exc}"
        return None

    @property
    def gateway_url(self) -> str | None:
        """The gateway as the agent reaches it: through the relay on the sandbox's internal network."""
        return self._inside_gateway

    def labels(self, role: str) -> dict[str, str]:
        """Labels on everything this sandbox creates."""
        return {LABEL: "1", f"{LABEL}.name": self.spec.name, f"{LABEL}.role": role, OWNER_LABEL: owner_tag()}

    # -- lifecycle ---------------------------------------------------------------------------------------------

    def start(self) -> None:
        """Create (or attach to) the container, its workspace volume and, with a gateway, network and relay."""
        import docker.errors

        try:
            existing = self._find(self.spec.name)
            if existing is not None:
                self._attach(existing)
                return
            self._ensure_image()
            self._ensure_volume()
            network_mode = "none"
            if self.spec.gateway_url is not None:
                network_mode = self._ensure_network()
                self._ensure_relay()
            try:
                self.container = self._create(network_mode)
            except docker.errors.APIError as exc:
                if exc.status_code != 409:  # 409: another start won the race; attach to its container
                    raise
                found = self._find(self.spec.name)
                if found is None:
                    raise
                self._attach(found)
                return
            self.container.start()
            self._check_workspace()
        except (SandboxError, docker.errors.DockerException) as exc:
            # Leave nothing half-made behind (only what carries this sandbox's labels is removed).
            with contextlib.suppress(Exception):
                self.teardown()
            if isinstance(exc, SandboxError):
                raise
            raise SandboxError(f"cannot start docker sandbox {self.spec.name}: {exc}") from exc

    def _find(self, name: str) -> Any:
        import docker.errors

        try:
            c = self.client.containers.get(name)
        except docker.errors.NotFound:
            return None
        if c.labels.get(LABEL) != "1" or c.labels.get(f"{LABEL}.name") != self.spec.name:
            raise SandboxError(f"a container named {name} exists that cmb did not create")
        return c

    def _attach(self, container: Any) -> None:
        self.container = container
        if self.spec.gateway_url is not None:
            relay = self._find_relay()
            if relay is None or relay.status != "running":
                self._ensure_relay()
            self._set_inside_gateway()
        if container.status != "running":
            container.start()
            container.reload()

    def _ensure_image(self) -> None:
        import docker.errors

        try:
            self.client.images.get(self.spec.image)
        except docker.errors.ImageNotFound:
            raise SandboxError(
                f"image {self.spec.image} not found; build it with deploy/image/build-local.sh (no registry needed)"
            ) from None

    def _ensure_volume(self) -> None:
        import docker.errors

        try:
            self.client.volumes.get(self.volume_name)
        except docker.errors.NotFound:
            self.client.volumes.create(self.volume_name, labels=self.labels("workspace"))

    def _ensure_network(self) -> str:
        import docker.errors

        try:
            self.client.networks.get(self.network_name)
        except docker.errors.NotFound:
            self.client.networks.create(
                self.network_name,
                driver="bridge",
                internal=True,
                labels=self.labels("network"),
                # No host address on the bridge: the host's services are not reachable from the network.
                options={"com.docker.network.bridge.inhibit_ipv4": "true"},
            )
        return self.network_name

    def _find_relay(self) -> Any:
        import docker.errors

        try:
            return self.client.containers.get(self.relay_name)
        except docker.errors.NotFound:
            return None

    def _gateway_target(self) -> tuple[str, int, dict[str, str]]:
        assert self.spec.gateway_url is not None
        url = urlsplit(self.spec.gateway_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise SandboxError(f"gateway URL {self.spec.gateway_url!r} is not an http(s) URL")
        port = url.port or (443 if url.scheme == "https" else 80)
        if url.hostname in _LOCAL_HOSTS:
            # The gateway runs on this host: reach it at the docker bridge address (it must listen there).
            return "host.docker.internal", port, {"host.docker.internal": "host-gateway"}
        return url.hostname, port, {}

    def _ensure_relay(self) -> None:
        import docker.errors

        host, port, extra_hosts = self._gateway_target()
        relay = self._find_relay()
        if relay is None:
            try:
                relay = self.client.containers.create(
                    self.spec.image,
                    ["python3", "-c", RELAY_SOURCE, host, str(port), str(RELAY_PORT)],
                    name=self.relay_name,
                    labels=self.labels("relay"),
                    user=USER,
                    network="bridge",
                    extra_hosts=extra_hosts,
                    read_only=True,
                    cap_drop=["ALL"],
                    security_opt=["no-new-privileges:true"],
                    pids_limit=64,
                    mem_limit=128 * 2**20,
                    nano_cpus=500_000_000,
                    init=True,
                    environment={"PYTHONDONTWRITEBYTECODE": "1"},
                )
                self.client.networks.get(self.network_name).connect(relay, aliases=[RELAY_ALIAS])
            except docker.errors.APIError as exc:
                if exc.status_code != 409:
                    raise
                relay = self._find_relay()
        if relay.status != "running":
            relay.start()
        deadline = time.monotonic() + 30
        while b"relay ready" not in relay.logs():
            relay.reload()
            if relay.status == "exited" or time.monotonic() > deadline:
                raise SandboxError(f"gateway relay did not start: {relay.logs()[-2000:].decode(errors='replace')}")
            time.sleep(0.1)
        self._set_inside_gateway()

    def _set_inside_gateway(self) -> None:
        assert self.spec.gateway_url is not None
        url = urlsplit(self.spec.gateway_url)
        self._inside_gateway = urlunsplit(("http", f"{RELAY_ALIAS}:{RELAY_PORT}", url.path, url.query, url.fragment))

    def _create(self, network_mode: str) -> Any:
        from docker.types import Mount, Ulimit

        p = self.spec.profile
        mem = int(p.memory_gib * 2**30)
        disk = int(p.disk_gib * 2**30)
        mounts = [Mount(self.spec.workdir, self.volume_name, type="volume")]
        mounts += [Mount(t, str(h), type="bind", read_only=True) for t, h in self.spec.readonly_mounts.items()]
        lifetime = int(p.time_limit_s * self.lifetime_factor) + 600
        cpus = p.cpus
        host_cpus = int(self.client.info().get("NCPU") or 0)
        if host_cpus and cpus > host_cpus:  # the engine refuses a quota above the host's CPU count
            self._warn(f"profile asks for {cpus} CPUs, the Docker host has {host_cpus}: capped")
            cpus = host_cpus
        kwargs: dict[str, Any] = {}
        if network_mode == "none":
            kwargs["network_mode"] = "none"
        else:
            kwargs["network"] = network_mode
            kwargs["sysctls"] = {"net.ipv6.conf.all.disable_ipv6": "1"}  # no link-local route to the host
        return self.client.containers.create(
            self.spec.image,
            ["sleep", str(lifetime)],
            name=self.spec.name,
            hostname="sandbox",
            labels=self.labels("sandbox"),
            user=KEEPER,
            working_dir=self.spec.workdir,
            environment=self._env(None),
            nano_cpus=int(cpus * 1e9),
            mem_limit=mem,
            memswap_limit=mem,
            pids_limit=p.pids,
            read_only=True,
            tmpfs={"/tmp": f"rw,nosuid,nodev,size={min(disk, self.tmp_max_bytes)},mode=1777"},
            mounts=mounts,
            cap_drop=["ALL"],
            security_opt=["no-new-privileges:true"],
            ulimits=[Ulimit(name="fsize", soft=disk, hard=disk), Ulimit(name="core", soft=0, hard=0)],
            init=True,
            **kwargs,
        )

    def _check_workspace(self) -> None:
        r = self.exec(["sh", "-c", 'test -w "$PWD"'], timeout_s=30)
        if r.exit_code != 0:
            raise SandboxError(f"workspace {self.spec.workdir} is not writable by uid 1000 in {self.spec.image}")

    def alive(self) -> bool:
        """The container still runs (its keeper's lifetime may have run out while it waited in a pool)."""
        if self.container is None:
            return False
        self.container.reload()
        return bool(self.container.status == "running")

    def measure(self) -> Measured | None:
        """The engine's counters of the container's cgroup: CPU time, and peak memory.

        Cgroup v2 keeps the peak in memory.peak only, which the container's own view of its cgroup shows. A
        restarted container counts afresh.
        """
        import docker.errors

        if self.container is None:
            return None
        try:
            stats = self.client.api.stats(self.container.id, stream=False, one_shot=True)
            cpu_s = stats["cpu_stats"]["cpu_usage"]["total_usage"] / 1e9
            peak = stats.get("memory_stats", {}).get("max_usage")
            if peak is None:
                exec_id = self.client.api.exec_create(
                    self.container.id, ["/bin/sh", "-c", REPORT_SCRIPT, "sh", "/sys/fs/cgroup"]
                )["Id"]
                inside = parse_report(self.client.api.exec_start(exec_id).decode(errors="replace"))
                peak = inside.peak_memory_bytes if inside is not None else None
            return Measured(cpu_s, peak, "docker")
        except (docker.errors.DockerException, KeyError, TypeError, ValueError):
            return None

    def teardown(self) -> None:
        """Remove the container, relay, network and volume of this sandbox (safe to call twice)."""
        remove_labelled(self.client, {f"{LABEL}.name": self.spec.name})
        self.container = None
        self._inside_gateway = None

    @classmethod
    def cleanup_orphans(cls) -> list[str]:
        """Remove what sandboxes of a dead harness left: owner process gone (this host), or container stopped."""
        if cls.available() is not None:
            return []
        client = _client()
        wanted = {"label": [f"{LABEL}=1"]}
        containers = client.containers.list(all=True, filters=wanted)
        live_names: set[str] = set()
        orphans: set[str] = set()
        for c in containers:
            name = c.labels.get(f"{LABEL}.name", c.name)
            dead = owner_dead(c.labels.get(OWNER_LABEL))
            if dead or (dead is None and c.status != "running"):
                orphans.add(name)
            else:
                live_names.add(name)
        # Volumes and networks whose container never came (a harness killed during start).
        for item in [*client.volumes.list(filters=wanted), *client.networks.list(filters=wanted)]:
            labels = item.attrs.get("Labels") or {}
            name = labels.get(f"{LABEL}.name")
            if name and name not in live_names:
                dead = owner_dead(labels.get(OWNER_LABEL))
                if dead or (dead is None and name not in {c.labels.get(f"{LABEL}.name") for c in containers}):
                    orphans.add(name)
        removed: list[str] = []
        for name in sorted(orphans - live_names):
            removed += remove_labelled(client, {f"{LABEL}.name": name})
        return removed

    # -- files -------------------------------------------------------------------------------------------------

    def _path(self, rel: str) -> str:
        return str(PurePosixPath(self.spec.workdir, *relative_parts(rel)))

    def put(self, src: Path, dest: str = ".") -> None:
        """Copy the contents of host folder `src` into the workspace (owned by uid 1000)."""
        self._require_started()
        if not src.is_dir():
            raise NotADirectoryError(f"{src} is not a folder")
        buf = io.BytesIO()
        prefix = PurePosixPath(*relative_parts(dest)) if relative_parts(dest) else PurePosixPath(".")
        with tarfile.open(fileobj=buf, mode="w") as tar:
            for parent in reversed(prefix.parents[:-1] if prefix != PurePosixPath(".") else []):
                tar.addfile(dir_info(str(parent)))
            if prefix != PurePosixPath("."):
                tar.addfile(dir_info(str(prefix)))
            for path in sorted(src.rglob("*")):
                name = str(prefix / path.relative_to(src).as_posix())
                info = tar.gettarinfo(str(path), arcname=name)
                info.uid, info.gid, info.uname, info.gname = 1000, 1000, "agent", "agent"
                if info.isreg():
                    with path.open("rb") as f:
                        tar.addfile(info, f)
                else:
                    tar.addfile(info)
        if not self.container.put_archive(self.spec.workdir, buf.getvalue()):
            raise SandboxError(f"copying {src} into {self.spec.name} failed")

    def get(self, src: str, dest: Path, max_bytes: int = 256 * 1024 * 1024) -> None:
        """Copy a workspace path out through the engine's archive API, never following links (see Sandbox.get)."""
        import docker.errors

        self._require_started()
        path = self._path(src)
        try:
            stream, stat = self.container.get_archive(path)
        except docker.errors.NotFound:
            raise FileNotFoundError(f"{src} not found in the workspace of {self.spec.name}") from None
        if stat.get("linkTarget"):
            self._warn(f"not copied out: {src} is a symbolic link")
            return
        # The archive is spooled to disk, read up to a bound: the agent decides its size, not the harness.
        spool_limit = max_bytes + 64 * 2**20
        with Spool(spool_limit) as spool:
            for chunk in stream:
                if not spool.write(chunk):
                    self._warn(f"not copied out: {src} is larger than the {max_bytes}-byte copy limit")
                    return
            spool.seek(0)
            is_dir = (stat.get("mode", 0) & (1 << 31)) != 0  # Go's os.ModeDir bit
            with tarfile.open(fileobj=spool.file, mode="r|") as tar:
                extract_tar(tar, dest, 1 if is_dir else 0, max_bytes, self._warn)

    # -- exec --------------------------------------------------------------------------------------------------

    def _env(self, extra: dict[str, str] | None) -> dict[str, str]:
        # Built from nothing: the harness's environment (API keys, tokens) never reaches the sandbox.
        env = {
            "PATH": "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin",
            "HOME": self.spec.workdir,
            "LANG": "C.UTF-8",
            "TMPDIR": "/tmp",
            "USER": "agent",
            **self.thread_env(),
            **self.spec.env,
        }
        if self._inside_gateway is not None:
            env["CMB_GATEWAY_URL"] = self._inside_gateway
        return {**env, **(extra or {})}

    def exec(
        self, argv: list[str], timeout_s: float, env: dict[str, str] | None = None, cwd: str | None = None
    ) -> ExecResult:
        """Run `argv` under `timeout -s KILL`; past a host-side deadline, kill every process of the agent user."""
        import docker.errors

        if self.container is None:
            raise SandboxError(f"sandbox {self.spec.name} is not started")
        if not argv:
            raise ValueError("empty command")
        api = self.client.api
        workdir = self._path(cwd) if cwd and not cwd.startswith("/") else (cwd or self.spec.workdir)
        command = ["timeout", "-s", "KILL", str(max(1, math.ceil(timeout_s))), *argv]
        # Over the limit only counts when usage grew: a command cleaning up after a kill must be able to run.
        disk_limit = max(int(self.spec.profile.disk_gib * 2**30), self._disk_usage())
        since = time.time()
        t0 = time.monotonic()
        try:
            exec_id = api.exec_create(
                self.container.id, command, user=USER, environment=self._env(env), workdir=workdir
            )["Id"]
            out = OutputCollector(api.exec_start(exec_id, stream=True, demux=True))
        except docker.errors.APIError as exc:
            raise SandboxError(f"exec in {self.spec.name} failed: {exc}") from exc
        out.start()
        deadline = t0 + timeout_s + 5
        disk_exceeded = False
        next_disk_check = t0 + 2
        while out.is_alive():
            out.join(0.25)
            now = time.monotonic()
            if now > deadline:
                break
            if now >= next_disk_check:
                next_disk_check = now + 2
                if self._disk_usage() > disk_limit:
                    disk_exceeded = True
                    break
        killed_by_host = out.is_alive()
        duration = time.monotonic() - t0
        timed_out = duration >= timeout_s or (killed_by_host and not disk_exceeded)
        if timed_out or disk_exceeded:
            self._reap()  # also what escaped `timeout` into a session of its own
        out.join(10)
        info = api.exec_inspect(exec_id)
        code = info.get("ExitCode")
        if code is None or info.get("Running"):
            code = 137
        oom = code == 137 and not timed_out and not disk_exceeded and self._oom_since(since)
        self._reap()
        return ExecResult(
            exit_code=int(code),
            stdout=out.text(1),
            stderr=out.text(2),
            duration_s=duration,
            timed_out=timed_out,
            oom_killed=oom,
            disk_exceeded=disk_exceeded,
        )

    def stop_processes(self) -> None:
        """End what the agent left running before collection: the reap that ends every exec.

        Not the base class's exec of `kill -KILL -1`: that shell kills itself, and an exec that ends in SIGKILL is
        checked for an OOM kill in the engine's events, which takes a second per attempt.
        """
        self._reap()

    def _reap(self) -> bool:
        """Kill every process of the agent user; restart the container if that cannot be done from inside.

        Run after every exec, so that (as with the local backend) nothing a command started outlives it: a
        background fork bomb would otherwise hold the pids limit and make every later exec fail.
        """
        if not self._agent_processes():
            return False
        for _ in range(3):
            with contextlib.suppress(Exception):  # fails while the pids limit is exhausted
                exec_id = self.client.api.exec_create(self.container.id, ["kill", "-9", "-1"], user=USER)["Id"]
                self.client.api.exec_start(exec_id)
            if not self._agent_processes():
                return True
        self._warn("processes left by a command could not be killed from inside: container restarted (/tmp lost)")
        self.container.restart(timeout=0)
        return True

    def _agent_processes(self) -> list[str]:
        """Host pids of the container's processes running as the agent user (the keeper runs as nobody)."""
        try:
            top = self.container.top(ps_args="-o pid,uid")
        except Exception:
            return []
        titles = top.get("Titles") or []
        if "UID" not in titles:
            return []
        i, j = titles.index("PID"), titles.index("UID")
        return [row[i] for row in top.get("Processes") or [] if row[j] == USER.split(":")[0]]

    def _oom_since(self, since: float) -> bool:
        """Whether the engine reported an OOM kill in this container since `since` (epoch seconds)."""
        time.sleep(0.2)  # the event can trail the exit by a moment
        with contextlib.suppress(Exception):
            events = self.client.events(
                since=int(since) - 1,
                until=int(time.time()) + 1,
                filters={"container": self.container.id, "event": "oom"},
                decode=True,
            )
            if any(True for _ in events):
                return True
        with contextlib.suppress(Exception):
            self.container.reload()
            return bool(self.container.attrs["State"].get("OOMKilled"))
        return False

    def _disk_usage(self) -> int:
        """Bytes used in the workspace volume and /tmp, measured inside (no host path needed)."""
        with contextlib.suppress(Exception):
            exec_id = self.client.api.exec_create(
                self.container.id, ["du", "-skx", self.spec.workdir, "/tmp"], user=USER
            )["Id"]
            text = self.client.api.exec_start(exec_id, demux=False).decode(errors="replace")
            return sum(int(line.split()[0]) * 1024 for line in text.splitlines() if line[:1].isdigit())
        return 0

    # -- helpers -----------------------------------------------------------------------------------------------

    def _warn(self, message: str) -> None:
        log.warning("sandbox %s: %s", self.spec.name, message)
        self.warnings.append(message)

    def _require_started(self) -> None:
        if self.container is None:
            raise SandboxError(f"sandbox {self.spec.name} is not started")
