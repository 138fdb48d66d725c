"""cmb: a benchmark and evaluation cluster for AI agents doing computational materials science."""

__version__ = "0.1.0"

__all__ = ["__version__"]
