"""CLI commands that live in their own modules; importing one registers it on `chipcost.cli.app`.

A module here must not import Prefect (or anything heavy) at import time: `chipcost prices`
and `chipcost sql` load every command module and must stay quick and Prefect-free.
"""

from importlib import import_module

COMMAND_MODULES: tuple[str, ...] = ("cost", "report", "throughput", "backfill")

for _name in COMMAND_MODULES:
    import_module(f"chipcost.commands.{_name}")
