"""The `chipcost` command: every command registered here, by name; errors print one line."""

from __future__ import annotations

import logging
import sys
from typing import Annotated

import typer

from chipcost.cli.commands import (
    admin,
    backfill,
    collect,
    cost,
    demo,
    history,
    prices,
    report,
    site,
    throughput,
)
from chipcost.cli.options import err
from chipcost.core.errors import ChipcostError
from chipcost.core.version import __version__

app = typer.Typer(
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


app.command()(collect.collect)
app.command()(prices.prices)
app.command()(history.history)
app.command()(admin.sql)
app.command()(cost.cost)
app.command()(report.report)
app.command()(site.site)
app.command()(backfill.backfill)
app.command()(admin.migrate)
app.command()(admin.sources)
app.command()(demo.demo)
app.add_typer(throughput.throughput_app, name="throughput")


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


def main() -> None:
    """Entry point: expected failures print one clear line, never a traceback."""
    _show_waits()
    try:
        app()
    except ChipcostError as exc:
        err.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        sys.exit(1)
