"""The `chipcost` command: every command registered here, by name; errors print one line."""

from __future__ import annotations

import logging
import os
import sys
from typing import Annotated, NoReturn

import typer
from rich.text import Text

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
from chipcost.core.clean import printable, scrub
from chipcost.core.errors import ChipcostError
from chipcost.core.settings import secret_values
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
