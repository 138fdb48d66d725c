"""Check family: structure."""
