"""Sandboxes: one interface, one module per backend, registered by name (others through entry points)."""

from cmb.sandbox._base import (
    AUTO,
    BACKENDS,
    THREAD_VARS,
    BackendInfo,
    ExecResult,
    Measured,
    Sandbox,
    SandboxError,
    SandboxSpec,
    backend_choices,
    backend_infos,
    cleanup_backend,
    cleanup_orphans,
    get_backend,
    register_backend,
    resolve_backend,
)
from cmb.sandbox._docker import DockerSandbox
from cmb.sandbox._kubernetes import KubernetesSandbox
from cmb.sandbox._local import LocalSandbox
from cmb.sandbox._pool import SandboxPool, Warm, drain_pools, pool_for

__all__ = [
    "AUTO",
    "BACKENDS",
    "THREAD_VARS",
    "Warm",
    "BackendInfo",
    "DockerSandbox",
    "ExecResult",
    "KubernetesSandbox",
    "LocalSandbox",
    "Measured",
    "Sandbox",
    "SandboxError",
    "SandboxPool",
    "SandboxSpec",
    "backend_choices",
    "backend_infos",
    "cleanup_backend",
    "cleanup_orphans",
    "drain_pools",
    "get_backend",
    "pool_for",
    "register_backend",
    "resolve_backend",
]
