"""Sandbox backend: docker."""
