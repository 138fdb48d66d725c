"""Adapters that expose the cmb suite to other evaluation frameworks.

Each adapter lives in its own module and imports its framework only there, so cmb itself never needs it:
`cmb.integrations.inspect` (extra `inspect`) turns every task and condition into an Inspect AI Task.
"""
