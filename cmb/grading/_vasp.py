"""Check family: vasp."""
