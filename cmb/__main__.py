"""`python -m cmb`: the command line, for checkouts that are not the installed one."""

from cmb.cli import main

main()
