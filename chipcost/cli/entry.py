"""The `chipcost` console script.

`chipcost`, `chipcost --help` and `chipcost --version` are answered here from the command
index, without importing the CLI framework, rich or any command: a few tens of milliseconds
instead of a few hundred. `prices`, `cost` and `sql` run without the CLI framework when
chipcost.cli.quick can read their command line. Everything else goes to chipcost.cli.main.
"""

from __future__ import annotations

import atexit
import gc
import sys

# No arguments is a usage error (exit 2) that shows the overview, as the framework does.
_OVERVIEW = {(): 2, ("--help",): 0, ("-h",): 0}
_VERSION = {("--version",), ("-V",)}
# The commands chipcost.cli.quick may run without the CLI framework (its SPECS).
_QUICK = {"prices", "cost", "sql"}


# Registered first (the console script imports this module before anything else), so it runs
# last of the exit handlers: what is still alive then is left to the operating system instead
# of walked by the collector's passes at interpreter exit. Prefect's import alone leaves 0.3 s
# of such work, a sample replay about 1 s.
atexit.register(gc.freeze)


def _tolerant_streams() -> None:
    """On a stdout or stderr that cannot hold every character (PYTHONIOENCODING=ascii, a C
    locale on an old system), write what it can't as escapes instead of failing mid-output;
    JSON output escapes them itself (chipcost.cli.formats)."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if not encoding.startswith("utf") and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def main() -> None:
    _tolerant_streams()
    args = tuple(sys.argv[1:])
    if args in _OVERVIEW:
        from chipcost.cli.index import overview

        sys.stdout.write(overview())
        sys.exit(_OVERVIEW[args])
    if args in _VERSION:
        from chipcost.core.version import __version__

        sys.stdout.write(f"chipcost {__version__}\n")
        return
    if args and args[0] in _QUICK:
        from chipcost.cli.quick import run as run_quick

        if run_quick(args[0], list(args[1:])):
            return
    from chipcost.cli.main import main as run

    run()
