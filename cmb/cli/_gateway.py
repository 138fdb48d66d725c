"""`cmb gateway ...`: serve the model gateway, issue attempt tokens, read usage, look up prices."""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from typing import Any

import click

from cmb.cli._main import cli
from cmb.settings import CmbSettings

ADMIN_KEY_FILE = "admin.key"
DEFAULT_URL = "http://127.0.0.1:8765"


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    out = {}
    for value in values:
        name, sep, rest = value.partition("=")
        if not sep or not name or not rest:
            raise click.BadParameter(f"{value!r} is not NAME=VALUE", param_hint=option)
        out[name] = rest
    return out


def _config(
    settings: CmbSettings,
    config_file: Path | None,
    upstreams: tuple[str, ...],
    key_envs: tuple[str, ...],
    flat: tuple[str, ...],
    default_upstream: str | None,
    records_dir: Path | None,
) -> Any:
    from cmb.gateway import GatewayConfig, UpstreamConfig

    records = records_dir or settings.store.home / "gateway"
    base = GatewayConfig.from_yaml(config_file) if config_file else GatewayConfig()
    extra = dict(base.upstreams)
    keys = _pairs(key_envs, "--upstream-key-env")
    for name, url in _pairs(upstreams, "--upstream").items():
        extra[name] = UpstreamConfig(base_url=url, apis=["chat"], key_env=keys.get(name), flatten_content=name in flat)
    update: dict[str, Any] = {"upstreams": extra, "records_dir": records}
    if default_upstream:
        if default_upstream not in extra:
            raise click.BadParameter(f"no upstream {default_upstream!r}", param_hint="--default-upstream")
        update["default_upstream"] = default_upstream
    return GatewayConfig.model_validate({**base.model_dump(), **update})


@cli.group()
def gateway() -> None:
    """The model gateway every LLM agent talks to."""


@gateway.command("serve")
@click.option(
    "--host",
    "hosts",
    multiple=True,
    envvar="CMB_GATEWAY_HOST",
    default=["127.0.0.1"],
    help="Address to listen on (repeatable); 'docker' means the docker0 bridge the sandboxes reach.",
)
@click.option("--port", type=int, envvar="CMB_GATEWAY_PORT", default=8765, help="Port (0: any free one).")
@click.option(
    "--config",
    "config_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="YAML with upstreams, prices, budgets, retries; default: CMB_GATEWAY_CONFIG.",
)
@click.option(
    "--upstream",
    "upstreams",
    multiple=True,
    metavar="NAME=URL",
    help="An OpenAI-compatible chat server (vLLM, llama.cpp), e.g. vllm=http://127.0.0.1:8000/v1.",
)
@click.option(
    "--upstream-key-env",
    "key_envs",
    multiple=True,
    metavar="NAME=VAR",
    help="Environment variable holding the key of an --upstream.",
)
@click.option("--flatten", "flat", multiple=True, metavar="NAME", help="Send string content to this --upstream.")
@click.option(
    "--default-upstream",
    envvar="CMB_GATEWAY_DEFAULT_UPSTREAM",
    default=None,
    help="Upstream of model names without an '<upstream>/' prefix.",
)
@click.option(
    "--records-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Transcripts and usage per attempt (default CMB_HOME/gateway).",
)
@click.option(
    "--admin-key",
    default=None,
    help="Bearer key of the admin API; default: CMB_GATEWAY_ADMIN_KEY, else generated and written to "
    "RECORDS_DIR/admin.key.",
)
@click.pass_context
def serve(
    ctx: click.Context,
    hosts: tuple[str, ...],
    port: int,
    config_file: Path | None,
    upstreams: tuple[str, ...],
    key_envs: tuple[str, ...],
    flat: tuple[str, ...],
    default_upstream: str | None,
    records_dir: Path | None,
    admin_key: str | None,
) -> None:
    """Serve /v1/chat/completions, /v1/responses and /v1/messages for attempt tokens until interrupted."""
    import secrets

    from cmb.gateway import LocalGateway, interface_address

    settings: CmbSettings = ctx.obj["settings"]
    config_file = config_file or settings.gateway.config
    admin_key = admin_key or _secret(settings)
    config = _config(settings, config_file, upstreams, key_envs, flat, default_upstream, records_dir)
    bind: list[str] = []
    for host in hosts:
        for h in host.split(","):
            address = interface_address("docker0") if h == "docker" else h
            if address is None:
                raise click.ClickException("--host docker: there is no docker0 interface here")
            bind.append(address)
    key = admin_key or secrets.token_urlsafe(32)
    if admin_key is None:
        config.records_dir.mkdir(parents=True, exist_ok=True)
        key_file = config.records_dir / ADMIN_KEY_FILE
        key_file.touch(mode=0o600)
        key_file.write_text(key + "\n", encoding="utf-8")
    gw = LocalGateway(config, hosts=bind, port=port, admin_key=key)
    try:
        gw.start()
    except RuntimeError as exc:
        raise click.ClickException(str(exc)) from None
    urls = ", ".join(f"http://{h}:{gw.port}" for h in bind)
    click.echo(
        f"cmb gateway on {urls} (upstreams: {', '.join(sorted(config.upstreams))}; "
        f"prices: {gw.gateway.prices.version}; records: {config.records_dir})",
        err=True,
    )
    if admin_key is None:
        click.echo(f"admin key in {config.records_dir / ADMIN_KEY_FILE}", err=True)
    click.echo(json.dumps({"port": gw.port, "hosts": bind}), err=False)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(1.0):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        gw.stop()


