"""The `chipcost` command line: one argparse parser, built from each command's declared fields.

A command is a typed function (`command(function)`: its keywords, with `Annotated[type,
Opt(help, ...)]`, are its options) or a read's question (chipcost.core.questions) with the plain
function that answers it (chipcost.cli.reads). `--help`, per command and the overview, is
argparse's own. Only the command asked for has its options built; every command module
imports nothing heavy until its function runs, so `chipcost --help` stays quick.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from pathlib import Path
from typing import Any, NamedTuple

from chipcost.core.questions import Field, Question, fields_of

SUMMARY = "AI-accelerator prices with history: collect, query, compare."

# Every command by name, and the module of chipcost.cli.commands that declares it (as the
# attribute of its name, dashes as underscores), in the order `chipcost --help` lists them.
COMMANDS: dict[str, str] = {
    "collect": "collect",
    "prices": "prices",
    "history": "history",
    "index": "price_index",
    "sql": "admin",
    "cost": "cost",
    "compare": "compare",
    "report": "report",
    "site": "site",
    "export": "export",
    "backfill": "backfill",
    "migrate": "admin",
    "sources": "admin",
    "remove-run": "admin",
    "demo": "demo",
    "throughput": "throughput",
    "measure": "measure",
}


class Command(NamedTuple):
    """A command: what it asks (its help and options) and the function that runs it, called
    with every option by name."""

    question: Question
    run: Callable[..., object]

    @property
    def summary(self) -> str:
        return self.question.summary.split("\n", 1)[0]


class Group(NamedTuple):
    """A command of subcommands (`throughput add`, ...)."""

    summary: str
    commands: dict[str, Command]


def command(function: Callable[..., object], name: str | None = None) -> Command:
    """The command a typed function declares: its keywords are its options."""
    called = name or function.__name__.rstrip("_").replace("_", "-")
    fields = fields_of(function, api=False)
    return Command(Question(called, function.__doc__ or "", fields), function)


def read_command(question: Question) -> Command:
    """A read command: its question's options; chipcost.cli.reads' function of its name runs
    it (imported when it runs)."""

    def run(**given: Any) -> None:
        from chipcost.cli import reads

        getattr(reads, question.command)(**given)

    return Command(question, run)


def load(name: str) -> Command | Group:
    return getattr(import_module(f"chipcost.cli.commands.{COMMANDS[name]}"), name.replace("-", "_"))


class _Formatter(argparse.HelpFormatter):
    """argparse's help at the terminal's full width, each paragraph of a description kept."""

    def __init__(self, prog: str) -> None:
        import shutil

        width = shutil.get_terminal_size((100, 24)).columns - 2
        super().__init__(prog, width=max(width, 40), max_help_position=min(32, width // 3))

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = [" ".join(p.split()) for p in text.split("\n\n")]
        return "\n\n".join(super(_Formatter, self)._fill_text(p, width, indent) for p in paragraphs)


# Options renamed whose old spelling is another command's option, so not taken: a refusal
# names the new one (`prices --chips 8` is `--chip-count 8`; `measure --chips` is the chips
# serving the endpoint, `collect --source` a source id, `prices --per` hour, month or year).
RENAMED = {
    ("prices", "--chips"): "--chip-count",
    ("throughput add", "--chips"): "--chip-count",
    ("throughput add", "--per"): "--figure-per",
    ("throughput add", "--source"): "--citation",
    ("throughput model", "--source"): "--citation",
}


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line naming what to do, with the closest spelling; exit 2."""

    chosen: argparse.ArgumentParser | None = None  # the command's parser, once known

    def error(self, message: str) -> Any:
        shown = self.chosen or self
        if message.startswith("unrecognized arguments: "):
            message = _unknown(shown, message.removeprefix("unrecognized arguments: ").split())
        elif "invalid choice: " in message:
            message = _no_such_command(self, message)
        self.exit(2, f"{shown.prog}: error: {message}; see `{shown.prog} --help`\n")


def _unknown(parser: argparse.ArgumentParser, tokens: list[str]) -> str:
    import difflib  # a mistake's hint only: a command line that parses never loads it

    options = [o for o in parser._option_string_actions if o.startswith("--")]
    for token in tokens:
        if token.startswith("-"):
            name = token.partition("=")[0]
            close = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
            hints = [f"did you mean {close[0]}?"] if close else []
            if renamed := RENAMED.get((parser.prog.removeprefix("chipcost "), name)):
                hints = [f"it is {renamed} now;"]
            if others := _commands_taking(name, parser.prog):
                hints.append(f"{name} is an option of {', '.join(others)}")
            hint = f" ({' '.join(hints).removesuffix(';')})" if hints else ""
            return f"no such option: {name}{hint}"
    return f"unexpected argument{'s' if len(tokens) > 1 else ''}: {' '.join(tokens)}"


