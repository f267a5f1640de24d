"""The `chipcost` command: each command of chipcost.cli.index loaded by name when it runs;
expected errors print one line."""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.text import Text
from typer.core import TyperCommand, TyperGroup

from chipcost.cli.index import COMMANDS, SUMMARY
from chipcost.cli.options import err
from chipcost.core.clean import printable, scrub
from chipcost.core.errors import ChipcostError
from chipcost.core.settings import secret_values
from chipcost.core.version import __version__

if TYPE_CHECKING:  # Typer's own copy of Click
    from typer._click import Command, Context


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
    help=SUMMARY,
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
