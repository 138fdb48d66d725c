"""The gateway's HTTP server (aiohttp): each dialect's model API for agents, an admin API for the harness.

Agents call /v1/chat/completions, /v1/responses or /v1/messages with their attempt's token. The gateway checks
the budget, routes the model to an upstream (translating the dialect when the upstream lacks it), retries
upstream faults with backoff, meters the usage the upstream reports, prices it, and appends request and reply to
the attempt's transcript. The provider key is added here and never leaves the gateway.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import random
import time
from typing import Any
from urllib.parse import unquote

import aiohttp
from aiohttp import web

from cmb.gateway._config import Budget, GatewayConfig, UpstreamConfig
from cmb.gateway._prices import PriceTable
from cmb.gateway._redact import Redactor
from cmb.gateway._sse import iter_sse
from cmb.gateway._state import AttemptState, Registry
from cmb.gateway.dialects import CHAT, DIALECTS, MESSAGES, Dialect, Route, route_for, upstream_error_message
from cmb.models import model_key_form

log = logging.getLogger(__name__)

Json = dict[str, Any]
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 520, 522, 524, 529})
FORWARDED_HEADERS = ("anthropic-version", "anthropic-beta", "openai-beta")
GATEWAY_KEY: web.AppKey[Gateway] = web.AppKey("gateway")


class RoutingError(Exception):
    """A model name no upstream serves, or an API the upstream cannot be reached with."""


def key_model_name(model: str) -> str:
    """`<upstream>/<model>` in the form an attempt key can hold (`codeact@<this>`): `<upstream>:<model %2F-quoted>`."""
    return model_key_form(model)


class Gateway:
    """State shared by the handlers: configuration, tokens, prices, the upstream HTTP session."""

    def __init__(self, config: GatewayConfig, admin_key: str) -> None:
        self.config = config
        self.admin_key = admin_key
        self.redact = Redactor([admin_key, *(u.key() for u in config.upstreams.values())])
        self.registry = Registry(config.records_dir, self.redact)
        self.prices = PriceTable(config.prices)
        self.session: aiohttp.ClientSession | None = None

    # -- tokens (also called from other threads by LocalGateway) ---------------------------------------------------

    def issue(self, attempt: str, model: str | None = None, budget: Budget | None = None) -> AttemptState:
        """A token for one attempt; `model` pins every request of the token to that model."""
        if model is not None:
            self.resolve(model)  # fail now, not at the agent's first request
        return self.registry.issue(attempt, model, budget or self.config.default_budget)

    def resolve(self, model: str) -> tuple[str, str, UpstreamConfig]:
        """(upstream name, model name upstream, upstream) of a model name.

        `<upstream>/<model>`, or `<upstream>:<model>` with any '/' in the model written %2F (the form that fits
        in an attempt key, which may not hold '/': see `key_model_name`); a bare name goes to the default upstream.
        """
        for sep in ("/", ":"):
            prefix, found, rest = model.partition(sep)
            if found and prefix in self.config.upstreams:
                return prefix, unquote(rest) if sep == ":" else rest, self.config.upstreams[prefix]
        if self.config.default_upstream is not None:
            return self.config.default_upstream, model, self.config.upstreams[self.config.default_upstream]
        raise RoutingError(
            f"model {model!r} names no upstream: use <upstream>/<model> with one of {sorted(self.config.upstreams)}"
        )

    # -- upstream ----------------------------------------------------------------------------------------------------

    def _headers(self, upstream: UpstreamConfig, dialect: Dialect, request: web.Request) -> dict[str, str]:
        headers = {"Content-Type": "application/json", **upstream.headers}
        for name in FORWARDED_HEADERS:
            if name in request.headers:
                headers[name] = request.headers[name]
        key = upstream.key()
        if key:
            headers.update(dialect.auth_headers(key))  # the upstream's dialect decides, not the client's
        return headers

    def _delay(self, retry: int, retry_after: str | None) -> float:
        policy = self.config.retry
        cap = min(policy.max_delay_s, policy.base_delay_s * 2**retry)
        delay = random.uniform(0, cap)  # noqa: S311 - full jitter, not cryptography
        if retry_after:
            try:
                delay = max(delay, min(float(retry_after), policy.max_delay_s))
            except ValueError:
                pass
        return delay

    async def send(
        self,
        state: AttemptState,
        upstream: UpstreamConfig,
        url: str,
        body: Json,
        headers: dict[str, str],
        stream: bool,
    ) -> tuple[aiohttp.ClientResponse | None, bytes | None, int]:
        """POST with retries of upstream faults.

        Returns (open response, None, retries) for a stream, (response, body, retries) otherwise, and
        (None, last error, retries) after every try failed.
        """
        assert self.session is not None
        total = None if stream else upstream.max_reply_s  # a stream's whole length is bounded in _stream
        timeout = aiohttp.ClientTimeout(total=total, sock_connect=30, sock_read=upstream.timeout_s)
        max_retries = self.config.retry.max_retries
        last = ""
        for attempt in range(max_retries + 1):
            retry = attempt + 1 if attempt < max_retries else 0
            retry_after: str | None = None
            try:
                resp = await self.session.post(url, json=body, headers=headers, timeout=timeout)
                if resp.status not in RETRY_STATUSES:
                    if stream and resp.status < 400:
                        return resp, None, attempt
                    data = await resp.read()
                    resp.release()
                    return resp, data, attempt
                text = (await resp.read()).decode(errors="replace")
                retry_after = resp.headers.get("retry-after")
                resp.release()
                last = f"HTTP {resp.status}: {text[:500]}"
                state.event("upstream-status", last, status=resp.status, retry=retry)
            except TimeoutError:
                last = f"no reply within {upstream.timeout_s:g} s (or not all of it within {upstream.max_reply_s:g} s)"
                state.event("upstream-timeout", last, retry=retry)
            except aiohttp.ClientError as exc:
                last = f"{type(exc).__name__}: {exc}"
                state.event("upstream-connection", last, retry=retry)
            if retry:
                await asyncio.sleep(self._delay(attempt, retry_after))
        state.event("gave-up", f"{max_retries + 1} tries failed; last: {last}")
        return None, last.encode(), max_retries

    # -- request handling ------------------------------------------------------------------------------------------

    def authenticate(self, request: web.Request, dialect: Dialect) -> AttemptState | None:
        """The attempt of the request's gateway token (read as the dialect's clients send it), or None."""
        token = dialect.client_token(request.headers)
        return self.registry.lookup(token) if token else None

    async def handle(self, request: web.Request, dialect: Dialect) -> web.StreamResponse:
        """One model request of an agent, in `dialect`."""
        state = self.authenticate(request, dialect)
        if state is None:
            return _error(dialect, 401, "unknown or missing gateway token", "invalid_api_key")
        try:
            body = await request.json()
        except ValueError:
            return _error(dialect, 400, "the request body is not JSON", "invalid_request")
        if not isinstance(body, dict):
            return _error(dialect, 400, "the request body must be a JSON object", "invalid_request")
        requested = body.get("model")
        name = state.model or (requested if isinstance(requested, str) else None)
        if not name:
            return _error(dialect, 400, "no model named in the request", "invalid_request")
        try:
            upstream_name, upstream_model, upstream = self.resolve(name)
            route = route_for(dialect, upstream)
            if route is None:
                raise RoutingError(f"upstream {upstream_name!r} serves {upstream.apis}, not {dialect.name!r}")
        except RoutingError as exc:
            return _error(dialect, 400, str(exc), "model_not_found")
        seq = state.next_seq()
        entry: Json = {
            "seq": seq,
            "api": dialect.name,
            "model": name,
            "requested_model": requested,
            "upstream": upstream_name,
            "upstream_api": route.upstream.name,
            "stream": bool(body.get("stream")),
            "request": body,
        }
        async with state.serial if state.budget.limited else contextlib.nullcontext():
            return await self._forward(request, dialect, state, body, name, upstream_name, upstream_model, upstream,
                                       route, entry)  # fmt: skip

    async def _forward(
        self,
        request: web.Request,
        dialect: Dialect,
        state: AttemptState,
        body: Json,
        name: str,
        upstream_name: str,
        upstream_model: str,
        upstream: UpstreamConfig,
        route: Route,
        entry: Json,
    ) -> web.StreamResponse:
        """Check the budget, send upstream, meter and answer one request."""
        refusal = state.over_budget()
        if refusal is not None:
            state.refused()
            message = f"cmb gateway: {refusal}. This attempt may not call the model again; finish with what you have."
            state.write({**entry, "status": 429, "error": message, "budget_exceeded": True})
            state.save_summary()
            return _error(dialect, 429, message, "budget_exceeded")
        if upstream.key_env and not upstream.key():
            message = f"the gateway has no key for upstream {upstream_name!r} (set {upstream.key_env})"
            state.event("gave-up", message)
            state.write({**entry, "status": 502, "error": message})
            state.save_summary()
            return _error(dialect, 502, message, "upstream_unavailable")
        up_body = route.request(body, upstream, upstream_model)
        entry["upstream_request"] = up_body if route.translated or up_body != body else None
        t0 = time.monotonic()
        resp, data, retries = await self.send(
            state,
            upstream,
            upstream.base_url + route.upstream.path,
            up_body,
            self._headers(upstream, route.upstream, request),
            bool(body.get("stream")),
        )
        entry["retries"] = retries
        if resp is None:
            state.add_unanswered()
            message = f"cmb gateway: the model provider failed after {retries + 1} tries ({(data or b'').decode()})"
            self._finish(state, entry, 502, t0, error=message)
            return _error(dialect, 502, message, "upstream_error")
        if data is None:
            return await self._stream(request, state, route, body, upstream, upstream_model, name, resp, entry, t0)
        try:
            parsed = json.loads(data)
        except ValueError:
            parsed = None
        if resp.status in (401, 403):  # the provider refused the gateway's own key: never the agent's doing
            state.add_unanswered()
            message = f"the provider refused the gateway's key (HTTP {resp.status}): "
            message += upstream_error_message(parsed, data.decode(errors="replace"))
            state.event("gave-up", message, status=resp.status)
            self._finish(state, entry, 502, t0, error=message)
            return _error(dialect, 502, f"cmb gateway: {message}", "upstream_error")
        if resp.status >= 400 or not isinstance(parsed, dict):
            state.add_unanswered()
            message = upstream_error_message(parsed, data.decode(errors="replace"))
            if resp.status < 400:  # a success status with a body that is no reply: the provider is broken
                state.event("gave-up", f"HTTP {resp.status} with a body that is not a JSON reply: {message[:300]}")
            status = resp.status if resp.status >= 400 else 502
            self._finish(state, entry, status, t0, error=message, response=parsed)
            if route.translated or not isinstance(parsed, dict):
                return _error(dialect, status, f"upstream: {message}", "upstream_error")
            return web.json_response(parsed, status=status)
        counts = route.upstream.counts(parsed.get("usage"))
        price = self.prices.price(upstream_model, upstream.price_provider, counts) if counts else None
        state.add(counts, price, self.prices.version)
        out = route.response(parsed, body)
        self._finish(
            state,
            entry,
            200,
            t0,
            response=parsed,
            counts=counts,
            price=price,
            client_response=out if route.translated else None,
        )
        return web.json_response(out)

    async def _stream(
        self,
        request: web.Request,
        state: AttemptState,
        route: Route,
        body: Json,
        upstream: UpstreamConfig,
        upstream_model: str,
        name: str,
        resp: aiohttp.ClientResponse,
        entry: Json,
        t0: float,
    ) -> web.StreamResponse:
        translator = route.stream(body, name)
        out = web.StreamResponse(status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await out.prepare(request)
        error: str | None = None
        events = 0
        # Frames are sent one upstream event late, so the usage is recorded before the client sees the stream's
        # last event (a client may exit on it, and the runner reads the meter right after).
        held: list[bytes] = []
        try:
            for frame in translator.start():
                await out.write(frame)
            async with asyncio.timeout(max(0.0, upstream.max_reply_s - (time.monotonic() - t0))):
                async for event in iter_sse(resp.content.__aiter__()):
                    events += 1
                    for frame in held:
                        await out.write(frame)
                    held = translator.feed(event)
            held += translator.finish()
        except TimeoutError:
            error = f"upstream stream still open after {upstream.max_reply_s:g} s ({events} events): cut off"
            state.event("gave-up", error)
            held.append(route.client.stream_error(error))
        except (aiohttp.ClientError, ValueError) as exc:  # ValueError: a line longer than the reader's limit
            error = f"upstream stream broke after {events} events: {type(exc).__name__}: {exc}"
            state.event("gave-up", error)
            held.append(route.client.stream_error(error))
        except ConnectionError as exc:
            error = f"client went away after {events} events: {exc}"
            held = []
        finally:
            resp.release()
        counts = translator.counts()
        price = self.prices.price(upstream_model, upstream.price_provider, counts) if counts else None
        state.add(counts, price, self.prices.version)
        self._finish(
            state,
            entry,
            200,
            t0,
            response=translator.result(),
            counts=counts,
            price=price,
            error=error,
            stream_events=events,
        )
        try:
            for frame in held:
                await out.write(frame)
            await out.write_eof()
        except ConnectionError:
            pass
        return out

    def _finish(self, state: AttemptState, entry: Json, status: int, t0: float, **fields: Any) -> None:
        counts = fields.pop("counts", None)
        record = {**entry, "status": status, "latency_s": round(time.monotonic() - t0, 3), **fields}
        if counts is not None:
            record["usage"] = counts.as_dict()
            record["cost_usd"] = fields.get("price")
            record.pop("price", None)
        state.write(record)
        state.save_summary()

    async def models(self, request: web.Request) -> web.Response:
        """The model of the token (GET /v1/models), for clients that list models first."""
        state = self.authenticate(request, CHAT)
        if state is None:
            return _error(CHAT, 401, "unknown or missing gateway token", "invalid_api_key")
        names = [state.model] if state.model else []
        return web.json_response(
            {"object": "list", "data": [{"id": n, "object": "model", "created": 0, "owned_by": "cmb"} for n in names]}
        )

    async def count_tokens(self, request: web.Request) -> web.Response:
        """A rough estimate for /v1/messages/count_tokens (four characters a token): nothing is forwarded."""
        if self.authenticate(request, MESSAGES) is None:
            return _error(MESSAGES, 401, "unknown or missing gateway token", "invalid_api_key")
        raw = await request.read()
        return web.json_response({"input_tokens": max(1, len(raw) // 4)})

    # -- admin -------------------------------------------------------------------------------------------------------

    def _admin_ok(self, request: web.Request) -> bool:
        auth = request.headers.get("Authorization", "")
        return auth[:7].lower() == "bearer " and hmac.compare_digest(auth[7:].strip(), self.admin_key)

    async def admin_issue(self, request: web.Request) -> web.Response:
        """POST /admin/tokens {attempt, model?, budget?} -> {attempt, token}."""
        if not self._admin_ok(request):
            return web.json_response({"error": "admin key required"}, status=401)
        try:
            doc = await request.json()
            attempt = str(doc["attempt"])
            budget = Budget.model_validate(doc["budget"]) if doc.get("budget") else None
            state = self.issue(attempt, doc.get("model"), budget)
        except (ValueError, KeyError, TypeError, RoutingError) as exc:
            return web.json_response({"error": f"{type(exc).__name__}: {exc}"}, status=400)
        return web.json_response({"attempt": attempt, "token": state.token})

    async def admin_usage(self, request: web.Request) -> web.Response:
        """GET /admin/usage?attempt=KEY -> the attempt's usage summary."""
        if not self._admin_ok(request):
            return web.json_response({"error": "admin key required"}, status=401)
        state = self.registry.get(request.query.get("attempt", ""))
        if state is None:
            return web.json_response({"error": "unknown attempt"}, status=404)
        return web.json_response(json.loads(state.summary().model_dump_json()))

    async def admin_trajectory(self, request: web.Request) -> web.Response:
        """POST /admin/trajectory?attempt=KEY -> the attempt's ATIF trajectory, written beside its transcript.

        The runner calls it when the agent is done; `null` when the attempt made no model request.
        """
        if not self._admin_ok(request):
            return web.json_response({"error": "admin key required"}, status=401)
        state = self.registry.get(request.query.get("attempt", ""))
        if state is None:
            return web.json_response({"error": "unknown attempt"}, status=404)
        trajectory = await asyncio.to_thread(state.save_trajectory)
        return web.json_response({"trajectory": trajectory})

    async def admin_revoke(self, request: web.Request) -> web.Response:
        """DELETE /admin/tokens?attempt=KEY."""
        if not self._admin_ok(request):
            return web.json_response({"error": "admin key required"}, status=401)
        found = self.registry.revoke(request.query.get("attempt", ""))
        return web.json_response({"revoked": found}, status=200 if found else 404)

    async def health(self, request: web.Request) -> web.Response:
        """GET /healthz."""
        return web.json_response(
            {"ok": True, "price_table": self.prices.version, "upstreams": sorted(self.config.upstreams)}
        )


