"""How the runner and the sweep get a gateway: start one for local runs, give each attempt its own token.

`sweep_gateway` starts an in-process gateway when some agent needs one and none was configured, and returns the
endpoint every attempt receives (URL, admin key); `attempt_access` turns that endpoint into the attempt's
GatewayAccess (a fresh token) and the usage meter of its RunRecord.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from cmb.gateway._config import Budget, GatewayConfig
from cmb.gateway._local import GatewayClient, LocalGateway, sandbox_hosts
from cmb.models import GatewayAccess, GatewayEndpoint, RunKey, Usage

Meter = Callable[[RunKey], Usage | None]
TrajectorySource = Callable[[RunKey], dict[str, Any] | None]


def load_config(home: Path, path: Path | None = None) -> GatewayConfig:
    """The YAML config at `path` (the gateway.config setting), else the built-in providers; records in home/gateway."""
    records = Path(home) / "gateway"
    if path is not None:
        return GatewayConfig.from_yaml(Path(path), records_dir=records)
    return GatewayConfig(records_dir=records)


@contextmanager
def sweep_gateway(
    home: Path, endpoint: GatewayEndpoint, needed: bool, config: Path | None = None
) -> Iterator[GatewayEndpoint]:
    """The endpoint given, or, when one is needed and none given, one started here for the duration."""
    if not needed or endpoint.url:
        yield endpoint
        return
    with LocalGateway(load_config(home, config), hosts=sandbox_hosts()) as gw:
        yield endpoint.model_copy(
            update={
                "url": gw.base_url,
                "admin_url": f"http://127.0.0.1:{gw.port}",
                "admin_key": SecretStr(gw.admin_key),
            }
        )


def attempt_access(
    endpoint: GatewayEndpoint, key: RunKey, model: str | None, budget: Budget | None = None
) -> tuple[GatewayAccess, Meter | None]:
    """The attempt's gateway access and its usage meter.

    With an admin key (of a gateway started here, or of one run with `cmb gateway serve`), each attempt gets a
    fresh token and a meter; with a URL alone, the static key and no meter.
    """
    if not endpoint.url:
        return GatewayAccess(model=model), None
    if endpoint.admin_key is not None:
        client = GatewayClient(endpoint.url, endpoint.admin_url or endpoint.url, endpoint.admin_key.get_secret_value())
        return client.access(key, model, budget), client.meter
    return GatewayAccess(base_url=endpoint.url, api_key=endpoint.key, model=model), None  # a gateway run by hand


def attempt_trajectory(endpoint: GatewayEndpoint) -> TrajectorySource | None:
    """What turns an attempt's transcript into its ATIF trajectory when the agent is done.

    The gateway's admin API (it writes the file beside the transcript and returns it), or None without an admin
    key (a gateway run by hand, whose transcripts are not the harness's to read).
    """
    if not endpoint.url or endpoint.admin_key is None:
        return None
    client = GatewayClient(endpoint.url, endpoint.admin_url or endpoint.url, endpoint.admin_key.get_secret_value())
    return client.trajectory
