"""No option spelling below the command line: every message of the layers under it names a
field through the asker's voice (chipcost.core.questions.Voice: `--speed` on the command line,
`speed=` from Python), and a command it suggests running comes from chipcost.core.commands.
Docstrings and comments may name options; string constants may not. And an option they name
that way is one the command line takes."""

from __future__ import annotations

import ast
import re

import pytest

from chipcost.cli.parser import every_command
from chipcost.core.questions import COMMAND_LINE
from tests.paths import ROOT

# The layers below the command line (pyproject.toml's [tool.importlinter] layers).
BELOW = ("core", "archive", "pipeline", "reads", "extract", "transform",
         "warehouse", "reports", "flows", "sample")  # fmt: skip
# Files whose option spellings are no message to a chipcost user, and why.
EXEMPT = {
    "core/questions.py": "the Voice that spells the options",
    "core/asks.py": "declares the reads' options (their spellings and help)",
    "pipeline/load_generator.py": "AIPerf's own command line, which it runs",
    "sample/build/__main__.py": "the sample builder's own argparse options",
    "extract/docs.py": "the sources' docs writer's own argparse options",
}
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]+")


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def spellings_in(source: str) -> list[tuple[int, str]]:
    """(line, option) for each option spelling in the source's string constants (f-strings'
    literal parts included), docstrings left out; comments are no constants."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    return [
        (node.lineno, option)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
        for option in OPTION.findall(node.value)
    ]


def _files() -> list[str]:
    paths = []
    for below in BELOW:
        path = ROOT / below
        paths += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return [str(p.relative_to(ROOT)) for p in paths if str(p.relative_to(ROOT)) not in EXEMPT]


def test_no_layer_below_the_command_line_spells_an_option():
    found = [
        f"{name}:{line}: {option}"
        for name in _files()
        for line, option in spellings_in((ROOT / name).read_text(encoding="utf-8"))
    ]
    assert len(_files()) > 100  # the walk found the layers
    assert found == []


def test_the_exempt_files_exist_and_spell_options():
    for name in EXEMPT:
        assert spellings_in((ROOT / name).read_text(encoding="utf-8")), name


PLANTED = [
    ('raise UsageError("ask a lower speed (--speed)")\n', ["--speed"]),
    ('message = f"--since {since}: give a past day"\n', ["--since"]),
    ('note = f"widen {x}; widen --region/--pricing-model"\n', ["--region", "--pricing-model"]),
    ('ADVICE = ("run it again " "with --db NEW.duckdb")\n', ["--db"]),
]


@pytest.mark.parametrize(("source", "options"), PLANTED)
def test_a_planted_spelling_is_found(source, options):
    assert [option for _, option in spellings_in(source)] == options


@pytest.mark.parametrize(
    "source",
    [
        'def f():\n    """Ask with --speed."""\n    return voice.option("speed")\n',
        "x = 1  # the --db option\n",
        'GAP = "prices -- all of them"\n',  # a dash pair that names no option
        'said = voice.said("since", since)\n',
    ],
)
def test_what_is_no_spelling_is_not_found(source):
    assert spellings_in(source) == []


def _options() -> dict[str, set[str]]:
    """Each command's options as the command line spells them ('collect': {'--replay', ...}),
    click's own --help with them."""
    return {
        name: {"--help", *(o for p in command.params for o in (*p.opts, *p.secondary_opts))}
        for name, command in every_command()
    }


def _text(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def named_options(source: str) -> list[tuple[str | None, str]]:
    """(command, option) for each option a source names through the command line's voice
    (COMMAND_LINE.name('since'): any command's, None) or in a suggested command
    (suggested('collect', replay=...): collect's; figure_added: throughput add's)."""
    found: list[tuple[str | None, str]] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        call = node.func
        if isinstance(call, ast.Attribute) and getattr(call.value, "id", "") == "COMMAND_LINE":
            fields = node.args if call.attr == "either" else node.args[:1]
            found += [(None, COMMAND_LINE.name(f)) for f in map(_text, fields) if f]
        command = {"figure_added": "throughput add"}.get(getattr(call, "id", ""))
        if getattr(call, "id", "") == "suggested" and node.args:
            command = _text(node.args[0])
        if command:
            found += [(command, COMMAND_LINE.name(k.arg)) for k in node.keywords if k.arg]
    return found


def test_every_option_a_message_names_is_one_the_command_line_takes():
    options = _options()
    anywhere = set().union(*options.values())
    named = [
        (name, command, option)
        for name in [*_files(), "core/commands.py"]
        for command, option in named_options((ROOT / name).read_text(encoding="utf-8"))
    ]
    assert len(named) > 50  # the walk found them
    unknown = [
        f"{name}: {command or 'any command'} {option}"
        for name, command, option in named
        if option not in (options.get(command, set()) if command else anywhere)
    ]
    assert unknown == []


@pytest.mark.parametrize(
    ("source", "unknown"),
    [
        ('said = COMMAND_LINE.said("sinse", day)\n', "--sinse"),
        ('run = suggested("collect", replay_dir="DIR")\n', "--replay-dir"),
        ('run = suggested("sources", pending=True)\n', "--pending"),  # collect's, not sources'
    ],
)
def test_an_option_no_command_takes_is_found(source, unknown):
    options = _options()
    anywhere = set().union(*options.values())
    [(command, option)] = named_options(source)
    assert option == unknown
    assert option not in (options[command] if command else anywhere)
