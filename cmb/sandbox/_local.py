"""Sandbox backend: local."""
