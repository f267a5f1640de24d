"""`prices`, `cost` and `sql` straight from the command line, without importing Typer.

These are the commands people script and run over and over; Typer's import and the building
of a command from its signature were a third of what `chipcost prices` added to the DuckDB
query it runs. Here a command line made only of the command's own long options (`--opt
value`, `--opt=value`, flags) and, for `sql`, its query is read into the keyword arguments
chipcost.cli.reads takes, and the command runs. Anything else (`--help`, a short option, an
unknown or misspelt option, a value that does not convert, a missing required option, a value
that starts with "-") returns None and the command goes through Typer as before, which
explains the mistake in its own words: this path never reports a usage error of its own.

The options are read from each command's declared question (chipcost.core.questions), as
Typer's are (chipcost.cli.declared). tests/cli/test_quick.py checks that the two name exactly
the same options, and that for generated command lines both paths pass the command the same
arguments.
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

from chipcost.cli import reads
from chipcost.cli.formats import FORMAT_KINDS, cli_default
from chipcost.core.questions import COST, PRICES, SQL, Field, Question


# NamedTuples rather than frozen dataclasses: each dataclass takes about a millisecond to
# define at import, on the path these commands keep short.
class Opt(NamedTuple):
    """One long option: the parameter it sets, how its value is read, and whether it repeats.

    kind: "text", "int" (within low..high), "float", "format" (an OutputFormat, any case),
    "price-format" (a PriceFormat: focus too), or "flag" (no value: sets `value`).
    """

    param: str
    kind: str = "text"
    multiple: bool = False
    value: bool = True
    low: int | None = None
    high: int | None = None


class Spec(NamedTuple):
    """A command's plain function, its options and its one positional argument (if any), and
    what it requires and defaults to: all from its declared question."""

    function: Callable[..., None]
    options: dict[str, Opt]
    positional: str | None
    required: tuple[str, ...]
    defaults: dict[str, Any]


# How each kind of declared field is read here (chipcost.core.questions.KINDS).
_KIND = {"names": "text", "db": "text", "argument": "text"}


def _options(field: Field) -> dict[str, Opt]:
    """The long options of one declared field."""
    if field.kind == "switch":
        name = field.option.removeprefix("--")
        return {
            field.option: Opt(field.name, "flag"),
            f"--no-{name}": Opt(field.name, "flag", value=False),
        }
    kind = _KIND.get(field.kind, field.kind)
    opt = Opt(field.name, kind, multiple=field.kind == "names", low=field.low, high=field.high)
    return {flag: opt for flag in field.flags or (field.option,)}


def _spec(question: Question) -> Spec:
    options: dict[str, Opt] = {}
    positional = None
    for field in question.cli_fields():
        if field.kind == "argument":
            positional = field.name
        else:
            options.update(_options(field))
    fields = list(question.cli_fields())
    return Spec(
        getattr(reads, question.command),
        options,
        positional,
        tuple(f.name for f in fields if f.cli_requires),
        {f.name: cli_default(f) for f in fields if not f.cli_requires},
    )


# The commands the console script runs this way (chipcost.cli.entry's _QUICK).
SPECS: dict[str, Spec] = {q.command: _spec(q) for q in (PRICES, COST, SQL)}


def parse(command: str, args: list[str]) -> dict[str, Any] | None:
    """The command's keyword arguments for this command line, or None: leave it to Typer."""
    spec = SPECS[command]
    given: dict[str, Any] = {}
    rest = list(args)
    while rest:
        token = rest.pop(0)
        if not token.startswith("-"):
            if spec.positional is None or spec.positional in given:
                return None
            given[spec.positional] = token
            continue
        name, has_value, value = token.partition("=")
        opt = spec.options.get(name)
        if opt is None or not name.startswith("--"):
            return None
        if opt.kind == "flag":
            if has_value:
                return None
            given[opt.param] = opt.value
            continue
        if not has_value:
            if not rest or rest[0].startswith("-"):
                return None
            value = rest.pop(0)
        converted = _converted(opt, value)
        if converted is None:
            return None
        if opt.multiple:
            given.setdefault(opt.param, []).append(converted)
        else:
            given[opt.param] = converted
    if any(name not in given for name in spec.required):
        return None
    return {**spec.defaults, **given}


def _converted(opt: Opt, value: str) -> Any:
    """The value as Typer would pass it, or None where Typer would refuse it."""
    try:
        if opt.kind == "int":
            number = int(value)
            low = number if opt.low is None else opt.low
            high = number if opt.high is None else opt.high
            return number if low <= number <= high else None
        if opt.kind == "float":
            return float(value)
    except ValueError:
        return None
    if opt.kind in FORMAT_KINDS:
        kind = FORMAT_KINDS[opt.kind]
        folded = value.casefold()
        return kind(folded) if folded in kind.__members__ else None
    return value


def run(command: str, args: list[str]) -> bool:
    """Run the command if its line parses here; False leaves it to Typer."""
    kwargs = parse(command, args)
    if kwargs is None:
        return False
    from chipcost.cli.failures import guarded

    guarded(lambda: _as_typer_ends(SPECS[command].function, kwargs))
    return True


def _as_typer_ends(function: Callable[..., None], kwargs: dict[str, Any]) -> None:
    """Call the command, ending as a command run by Typer ends on Ctrl-C, end of input, or a
    closed pipe."""
    try:
        function(**kwargs)
    except KeyboardInterrupt:
        sys.exit(130)
    except EOFError:
        sys.stderr.write("\nAborted!\n")
        sys.exit(1)
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        # `chipcost prices | head`: exit 1 without a second error when Python flushes at exit.
        sys.stdout = _QuietFlush(sys.stdout)
        sys.stderr = _QuietFlush(sys.stderr)
        sys.exit(1)


class _QuietFlush:
    """A stream whose flush ignores a closed pipe (what Typer does after one)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
