"""How the runner and the sweep get a gateway: start one for local runs, give each attempt its own token.

`sweep_gateway` starts an in-process gateway when some agent needs one and none was configured, and passes
where it is (URL, admin key) in the string options every attempt function receives; `attempt_access` turns
those options into the attempt's GatewayAccess (a fresh token) and the usage meter of its RunRecord.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from cmb.gateway._config import Budget, GatewayConfig
from cmb.gateway._local import GatewayClient, LocalGateway, sandbox_hosts
from cmb.models import GatewayAccess, RunKey, Usage

URL = "gateway_url"
ADMIN_URL = "gateway_admin_url"
ADMIN_KEY = "gateway_admin_key"
STATIC_KEY = "gateway_key"
CONFIG_VAR = "CMB_GATEWAY_CONFIG"
ADMIN_KEY_VAR = "CMB_GATEWAY_ADMIN_KEY"

Meter = Callable[[RunKey], Usage | None]


def load_config(home: Path) -> GatewayConfig:
    """CMB_GATEWAY_CONFIG when set, else the built-in providers; records under CMB_HOME/gateway."""
    path = os.environ.get(CONFIG_VAR)
    records = Path(home) / "gateway"
    if path:
        return GatewayConfig.from_yaml(Path(path), records_dir=records)
    return GatewayConfig(records_dir=records)


@contextmanager
def sweep_gateway(home: Path, options: Mapping[str, str], needed: bool) -> Iterator[dict[str, str]]:
    """The options with a gateway in them: the configured one, or one started here for the duration."""
    if not needed or options.get(URL):
        yield dict(options)
        return
    with LocalGateway(load_config(home), hosts=sandbox_hosts()) as gw:
        yield {**options, URL: gw.base_url, ADMIN_URL: f"http://127.0.0.1:{gw.port}", ADMIN_KEY: gw.admin_key}


def attempt_access(
    options: Mapping[str, str], key: RunKey, model: str | None, budget: Budget | None = None
) -> tuple[GatewayAccess, Meter | None]:
    """The attempt's gateway access and its usage meter.

    With the admin key (from the options, or CMB_GATEWAY_ADMIN_KEY for a gateway run with `cmb gateway serve`),
    each attempt gets a fresh token and a meter; with a URL alone, the static `gateway_key` and no meter.
    """
    url = options.get(URL)
    if not url:
        return GatewayAccess(model=model), None
    admin_key = options.get(ADMIN_KEY) or os.environ.get(ADMIN_KEY_VAR)  # a gateway served by `cmb gateway serve`
    if admin_key:
        client = GatewayClient(url, options.get(ADMIN_URL) or url, admin_key)
        return client.access(key, model, budget), client.meter
    return GatewayAccess(base_url=url, api_key=options.get(STATIC_KEY), model=model), None  # a gateway run by hand
