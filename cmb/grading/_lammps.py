"""Check family: lammps."""
