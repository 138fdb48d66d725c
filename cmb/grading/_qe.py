"""Check family: qe."""
