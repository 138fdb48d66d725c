"""Fixtures for the sandbox tests: one sandbox factory per backend, the agent images built without a registry."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from cmb.sandbox import Sandbox, SandboxSpec, get_backend
from tests.sandbox._support import SLIM_IMAGE, TEST_PROFILE, SandboxFactory, TcpServer, build_image, require_backend


@pytest.fixture(scope="session")
def slim_image() -> str:
    return build_image("slim")


@pytest.fixture(scope="session")
def full_image() -> str:
    return build_image("full")


@pytest.fixture
def make_sandbox(request: pytest.FixtureRequest) -> Iterator[SandboxFactory]:
    """make_sandbox(backend, **profile_overrides) -> a started sandbox, torn down after the test."""
    created: list[Sandbox] = []

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
        sandbox = get_backend(backend)(spec)
        created.append(sandbox)
        if start:
            sandbox.start()
        return sandbox

    yield make
    for sandbox in created:
        sandbox.teardown()


@pytest.fixture
def tcp_server() -> Iterator[TcpServer]:
    server = TcpServer()
    yield server
    server.close()