def _secret(settings: CmbSettings) -> str | None:
    key = settings.gateway.admin_key
    return key.get_secret_value() if key is not None else None


def _client(url: str | None, admin_key: str | None, settings: CmbSettings) -> Any:
    from cmb.gateway import GatewayClient

    url = url or settings.gateway.url or DEFAULT_URL
    key = admin_key or _secret(settings)
    if key is None:
        path = settings.store.home / "gateway" / ADMIN_KEY_FILE
        if not path.is_file():
            raise click.ClickException(
                "no admin key: pass --admin-key, set CMB_GATEWAY_ADMIN_KEY, or run on the host "
                f"whose gateway wrote {path}"
            )
        key = path.read_text(encoding="utf-8").strip()
    return GatewayClient(url, url, key)


_URL = click.option("--url", default=None, help=f"The gateway; default: CMB_GATEWAY_URL, else {DEFAULT_URL}.")
_ADMIN = click.option("--admin-key", default=None, help="Admin API key; default: CMB_GATEWAY_ADMIN_KEY.")


@gateway.command("token")
@click.argument("attempt")
@click.option("--model", default=None, help="Pin the token to <upstream>/<model>.")
@click.option("--max-tokens", type=int, default=None, help="Budget: input plus output tokens.")
@click.option("--max-cost", type=float, default=None, help="Budget: USD.")
@click.option("--max-requests", type=int, default=None, help="Budget: model requests.")
@_URL
@_ADMIN
@click.pass_context
def token_cmd(
    ctx: click.Context,
    attempt: str,
    model: str | None,
    max_tokens: int | None,
    max_cost: float | None,
    max_requests: int | None,
    url: str | None,
    admin_key: str | None,
) -> None:
    """Issue a bearer token for ATTEMPT (an attempt key) and print it."""
    from cmb.gateway import Budget

    budget = Budget(max_tokens=max_tokens, max_cost_usd=max_cost, max_requests=max_requests)
    try:
        click.echo(_client(url, admin_key, ctx.obj["settings"]).issue(attempt, model, budget))
    except (RuntimeError, OSError) as exc:
        raise click.ClickException(str(exc)) from None


@gateway.command("usage")
@click.argument("attempt")
@_URL
@_ADMIN
@click.option(
    "--records-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Read the usage file instead of asking a running gateway.",
)
@click.pass_context
def usage_cmd(
    ctx: click.Context, attempt: str, url: str | None, admin_key: str | None, records_dir: Path | None
) -> None:
    """Print the metered usage of ATTEMPT as JSON."""
    from cmb.gateway import read_usage

    if records_dir is not None:
        summary = read_usage(records_dir, attempt)
    else:
        try:
            summary = _client(url, admin_key, ctx.obj["settings"]).usage(attempt)
        except (RuntimeError, OSError) as exc:
            raise click.ClickException(str(exc)) from None
    if summary is None:
        raise click.ClickException(f"no usage recorded for {attempt}")
    click.echo(summary.model_dump_json(indent=2))


@gateway.command("price")
@click.argument("model")
@click.option(
    "--provider",
    default=None,
    help="Price-table provider id (openai, anthropic, ...); default: the upstream prefix of MODEL.",
)
@click.option("--input-tokens", type=int, default=1_000_000)
@click.option("--output-tokens", type=int, default=1_000_000)
@click.option("--cached-tokens", type=int, default=0)
def price_cmd(model: str, provider: str | None, input_tokens: int, output_tokens: int, cached_tokens: int) -> None:
    """Price a token count on MODEL with the pinned table (unpriced models print null)."""
    from cmb.gateway import PriceTable, TokenCounts

    prefix, sep, rest = model.partition("/")
    if provider is None and sep:
        provider, model = prefix, rest
    table = PriceTable()
    cost = table.price(model, provider, TokenCounts(input=input_tokens, output=output_tokens, cached=cached_tokens))
    click.echo(json.dumps({"model": model, "provider": provider, "cost_usd": cost, "price_table": table.version}))