def _error(dialect: Dialect, status: int, message: str, code: str) -> web.Response:
    return web.json_response(dialect.error_body(status, message, code), status=status)


def make_app(gateway: Gateway) -> web.Application:
    """The aiohttp application; the upstream session lives as long as the app."""
    app = web.Application(client_max_size=64 * 2**20)
    app[GATEWAY_KEY] = gateway

    async def session_ctx(app: web.Application) -> Any:
        gateway.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=256))
        yield
        await gateway.session.close()

    app.cleanup_ctx.append(session_ctx)

    def serve(dialect: Dialect) -> Any:
        async def handler(request: web.Request) -> web.StreamResponse:
            return await gateway.handle(request, dialect)

        return handler

    for dialect in DIALECTS.values():
        app.router.add_post(f"/v1{dialect.path}", serve(dialect))
    app.router.add_post(f"/v1{MESSAGES.path}/count_tokens", gateway.count_tokens)
    app.router.add_get("/v1/models", gateway.models)
    app.router.add_post("/admin/tokens", gateway.admin_issue)
    app.router.add_delete("/admin/tokens", gateway.admin_revoke)
    app.router.add_get("/admin/usage", gateway.admin_usage)
    app.router.add_post("/admin/trajectory", gateway.admin_trajectory)
    app.router.add_get("/healthz", gateway.health)
    return app
