"""Commands load their modules only when they run: the list in `--help` is kept by hand."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from chipcost.cli.main import COMMANDS, load_command

CHIPCOST_COMMANDS = "chipcost.cli.commands."


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_listed_line_is_the_first_paragraph_of_the_commands_own_help(name):
    command = load_command(name)
    first = inspect.cleandoc(command.help or "").split("\n\n")[0]
    assert COMMANDS[name][2] == " ".join(first.split())
    assert command.name == name


def test_every_command_module_is_registered():
    from importlib import resources

    folder = resources.files("chipcost.cli.commands")
    modules = {p.name[:-3] for p in folder.iterdir() if p.name.endswith(".py")} - {"__init__"}
    assert modules == {module for module, _, _ in COMMANDS.values()}


def loaded_after(*args: str) -> list[str]:
    """The command modules and heavy libraries imported by `chipcost ARGS` in a new process."""
    code = (
        "import sys\n"
        f"sys.argv = ['chipcost', *{list(args)!r}]\n"
        "import chipcost.cli.main\n"
        "try:\n    chipcost.cli.main.main()\nexcept SystemExit:\n    pass\n"
        "heavy = ('polars', 'duckdb', 'pandera', 'prefect', 'pyarrow')\n"
        f"print(sorted(m for m in sys.modules if m.startswith({CHIPCOST_COMMANDS!r}) "
        "or m in heavy))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return eval(result.stdout.strip().splitlines()[-1])  # noqa: S307 - our own list's repr


def test_help_loads_no_command_and_no_data_library():
    assert loaded_after("--help") == []


def test_a_command_loads_its_own_module_only():
    assert loaded_after("sql", "--help") == ["chipcost.cli.commands.admin"]
