"""Check family: schema."""
