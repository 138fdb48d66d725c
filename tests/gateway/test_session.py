"""The hooks the runner and the sweep use: a gateway started for the sweep, a token per attempt, the meter."""

from __future__ import annotations

import json
from pathlib import Path

from cmb.gateway import attempt_access, attempt_trajectory, sweep_gateway
from cmb.models import Condition, GatewayEndpoint, RunKey
from cmb.settings import CmbSettings
from tests.gateway.helpers import CHAT, post

KEY = RunKey(sweep="s", agent="codeact@test:gpt-4o-mini", task="t", condition=Condition.SF, trial=0)


def test_sweep_gateway_is_started_only_when_needed_and_not_configured(tmp_path):
    with sweep_gateway(tmp_path, GatewayEndpoint(key="k"), needed=False) as endpoint:
        assert endpoint == GatewayEndpoint(key="k")
    with sweep_gateway(tmp_path, GatewayEndpoint(url="http://gw:1"), needed=True) as endpoint:
        assert endpoint == GatewayEndpoint(url="http://gw:1")
        access, meter = attempt_access(endpoint, KEY, "openai:gpt-4o")
        assert access.base_url == "http://gw:1" and access.api_key is None and meter is None
    with sweep_gateway(tmp_path, GatewayEndpoint(), needed=True) as endpoint:
        assert endpoint.url and endpoint.url.startswith("http://127.0.0.1:") and endpoint.admin_key
        status, _ = post(endpoint.url + "/v1/chat/completions", CHAT, "not-a-token")
        assert status == 401


def test_attempt_access_issues_a_token_per_attempt_and_meters_it(stack, tmp_path, monkeypatch):
    config = tmp_path / "gateway.yaml"
    up, _gw = stack([{"content": "hi", "usage": {"prompt": 12, "completion": 3}}])
    config.write_text(
        json.dumps(
            {
                "upstreams": {
                    "test": {"base_url": up.base_url, "key_env": "CMB_TEST_UPSTREAM_KEY", "price_provider": "openai"}
                }
            }
        )
    )
    monkeypatch.setenv("CMB_GATEWAY_CONFIG", str(config))
    settings = CmbSettings()  # the config file named by CMB_GATEWAY_CONFIG
    with sweep_gateway(tmp_path, GatewayEndpoint(), needed=True, config=settings.gateway.config) as endpoint:
        access, meter = attempt_access(endpoint, KEY, "test:gpt-4o-mini")
        other, _ = attempt_access(endpoint, KEY.model_copy(update={"trial": 1}), "test:gpt-4o-mini")
        assert access.api_key != other.api_key and access.model == "test:gpt-4o-mini"
        status, _ = post(f"{access.base_url}/v1/chat/completions", CHAT, access.api_key)
        assert status == 200 and up.requests[0]["model"] == "gpt-4o-mini"  # the ':' form routes like the '/' one
        usage = meter(KEY)
    assert usage is not None and (usage.requests, usage.input_tokens, usage.output_tokens) == (1, 12, 3)
    assert usage.model_cost_usd is not None and usage.model_cost_usd > 0
    assert (tmp_path / "gateway" / "s").is_dir()  # records under CMB_HOME/gateway/<sweep>/


def test_model_names_with_slashes_survive_the_attempt_key(stack):
    from cmb.gateway import key_model_name

    name = key_model_name("test/Qwen/Qwen3-8B")
    assert name == "test:Qwen%2FQwen3-8B"
    RunKey(sweep="s", agent=f"codeact@{name}", task="t", condition=Condition.SF, trial=0)  # a valid key part
    up, gw = stack([{"content": "x"}])
    post(f"{gw.base_url}/v1/chat/completions", CHAT, gw.issue("s/a/t/SF/0", name))
    assert up.requests[0]["model"] == "Qwen/Qwen3-8B"


def test_a_separately_served_gateway_is_used_with_the_admin_key_from_the_environment(stack, monkeypatch):
    from cmb.models import AttemptOptions
    from cmb.runner import effective_options

    up, gw = stack([{"content": "x", "usage": {"prompt": 5, "completion": 1}}])
    monkeypatch.setenv("CMB_GATEWAY_ADMIN_KEY", gw.admin_key)
    monkeypatch.setenv("CMB_GATEWAY_URL", gw.base_url)
    endpoint = effective_options(AttemptOptions(), CmbSettings()).gateway  # URL and admin key from the settings
    access, meter = attempt_access(endpoint, KEY, "test:gpt-4o-mini")
    assert access.api_key and access.api_key.startswith("cmb-") and meter is not None
    assert post(f"{gw.base_url}/v1/chat/completions", CHAT, access.api_key)[0] == 200
    assert meter(KEY).input_tokens == 5
    trajectory = attempt_trajectory(endpoint)  # over the admin API: written beside the transcript, and returned
    assert trajectory is not None
    atif = trajectory(KEY)
    assert atif is not None and atif["final_metrics"]["total_prompt_tokens"] == 5
    assert [s["source"] for s in atif["steps"]] == ["user", "agent"] and atif["steps"][1]["message"] == "x"
    beside = Path(gw.usage(KEY).transcript).with_name("trajectory.atif.json")
    assert json.loads(beside.read_text()) == atif
    assert trajectory(KEY.model_copy(update={"trial": 5})) is None  # an attempt the gateway never heard of
    assert attempt_trajectory(GatewayEndpoint(url=gw.base_url)) is None  # no admin key: no transcript to read
