"""Check family: numeric."""
