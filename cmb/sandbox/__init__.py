"""Sandboxes: one interface, one module per backend, registered by name."""

from importlib import import_module

from cmb.sandbox._base import (
    BACKENDS,
    THREAD_VARS,
    ExecResult,
    Sandbox,
    SandboxError,
    SandboxSpec,
    cleanup_orphans,
    get_backend,
    register_backend,
)

BACKEND_MODULES = ("local", "docker", "kubernetes")

for _name in BACKEND_MODULES:
    import_module(f"cmb.sandbox._{_name}")

__all__ = [
    "BACKENDS",
    "BACKEND_MODULES",
    "THREAD_VARS",
    "ExecResult",
    "Sandbox",
    "SandboxError",
    "SandboxSpec",
    "cleanup_orphans",
    "get_backend",
    "register_backend",
]
