"""Shared by the scripts in scripts/ whose arguments are positional only (the report writers the
reproduce_*.sh scripts call): -h or --help as the first argument prints the script's docstring
(what it does, its usage) and exits 0 instead of reading "--help" as a directory."""
import sys


def answer_help(doc):
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print((doc or "").strip())
        sys.exit(0)
