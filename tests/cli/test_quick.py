"""`prices`, `cost` and `sql` without Typer (chipcost.cli.quick) mean what they mean through it.

Both paths read their options from the commands' declared questions (chipcost.core.questions);
these tests hold the quick path's tables to what Typer builds, and run generated command lines
through both paths: wherever the quick path accepts a line, Typer must pass the command exactly
the same arguments.
"""

from __future__ import annotations

import inspect
import math
import subprocess
import sys
from unittest import mock

import pytest
import typer.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from chipcost.cli import entry, quick, reads
from chipcost.cli.commands import admin, cost, prices
from chipcost.cli.formats import OutputFormat, PriceFormat
from chipcost.cli.main import app, load_command
from chipcost.core.questions import QUESTIONS
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from tests.helpers import day, record, run_of

COMMANDS = {"prices": prices.prices, "cost": cost.cost, "sql": admin.sql}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("quick") / "w.duckdb"
    con = open_warehouse(path)
    load_run(con, run_of([record()], day(0)))
    con.close()
    return path


def test_the_entry_point_sends_exactly_these_commands_the_quick_way():
    assert entry._QUICK == set(quick.SPECS) == set(COMMANDS)


@pytest.mark.parametrize("name", sorted(quick.SPECS))
def test_each_table_names_the_options_typer_builds_and_reads_them_the_same_way(name):
    spec = quick.SPECS[name]
    command = load_command(name)
    typer_options = {}
    positionals = []
    for param in command.params:
        if param.param_type_name == "argument":
            positionals.append(param.name)
            continue
        for opt in param.opts:
            typer_options[opt] = (param, True)
        for opt in param.secondary_opts:
            typer_options[opt] = (param, False)
    assert set(spec.options) == set(typer_options)
    assert [spec.positional] == (positionals or [None])
    for name_, opt in spec.options.items():
        param, primary = typer_options[name_]
        assert opt.param == param.name, name_
        assert opt.multiple == param.multiple, name_
        assert (opt.kind == "flag") == param.is_flag, name_
        if opt.kind == "flag":
            assert opt.value is primary, name_
        kinds = {
            "int": "int range", "float": "float", "format": "choice", "price-format": "choice",
            "text": "str",
        }  # fmt: skip
        if opt.kind != "flag":
            assert param.type.name == kinds[opt.kind], name_
        if opt.kind == "int":
            assert (opt.low, opt.high) == (param.type.min, param.type.max), name_
        if opt.kind in ("format", "price-format"):
            kind = PriceFormat if opt.kind == "price-format" else OutputFormat
            assert sorted(param.type.choices) == sorted(f.value for f in kind), name_
            assert not param.type.case_sensitive, name_
    required = tuple(p.name for p in command.params if p.required)
    assert set(spec.required) == set(required)


@pytest.mark.parametrize("name", sorted(quick.SPECS))
def test_the_command_the_quick_path_and_the_plain_function_take_the_declared_fields(name):
    question = QUESTIONS[name]
    typer_side = inspect.signature(COMMANDS[name]).parameters
    assert list(typer_side) == [f.name for f in question.cli_fields()]
    spec = quick.SPECS[name]
    for field in question.cli_fields():
        if field.required:
            assert typer_side[field.name].default is inspect.Parameter.empty
            assert field.name in spec.required
        else:
            assert typer_side[field.name].default == field.default, field.name
            assert spec.defaults[field.name] == field.default, field.name
    assert set(spec.defaults) | set(spec.required) == set(typer_side)
    with pytest.raises(TypeError, match="unexpected keyword"):
        getattr(reads, name)(no_such_option=1)


def through_typer(name: str, args: list[str]) -> dict | None:
    """The arguments Typer passes the command for this line (None: Typer refused it)."""
    seen: list[dict] = []
    with mock.patch.object(reads, name, lambda **kwargs: seen.append(kwargs)):
        result = typer.testing.CliRunner().invoke(app, [name, *args])
    if result.exit_code != 0:
        assert not seen
        return None
    assert len(seen) == 1, result.output
    return seen[0]


def same(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for key in a:
        x, y = a[key], b[key]
        both_nan = isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y)
        if not (both_nan or (x == y and type(x) is type(y))):
            return False
    return True


# Values for each kind of option, with the edges Typer refuses or reads its own way.
VALUES = {
    "text": st.sampled_from(["H100", "H100,A100", "us-east-1", "", "a=b", "select 1", "-x", "--"]),
    "int": st.sampled_from(["5", " 5", "+5", "0", "1", "1000000", "1000001", "5.0", "x", "-1"]),
    "float": st.sampled_from(["2.5", "1e3", "nan", "inf", " 3", "x", "1_0", "-1"]),
    "format": st.sampled_from(["csv", "CSV", "json", "Table", "xml", ""]),
    "price-format": st.sampled_from(["csv", "Focus", "json", "Table", "xml", ""]),
}
ANY_VALUE = st.one_of(*VALUES.values())


