"""The `chipcost` console script.

`chipcost`, `chipcost --help` and `chipcost --version` are answered here from the command
index, without importing the CLI framework, rich or any command: a few tens of milliseconds
instead of a few hundred. Everything else goes to chipcost.cli.main.
"""

from __future__ import annotations

import sys

# No arguments is a usage error (exit 2) that shows the overview, as the framework does.
_OVERVIEW = {(): 2, ("--help",): 0, ("-h",): 0}
_VERSION = {("--version",), ("-V",)}


def main() -> None:
    args = tuple(sys.argv[1:])
    if args in _OVERVIEW:
        from chipcost.cli.index import overview

        sys.stdout.write(overview())
        sys.exit(_OVERVIEW[args])
    if args in _VERSION:
        from chipcost.core.version import __version__

        sys.stdout.write(f"chipcost {__version__}\n")
        return
    from chipcost.cli.main import main as run

    run()
