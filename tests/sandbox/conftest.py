"""Fixtures for the sandbox tests: one sandbox factory per backend, the agent images built without a registry."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from cmb.sandbox import Sandbox, SandboxPool, SandboxSpec, get_backend
from tests.sandbox._support import SLIM_IMAGE, TEST_PROFILE, SandboxFactory, TcpServer, build_image, require_backend


@pytest.fixture(scope="session")
def slim_image() -> str:
    return build_image("slim")


@pytest.fixture(scope="session")
def full_image() -> str:
    return build_image("full")


@pytest.fixture
def make_sandbox(request: pytest.FixtureRequest) -> Iterator[SandboxFactory]:
    """make_sandbox(backend, **profile_overrides) -> a started sandbox, torn down after the test.

    Where the test takes a `pooled` parameter that is true, the sandbox is one a warm pool made ahead of the claim.
    """
    created: list[Sandbox] = []
    pools: list[SandboxPool] = []
    pooled = "pooled" in request.fixturenames and bool(request.getfixturevalue("pooled"))

    def make(backend: str, *, name: str | None = None, start: bool = True, **kw: Any) -> Sandbox:
        require_backend(backend)
        image = kw.pop("image", None)
        if image is None and backend == "docker":
            image = request.getfixturevalue("slim_image")
        spec_kw = {k: kw.pop(k) for k in ("env", "gateway_url", "readonly_mounts", "workdir") if k in kw}
        profile = TEST_PROFILE.model_copy(update=kw)
        spec = SandboxSpec(
            name=name or f"cmbtest-{backend}-{uuid.uuid4().hex[:10]}",
            profile=profile,
            image=image or SLIM_IMAGE,
            **spec_kw,
        )
        if pooled and start and name is None:
            pool = SandboxPool(get_backend(backend), spec, lambda sb: None, max_spares=1)
            pools.append(pool)
            pool.retire(pool.claim(profile.time_limit_s).sandbox)  # the first claim is made on demand
            deadline = time.monotonic() + 180
            while pool.ready == 0:
                assert pool.last_error is None and time.monotonic() < deadline, pool.last_error
                time.sleep(0.05)
            warm = pool.claim(profile.time_limit_s)  # made and started by the pool's own thread, ahead of this
            assert pool.stats["claimed_warm"] == 1
            created.append(warm.sandbox)
            return warm.sandbox
        sandbox = get_backend(backend)(spec)
        created.append(sandbox)
        if start:
            sandbox.start()
        return sandbox

    yield make
    for sandbox in created:
        sandbox.teardown()
    for pool in pools:
        pool.drain()


@pytest.fixture
def tcp_server() -> Iterator[TcpServer]:
    server = TcpServer()
    yield server
    server.close()