@st.composite
def command_lines(draw, name: str) -> list[str]:
    """Lines of this command's options (and stray tokens Typer treats its own way)."""
    spec = quick.SPECS[name]
    names = sorted(spec.options)
    tokens: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        choice = draw(st.integers(0, 9))
        if choice <= 6:
            option = draw(st.sampled_from(names))
            kind = spec.options[option].kind
            if kind == "flag":
                tokens.append(option)
            elif draw(st.booleans()):
                tokens.append(f"{option}={draw(VALUES[kind])}")
            else:
                tokens += [option, draw(VALUES[kind])]
        elif choice == 7:
            tokens.append(draw(ANY_VALUE))  # a positional (sql's query) or a stray word
        else:
            tokens.append(draw(st.sampled_from(["--help", "-h", "--nope", "--wide=1", "--"])))
    if spec.required and draw(st.integers(0, 4)):
        for required in spec.required:  # usually complete, sometimes not
            if required == spec.positional:
                tokens.insert(0, draw(st.sampled_from(["select 1", "select 2"])))
            else:
                tokens += [f"--{required.replace('_', '-')}", draw(ANY_VALUE.filter(_plain))]
    return tokens


def _plain(value: str) -> bool:
    return not value.startswith("-")


@pytest.mark.parametrize("name", sorted(quick.SPECS))
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_wherever_the_quick_path_takes_a_line_typer_passes_the_same_arguments(name, data):
    args = data.draw(command_lines(name))
    quick_kwargs = quick.parse(name, args)
    if quick_kwargs is None:
        return  # left to Typer, which says what is wrong (or runs it) itself
    typer_kwargs = through_typer(name, args)
    assert typer_kwargs is not None, f"Typer refused {args!r}, the quick path took it"
    assert same(quick_kwargs, typer_kwargs), (args, quick_kwargs, typer_kwargs)


TYPICAL = {
    "prices": [
        ["--chip", "H100-SXM", "--region", "us-east-1"],
        ["--chip=H100", "--chip", "A100", "--spot", "--format", "json", "--limit", "5"],
        ["--pricing-model", "on_demand", "--min-memory", "80", "--no-spot", "--wide"],
        ["--db", "w.duckdb", "--max-price", "3.5", "--chips", "8"],
    ],
    "cost": [
        ["--model", "llama-3-70b", "--workload", "training"],
        ["--model=llama-3-70b", "--workload=inference", "--tokens", "300B", "--all-offers"],
        ["--model", "m", "--workload", "training", "--baseline", "H200", "--overhead", "0.2"],
    ],
    "sql": [
        ["select count(*) from price_history"],
        ["--db", "w.duckdb", "select 1", "--format=CSV", "--max-rows", "3"],
    ],
}


@pytest.mark.parametrize(
    ("name", "args"), [(name, args) for name, lines in TYPICAL.items() for args in lines]
)
def test_everyday_lines_take_the_quick_path_with_typers_arguments(name, args):
    quick_kwargs = quick.parse(name, args)
    assert quick_kwargs is not None
    assert same(quick_kwargs, through_typer(name, args))


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("prices", ["--help"]),
        ("prices", ["-h"]),
        ("prices", ["--chip"]),
        ("prices", ["--limit", "0"]),
        ("prices", ["--format", "xml"]),
        ("prices", ["--wide=yes"]),
        ("prices", ["--chip-family", "H100"]),
        ("prices", ["--min-price", "-1"]),
        ("cost", ["--model", "llama-3-70b"]),
        ("sql", []),
        ("sql", ["select 1", "select 2"]),
        ("sql", ["--", "select 1"]),
    ],
)
def test_anything_else_is_left_to_typer(name, args):
    assert quick.parse(name, args) is None


def test_a_quick_command_loads_neither_typer_nor_prefect(db):
    code = (
        "import sys\n"
        f"sys.argv = ['chipcost', 'prices', '--chip', 'H100-SXM', '--db', {str(db)!r}]\n"
        "from chipcost.cli.entry import main\n"
        "main()\n"
        "print(sorted(m for m in ('typer', 'prefect', 'polars') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert "H100-SXM" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_a_closed_pipe_ends_the_quick_command_as_typer_ends_it(db):
    # `chipcost sql ... | head -c 10`: exit 1 and no traceback, the same as through Typer.
    reader = subprocess.Popen(
        ["head", "-c", "10"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL
    )
    writer = subprocess.run(
        [
            sys.executable,
            "-c",
            "from chipcost.cli.entry import main; main()",
            *["sql", "select * from range(200000)", "--format", "csv", "--db", str(db)],
        ],
        stdout=reader.stdin,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
    )
    reader.stdin.close()
    reader.wait()
    assert writer.returncode == 1, writer.stderr
    assert "Traceback" not in writer.stderr
