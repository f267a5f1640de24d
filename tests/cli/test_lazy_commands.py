"""Commands load their modules only when they run: the list in `--help` is kept by hand."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from chipcost.cli.main import COMMANDS, load_command
from chipcost.core.version import __version__

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


CHIPCOST = str(Path(sys.executable).with_name("chipcost"))


@pytest.mark.parametrize(("args", "code"), [((), 2), (("--help",), 0), (("-h",), 0)])
def test_the_overview_lists_every_command_and_option_without_the_cli_framework(args, code):
    code_run = (
        "import sys\n"
        f"sys.argv = ['chipcost', *{list(args)!r}]\n"
        "from chipcost.cli.entry import main\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    print('exit', exc.code)\n"
        "print(sorted(m for m in ('typer', 'rich', 'chipcost.cli.main') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code_run],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    *shown, exit_line, loaded = result.stdout.strip().splitlines()
    assert loaded == "[]"
    assert exit_line == f"exit {code}"
    text = " ".join(" ".join(shown).split())  # lines wrap at the terminal's width
    for name, (_, _, line) in COMMANDS.items():
        assert f" {name} {line}" in text
    # Every option of `chipcost` itself, as the framework's own help has them.
    from chipcost.cli.main import app

    group = typer.main.get_group(app)
    with group.make_context("chipcost", ["--version"], resilient_parsing=True) as ctx:
        params = group.get_params(ctx)
    for param in params:
        for flag in param.opts + param.secondary_opts:
            assert flag in text, flag
        assert param.help in text


def test_the_console_script_answers_help_and_version():
    shown = subprocess.run(
        [CHIPCOST, "--help"], capture_output=True, text=True, timeout=120, check=True
    )
    assert shown.stdout.startswith("Usage: chipcost [OPTIONS] COMMAND [ARGS]...")
    assert "chipcost COMMAND --help" in shown.stdout
    version = subprocess.run([CHIPCOST, "-V"], capture_output=True, text=True, check=True)
    assert version.stdout == f"chipcost {__version__}\n"
    # Anything else still reaches the commands.
    sub = subprocess.run([CHIPCOST, "sql", "--help"], capture_output=True, text=True, check=True)
    assert "read-only" in sub.stdout


@pytest.fixture(scope="module")
def priced(tmp_path_factory) -> Path:
    from tests.helpers import loaded_warehouse, record

    path = tmp_path_factory.mktemp("lazy") / "w.duckdb"
    return loaded_warehouse(path, [record(), record(region="us-west-2", price_per_hour=57.2)])


def test_the_prices_table_is_read_without_polars(priced):
    """The terminal table reads DuckDB's rows; polars is loaded for csv and json only."""
    assert loaded_after("prices", "--db", str(priced)) == ["chipcost.cli.commands.prices", "duckdb"]
    as_json = loaded_after("prices", "--format", "json", "--db", str(priced))
    assert "polars" in as_json


def test_the_cost_table_is_read_without_polars(priced):
    ask = ("cost", "--model", "llama-3-70b", "--workload", "training", "--db", str(priced))
    assert loaded_after(*ask) == ["chipcost.cli.commands.cost", "duckdb"]
    assert "polars" in loaded_after(*ask, "--format", "csv")


HELPS = [(name,) for name in sorted(COMMANDS) if name != "throughput"] + [
    ("throughput", sub) for sub in ("add", "list", "import", "remove")
]


@pytest.mark.parametrize("command", HELPS, ids=" ".join)
def test_every_help_fits_80_columns_without_cutting_a_word(run, command):
    # Rich cuts what does not fit its column with an ellipsis: an option's name, a default.
    shown = run(*command, "--help", env={"COLUMNS": "80"})
    assert shown.returncode == 0, shown.stderr
    assert "Options" in shown.stdout
    assert "…" not in shown.stdout, shown.stdout
    assert max(len(line) for line in shown.stdout.splitlines()) <= 80