def _commands_taking(option: str, prog: str) -> list[str]:
    """The read commands other than `prog`'s that take `option` (`--model` is cost's LLM, not
    a pricing model of `prices`)."""
    from chipcost.core.questions import QUESTIONS

    return [
        name
        for name, question in QUESTIONS.items()
        if f"chipcost {name}" != prog and any(f.option == option for f in question.cli_fields())
    ]


def _no_such_command(parser: argparse.ArgumentParser, message: str) -> str:
    import difflib

    given = message.split("invalid choice: ", 1)[1].split(" (choose", 1)[0].strip("'")
    names = list(COMMANDS) if parser.prog == "chipcost" else []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            names = list(action.choices)
    close = difflib.get_close_matches(given, names, n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    return f"no such command: {given}{hint} (commands: {', '.join(names)})"


class _Old(argparse.Action):
    """An old spelling: its value goes to the new one's, with a note on stderr."""

    def __init__(self, *args: Any, new: Field, **kwargs: Any) -> None:
        self.new = new
        super().__init__(*args, **kwargs)

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        if values is None:  # an old positional not given
            return
        said = option or f"{self.dest.upper()} without {self.new.option}"
        sys.stderr.write(
            f"note: {said} is the old spelling of {self.new.option}, taken until the next release\n"
        )
        if self.new.kind == "names":
            values = [*(getattr(namespace, self.new.name) or []), values]
        setattr(namespace, self.new.name, values)


class _Switch(argparse.BooleanOptionalAction):
    """--spot or --no-spot: both on one command line ask for two things at once, refused."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        said = not str(option).startswith("--no-")
        earlier = getattr(namespace, self.dest, None)
        if earlier is not None and earlier != said:
            yes, no = self.option_strings[:2]
            parser.error(f"{yes} and {no} ask for opposites: give one of them")
        super().__call__(parser, namespace, values, option)


# The value's name in --help, by kind (else the option's name in capitals).
_METAVARS = {"names": "NAME", "int": "N", "float": "N", "db": "DB", "path": "PATH"}


def _bounded(low: int | None, high: int | None) -> Callable[[str], int]:
    def whole(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            number = None
        if (
            number is None
            or (low is not None and number < low)
            or (high is not None and number > high)
        ):
            within = f" from {low}" if low is not None else ""
            within += f" to {high:,}" if high is not None else ""
            raise argparse.ArgumentTypeError(f"{text!r}: give a whole number{within}")
        return number

    return whole


def _format(kind: str) -> Callable[[str], Any]:
    from chipcost.cli.formats import FORMAT_KINDS

    enum = FORMAT_KINDS[kind]

    def chosen(text: str) -> Any:
        if text.casefold() not in enum.__members__:
            raise argparse.ArgumentTypeError(f"{text!r}: give one of {', '.join(enum)}")
        return enum(text.casefold())

    chosen.__name__ = "format"
    return chosen


def _argument(parser: argparse.ArgumentParser, field: Field, fields: dict[str, Field]) -> None:
    """One field as argparse's argument."""
    help = argparse.SUPPRESS if field.hidden else field.help.replace("%", "%%")
    extra: dict[str, Any] = {"help": help, "dest": field.name}
    metavar = field.metavar or _METAVARS.get(field.kind)
    if metavar:
        extra["metavar"] = metavar
    if field.same_as is not None:
        extra.update(action=_Old, new=fields[field.same_as], default=None)
    elif field.kind == "names":
        extra["action"] = "append"
    elif field.kind == "flag":
        extra["action"] = "store_true"
    elif field.kind == "switch":
        extra["action"] = _Switch
    if field.kind == "int":
        extra["type"] = _bounded(field.low, field.high)
    elif field.kind == "float":
        extra["type"] = float
    elif field.kind == "path":
        extra["type"] = Path
    elif field.kind in ("format", "price-format"):
        extra["type"] = _format(field.kind)
        extra.setdefault("metavar", "{" + ",".join(_format_names(field.kind)) + "}")
    if field.kind == "argument":
        del extra["dest"]
        if not field.cli_requires:
            extra["nargs"] = "?"
        extra.setdefault("metavar", field.name.upper())
        parser.add_argument(field.name, **extra)
        return
    if field.kind not in ("flag", "switch") and field.same_as is None:
        extra["default"] = field.default
    if field.kind in ("format", "price-format"):
        extra["default"] = _format(field.kind)(field.default)
    parser.add_argument(*(field.flags or (field.option,)), required=field.cli_requires, **extra)


def _format_names(kind: str) -> list[str]:
    from chipcost.cli.formats import FORMAT_KINDS

    return [str(member) for member in FORMAT_KINDS[kind]]


def _fill(parser: argparse.ArgumentParser, command: Command) -> None:
    fields = {f.name: f for f in command.question.fields}
    for field in command.question.cli_fields():
        _argument(parser, field, fields)
    parser.set_defaults(_run=command.run)


def _subparsers(parser: argparse.ArgumentParser) -> Any:
    return parser.add_subparsers(title="commands", metavar="COMMAND", dest="_command")


def _add(subs: Any, name: str, summary: str, description: str) -> _Parser:
    return subs.add_parser(
        name,
        help=summary,
        description=description,
        formatter_class=_Formatter,
        allow_abbrev=False,
    )


def parser_for(args: Sequence[str]) -> _Parser:
    """The parser of `chipcost`: every command listed, the options of the one in `args`."""
    from chipcost.core.version import __version__

    top = _Parser(
        prog="chipcost",
        description=SUMMARY,
        epilog="`chipcost COMMAND --help` shows a command's options; they may come before the "
        "command too (`chipcost --db FILE prices`).",
        formatter_class=_Formatter,
        allow_abbrev=False,
    )
    top.add_argument("-V", "--version", action="version", version=f"chipcost {__version__}")
    subs = _subparsers(top)
    asked = args[0] if args else None
    # A command named on the line: only its module is imported (its parser is all that runs).
    for name in [asked] if asked in COMMANDS else COMMANDS:
        found = load(name)
        if isinstance(found, Group):
            sub = _add(subs, name, found.summary, found.summary)
            if name == asked:
                top.chosen = _group(sub, found, args[1:])
            continue
        sub = _add(subs, name, found.summary, found.question.summary)
        if name == asked:
            _fill(sub, found)
            top.chosen = sub
    return top


def _group(parser: _Parser, group: Group, args: Sequence[str]) -> _Parser:
    """A group's parser: its subcommands listed, the options of the one in `args`."""
    subs = _subparsers(parser)
    parser.set_defaults(_group=parser)
    chosen = parser
    for name, found in group.commands.items():
        sub = _add(subs, name, found.summary, found.question.summary)
        if args and name == args[0]:
            _fill(sub, found)
            chosen = sub
    return chosen


def options_after_command(args: Sequence[str]) -> list[str]:
    """The command line with options given before the command moved after it: `chipcost --db
    X prices` reads as `chipcost prices --db X` (a command's options are its own; any it takes
    may come first). An option before the command takes the next word as its value unless that
    word is a command or an option; `--help` and `--version` there are the top level's own."""
    args = list(args)
    at = 0
    while at < len(args) and args[at].startswith("-") and args[at] != "--":
        if args[at] in ("-h", "--help", "-V", "--version"):
            return args
        valued = "=" not in args[at] and at + 1 < len(args)
        if valued and args[at + 1] not in COMMANDS and not args[at + 1].startswith("-"):
            at += 1
        at += 1
    if at == 0 or at >= len(args) or args[at] not in COMMANDS:
        return args
    rest = args[at:]
    end = rest.index("--") if "--" in rest else len(rest)
    return [*rest[:end], *args[:at], *rest[end:]]


def parse(args: Sequence[str]) -> tuple[Callable[..., object], dict[str, Any], str]:
    """The function to run, its keyword arguments and the command as typed (`chipcost
    prices`); a usage error, `--help` or `--version` exits here (2 for an error or a command
    line with no command, as the help says)."""
    args = options_after_command(args)
    top = parser_for(args)
    if not args:
        top.print_help()
        sys.exit(2)
    given = vars(top.parse_args(args))
    run = given.pop("_run", None)
    group = given.pop("_group", None)
    given.pop("_command", None)
    if run is None:  # a group without its subcommand
        (group or top).print_help()
        sys.exit(2)
    return run, given, (top.chosen or top).prog
