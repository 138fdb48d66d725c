"""Sandboxes: one interface, one module per backend, registered by name."""

from importlib import import_module

from cmb.sandbox._base import (
    BACKENDS,
    ExecResult,
    Sandbox,
    SandboxError,
    SandboxSpec,
    get_backend,
    register_backend,
)

BACKEND_MODULES = ("local", "docker")

for _name in BACKEND_MODULES:
    import_module(f"cmb.sandbox._{_name}")

__all__ = [
    "BACKENDS",
    "BACKEND_MODULES",
    "ExecResult",
    "Sandbox",
    "SandboxError",
    "SandboxSpec",
    "get_backend",
    "register_backend",
]
