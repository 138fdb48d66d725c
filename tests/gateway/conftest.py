from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cmb.gateway import LocalGateway
from tests.gateway.helpers import KEY_ENV, UPSTREAM_KEY, make_gateway
from tests.gateway.scripted_upstream import ScriptedUpstream


@pytest.fixture
def stack(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., tuple[ScriptedUpstream, LocalGateway]]]:
    """stack(replies, **upstream_options) -> (scripted upstream, gateway in front of it); both stopped afterwards."""
    monkeypatch.setenv(KEY_ENV, UPSTREAM_KEY)
    started: list[Any] = []

    def make(replies: list[dict[str, Any]], **options: Any) -> tuple[ScriptedUpstream, LocalGateway]:
        up = ScriptedUpstream(replies, key=UPSTREAM_KEY).start()
        started.append(up)
        gw = make_gateway(up.base_url, tmp_path / "gateway", **options)
        started.append(gw)
        return up, gw

    yield make
    for server in reversed(started):
        server.stop()
