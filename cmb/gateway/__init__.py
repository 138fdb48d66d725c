"""The model gateway: per-attempt tokens, three model APIs, metering, prices, budgets, transcripts."""

from cmb.gateway._config import DEFAULT_UPSTREAMS, Budget, GatewayConfig, RetryPolicy, UpstreamConfig
from cmb.gateway._local import GatewayClient, LocalGateway, interface_address, read_usage, sandbox_hosts
from cmb.gateway._prices import PriceTable
from cmb.gateway._server import Gateway, RoutingError, key_model_name, make_app
from cmb.gateway._session import TrajectorySource, attempt_access, attempt_trajectory, load_config, sweep_gateway
from cmb.gateway._state import TRAJECTORY
from cmb.gateway._tokens import TokenCounts
from cmb.gateway._usage import AttemptUsage, InfraEvent

__all__ = [
    "DEFAULT_UPSTREAMS",
    "TRAJECTORY",
    "AttemptUsage",
    "Budget",
    "Gateway",
    "GatewayClient",
    "GatewayConfig",
    "InfraEvent",
    "LocalGateway",
    "PriceTable",
    "RetryPolicy",
    "RoutingError",
    "TokenCounts",
    "TrajectorySource",
    "UpstreamConfig",
    "attempt_access",
    "attempt_trajectory",
    "interface_address",
    "key_model_name",
    "load_config",
    "make_app",
    "read_usage",
    "sandbox_hosts",
    "sweep_gateway",
]
