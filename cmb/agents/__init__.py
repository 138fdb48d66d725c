"""Agents registered by name: oracle, null, replay, and external programs configured in YAML."""

from cmb.agents._base import (
    AGENTS,
    Agent,
    AgentContext,
    AgentInfo,
    AgentOutcome,
    SandboxPaths,
    agent_infos,
    agents_need_gateway,
    get_agent,
    needs_gateway,
    register_agent,
)
from cmb.agents._builtin import NullAgent, OracleAgent, RecallAgent
from cmb.agents._external import (
    USAGE_PARSERS,
    AgentSetupError,
    ExternalAgent,
    ExternalAgentSpec,
    ExternalFactory,
    load_external_specs,
    load_user_agents,
    register_external,
    register_usage_parser,
)
from cmb.agents._llm import BuiltinLLMAgent, CodeActAgent, ReactAgent
from cmb.agents._replay import ReplayAgent, Run, WriteFile, dump_trajectory, load_trajectory
from cmb.models import GatewayAccess  # what agents receive; defined with the records the gateway shares

__all__ = [
    "AGENTS",
    "USAGE_PARSERS",
    "Agent",
    "AgentContext",
    "AgentInfo",
    "AgentOutcome",
    "AgentSetupError",
    "BuiltinLLMAgent",
    "CodeActAgent",
    "ExternalAgent",
    "ExternalAgentSpec",
    "ExternalFactory",
    "GatewayAccess",
    "NullAgent",
    "OracleAgent",
    "ReactAgent",
    "RecallAgent",
    "ReplayAgent",
    "Run",
    "SandboxPaths",
    "WriteFile",
    "agent_infos",
    "agents_need_gateway",
    "dump_trajectory",
    "get_agent",
    "load_external_specs",
    "load_user_agents",
    "load_trajectory",
    "needs_gateway",
    "register_agent",
    "register_external",
    "register_usage_parser",
]
