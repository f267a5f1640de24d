"""The `chipcost` command: each command of chipcost.cli.index loaded by name when it runs;
expected errors print one line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from chipcost.cli.failures import guarded
from chipcost.cli.index import COMMANDS, SUMMARY
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


def main() -> None:
    """Entry point: expected failures print one clear line, never a traceback."""
    guarded(app)
