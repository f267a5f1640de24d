"""The `chipcost` command: every command registered here, by name; errors print one line."""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.text import Text
from typer.core import TyperCommand, TyperGroup

from chipcost.cli.options import err
from chipcost.core.clean import printable, scrub
from chipcost.core.errors import ChipcostError
from chipcost.core.settings import secret_values
from chipcost.core.version import __version__

if TYPE_CHECKING:  # Typer's own copy of Click
    from typer._click import Command, Context

# Every command, by name: its module in chipcost.cli.commands, the function (or Typer app)
# there, and the line `chipcost --help` shows for it. A command's module is imported only
# when the command runs or shows its own help, so `--help` and each command load only what
# they need (tests/cli/test_cli.py checks each line against the command's own help).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "collect": (
        "collect",
        "collect",
        "Collect today's prices (or replay an archive) into the warehouse.",
    ),
    "prices": (
        "prices",
        "prices",
        "Current per-chip hourly prices, cheapest first within each chip and pricing model.",
    ),
    "history": (
        "history",
        "history",
        "The cheapest per-chip-hour price per day per pricing model, with a terminal chart.",
    ),
    "sql": ("admin", "sql", "Run an ad hoc read-only query against the warehouse."),
    "cost": (
        "cost",
        "cost",
        "Cost per million tokens (and of N tokens) per chip and pricing model, cheapest first.",
    ),
    "report": (
        "report",
        "report",
        "Write the report (HTML) and a CSV of every change; mail it, or write it as .eml.",
    ),
    "site": (
        "site",
        "site",
        "Write the price explorer: every current offer, sortable and filterable, no server.",
    ),
    "backfill": (
        "backfill",
        "backfill",
        "Load AWS's past EC2 price lists (on-demand, reserved) as history, oldest first.",
    ),
    "migrate": (
        "admin",
        "migrate",
        "Create the warehouse or upgrade its schema to this version of chipcost.",
    ),
    "sources": (
        "admin",
        "sources",
        "List the registered sources, with each one's last successful run when a warehouse exists.",
    ),
    "demo": (
        "demo",
        "demo",
        "Replay the bundled SAMPLE archive (synthetic prices) into the warehouse and show them.",
    ),
    "throughput": (
        "throughput",
        "throughput_app",
        "Throughput figures: references, derived figures and your own measurements.",
    ),
}


def load_command(name: str) -> Command:
    """The command's Click command, its module imported now."""
    from importlib import import_module

    module, attribute, _ = COMMANDS[name]
    found = getattr(import_module(f"chipcost.cli.commands.{module}"), attribute)
    holder = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    if isinstance(found, typer.Typer):
        holder.add_typer(found, name=name)
    else:
        holder.command(name=name)(found)
    return typer.main.get_group(holder).commands[name]


class _Commands(TyperGroup):
    """Lists every command of COMMANDS; imports a command's module only to run it."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        for name, (_, _, line) in COMMANDS.items():
            self.commands[name] = TyperCommand(name=name, help=line)

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if name in COMMANDS:
            command = load_command(name)
        return name, command, rest


app = typer.Typer(
    cls=_Commands,
    help="AI-accelerator prices with history: collect, query, compare.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"chipcost {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", callback=_version, is_eager=True, help="Print the version."
        ),
    ] = False,
) -> None:
    """AI-accelerator prices with history: collect, query, compare."""


class _WaitHandler(logging.Handler):
    """Waits for the warehouse file (chipcost.warehouse.lock_wait), one line each on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        err.print(record.getMessage(), style="dim", markup=False, highlight=False)


def _show_waits() -> None:
    # Every command may wait for the file; `collect` also shows it on its status line.
    logger = logging.getLogger("chipcost.progress.wait")
    if not any(isinstance(h, _WaitHandler) for h in logger.handlers):
        logger.addHandler(_WaitHandler())
    logger.setLevel(logging.INFO)
    # Said once: not again by whatever handler Prefect's logging put on the root logger.
    logger.propagate = False


def main() -> None:
    """Entry point: expected failures print one clear line, never a traceback."""
    _show_waits()
    try:
        app()
    except ChipcostError as exc:
        _fail(str(exc))
    except OSError as exc:
        # A path the system refuses (too long, read-only, no permission) is the user's to fix.
        name = str(exc.filename or "")
        shown = name if len(name) < 200 else name[:100] + "…" + name[-40:]
        _fail(f"{shown}: {exc.strerror or exc}" if shown else str(exc.strerror or exc))
    except Exception as exc:
        # A query on a damaged file fails where it reads the damaged part, not at open.
        from chipcost.warehouse.db import damaged_after_open

        if (damage := damaged_after_open(exc)) is None:
            raise
        _fail(str(damage))


def _fail(message: str) -> NoReturn:
    """One line on stderr, secret values scrubbed and control characters out; exit 1."""
    safe = printable(scrub(message, secret_values(os.environ)))
    err.print(Text.assemble(("error:", "bold red"), " ", safe), highlight=False, soft_wrap=True)
    sys.exit(1)
