"""The `chipcost` command line on click, which gives the did-you-mean, usage errors, `--help`,
types, choices and ranges, and a group importing a command's module only when it is asked for.
A command is a typed function whose keywords are its options (`command(function)`), or a read's
question and the function answering it on a terminal (`Command(name, QUESTION, run)`). Here is
only what click does not do: options before the command (`chipcost --db FILE prices`), old
spellings taken with a note, a refusal naming an option's new spelling or the reads that take
it, each usage error in one line."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from importlib import import_module
from pathlib import Path
from typing import Any, NoReturn

import click
from click.core import ParameterSource

from chipcost.cli.formats import FORMAT_KINDS
from chipcost.cli.registry import COMMANDS, RENAMED
from chipcost.core.questions import Opt, Question, fields_of
from chipcost.core.version import __version__
from chipcost.core.vocabulary import old_spelling

# Help at the terminal's full width ($COLUMNS when set), -h as --help.
SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 10_000}


class Command(click.Command):
    """A command of declared fields. Invoked, it returns the function to run, every field by
    name (an old spelling's joined to its new one's, with a note) and the command as typed."""

    def __init__(self, name: str, question: Question, run: Callable[..., object]) -> None:
        self.question = question
        self.fields = {f.name: f for f in question.fields if f.cli}
        params = [_param(f) for f in self.fields.values()]
        summary = question.summary.split("\n", 1)[0]
        super().__init__(name, SETTINGS, run, params, help=question.summary, short_help=summary)

    def old_spellings(self) -> Iterator[tuple[Opt, str, str]]:
        """Each old spelling taken: its field, as it is said ('--bucket', 'DIRECTORY without
        --out'), and the new spelling."""
        for old in self.fields.values():
            if old.same_as is not None:
                new = self.fields[old.same_as].option
                arg = old.kind == "argument"
                yield old, f"{old.name.upper()} without {new}" if arg else old.option, new

    def invoke(self, ctx: click.Context) -> Any:
        given = {k: list(v) or None if isinstance(v, tuple) else v for k, v in ctx.params.items()}
        for old, said, new in self.old_spellings():
            if given.get(old.name) is not None:
                _one_of_both(ctx, old, said, new)
                old_spelling(said, new)
        return self.callback, self.question.given(given), ctx.command_path


def _one_of_both(ctx: click.Context, old: Opt, said: str, new: str) -> None:
    """An old spelling given with its new one, of an option that takes one value: refused, as
    neither could be chosen unsaid (a list's values, `--bucket` and `--pricing-model`, join)."""
    name = old.same_as or ""
    taken = next(p for p in ctx.command.params if p.name == name)
    if taken.multiple or ctx.get_parameter_source(name) is not ParameterSource.COMMANDLINE:
        return
    old_said = old.name.upper() if old.kind == "argument" else old.option
    raise click.UsageError(f"{old_said} is the old spelling of {new}: give one of them", ctx)


def _one_switch(ctx: click.Context, param: click.Option, said: tuple[bool, ...]) -> bool | None:
    """--spot or --no-spot (None: neither); both ask for two things at once, refused."""
    if len(set(said)) > 1:
        yes, no = param.opts[0], param.secondary_opts[0]
        raise click.UsageError(f"{yes} and {no} ask for opposites: give one of them", ctx)
    return said[-1] if said else None


# What each kind of field (chipcost.core.questions.Opt) is to click; the value's name in
# --help is the field's metavar, else its kind's here, else its name in capitals.
_KINDS: dict[str, dict[str, Any]] = {
    "names": {"multiple": True, "metavar": "NAME"}, "flag": {"is_flag": True},
    "switch": {"multiple": True, "callback": _one_switch},
    "int": {"type": int, "metavar": "N"}, "float": {"type": float, "metavar": "N"},
    "path": {"type": click.Path(path_type=Path), "metavar": "PATH"},
}  # fmt: skip


def _param(field: Opt) -> click.Parameter:
    """One field as click's option or argument."""
    required = field.required or field.cli_required
    if field.kind == "argument":
        return click.Argument([field.name], required, help=None if field.hidden else field.help)
    flags, extra = field.flags or (field.option,), dict(_KINDS.get(field.kind, {}))
    extra["metavar"] = field.metavar or extra.get("metavar") or field.name.upper()
    if field.default is not None:  # None is click's own "not given": a required one is missing
        extra["default"] = field.default
    if field.kind == "switch":
        flags = (f"{flags[0]}/--no-{flags[0][2:]}",)
    if field.low is not None or field.high is not None:
        extra["type"] = click.IntRange(field.low, field.high)
    if enum := FORMAT_KINDS.get(field.kind):  # click's own metavar: [table|csv|json]
        extra.update(type=click.Choice(enum, False), default=enum(field.default), metavar=None)
    return click.Option([*flags, field.name], required=required, hidden=field.hidden,
                        help=field.help, **extra)  # fmt: skip


def command(function: Callable[..., object], name: str | None = None) -> Command:
    """The command a typed function declares: its keywords are its options."""
    called = name or function.__name__.rstrip("_").replace("_", "-")
    return Command(called, Question(called, function.__doc__ or "", fields_of(function)), function)


class _Commands(click.Group):
    """Every command, its module imported when asked for; a misspelt one gets the closest."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module = COMMANDS.get(name)
        return module and getattr(
            import_module(f"chipcost.cli.commands.{module}"), name.replace("-", "_")
        )

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except click.NoSuchCommand as exc:  # click's group offers its own commands: none here
            raise click.NoSuchCommand(exc.command_name, possibilities=COMMANDS, ctx=ctx) from None


chipcost = _Commands(
    "chipcost",
    context_settings=SETTINGS,
    help="AI-accelerator prices with history: collect, query, compare.",
    epilog="`chipcost COMMAND --help` shows a command's options; they may come before the "
    "command too (`chipcost --db FILE prices`).",
    no_args_is_help=True,
)
click.version_option(__version__, "-V", "--version", message="chipcost %(version)s")(chipcost)


def command_for(words: Sequence[str]) -> click.Command | None:
    """The command the words name: `prices`, or `throughput add` for a group's."""
    found = chipcost.get_command(click.Context(chipcost), words[0]) if words else None
    if isinstance(found, click.Group) and len(words) > 1:
        return found.get_command(click.Context(found), words[1])
    return found


def every_command() -> Iterator[tuple[str, Command]]:
    """('prices', its command), ('throughput add', ...): every command, a group's each."""
    for name in COMMANDS:
        found = command_for([name])
        subs = found.commands if isinstance(found, click.Group) else {"": found}
        for sub, each in subs.items():
            yield f"{name} {sub}".strip(), each  # type: ignore[misc]


def options_after_command(args: Sequence[str]) -> list[str]:
    """The command line with options given before the command moved after it: `chipcost --db
    X prices` reads as `chipcost prices --db X` (a command's options are its own; any it takes
    may come first). An option before the command takes the next word as its value unless that
    word is a command or an option; `--help` and `--version` there are the top level's own."""
    args, at = list(args), 0
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
    """The function to run, its keywords and the command as typed (`chipcost prices`); a usage
    error, `--help` or `--version` exits here (2 for an error or no command, as help says)."""
    try:
        chosen = chipcost.main(options_after_command(args), "chipcost", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help())
        sys.exit(2)
    except click.UsageError as exc:
        _usage_error(exc)
    if isinstance(chosen, int):  # --help or --version was shown
        sys.exit(chosen)
    return chosen


def _listed(command: click.Command) -> list[str]:
    """Every spelling of the options a command's --help lists (no hidden old spelling)."""
    params = [p for p in command.params if isinstance(p, click.Option) and not p.hidden]
    return [o for p in params for o in (*p.opts, *p.secondary_opts)]


def _near(given: str, option: str) -> bool:
    """Whether `option` is a near spelling of `given`: one's words among the other's
    (`--model`, `--pricing-model`), or the same letters but a slip (`--provder`)."""
    from difflib import SequenceMatcher

    a, b = given.removeprefix("--"), option.removeprefix("--")
    words, others = set(a.split("-")), set(b.split("-"))
    return words <= others or others <= words or SequenceMatcher(None, a, b).ratio() >= 0.8


def _usage_error(exc: click.UsageError) -> NoReturn:
    """One line, exit 2: what was wrong, and the help to see. A misspelt option's closest are
    among the options --help lists (not --help itself, nor a hidden old spelling); an option
    of other commands names them, and a closest only where it is a near spelling (`index
    --provider` is no slip of `--wide`), with why the command has none where it says why."""
    from chipcost.cli.failures import fail
    from chipcost.core.asks import NOT_TAKEN

    prog = exc.ctx.command_path if exc.ctx else "chipcost"
    called_as = prog.removeprefix("chipcost ")
    said = exc.format_message()
    if isinstance(exc, click.NoSuchOption):
        name = exc.option_name
        # The commands that take it (`--model` is cost's LLM, not prices' pricing model).
        others = [
            called
            for called, command in every_command()
            if f"chipcost {called}" != prog and name in _listed(command)
        ]
        if exc.ctx is not None:
            listed = _listed(exc.ctx.command)
            if others:  # given as those commands spell it: not a slip of any but a near one
                listed = [o for o in listed if _near(name, o)]
            exc = click.NoSuchOption(name, possibilities=listed, ctx=exc.ctx)
            said = exc.format_message()
        if renamed := RENAMED.get((called_as, name)):
            said = f"{exc.message} It is {renamed} now."
        said += f" {name} is an option of {', '.join(others)}." if others else ""
        if why := NOT_TAKEN.get((called_as, name)):
            said += f" {called_as} takes no {name}: {why}."
    fail(f"{prog}: error: {said.rstrip('.')}; see `{prog} --help`", code=2, label=False)
