"""The agent registry: which registered agents need the model gateway."""

from __future__ import annotations

from cmb.agents import agents_need_gateway


def test_only_llm_agents_need_a_gateway():
    assert agents_need_gateway(["oracle", "codeact@openai:gpt-4o"])
    assert agents_need_gateway(["react"])
    assert not agents_need_gateway(["oracle", "null"])
    assert not agents_need_gateway(["no-such-agent"])
