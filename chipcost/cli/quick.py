"""`prices`, `cost` and `sql` straight from the command line, without importing Typer.

These are the commands people script and run over and over; Typer's import and the building
of a command from its signature were a third of what `chipcost prices` added to the DuckDB
query it runs. Here a command line made only of the command's own long options (`--opt
value`, `--opt=value`, flags) and, for `sql`, its query is read into the keyword arguments
chipcost.cli.reads takes, and the command runs. Anything else (`--help`, a short option, an
unknown or misspelt option, a value that does not convert, a missing required option, a value
that starts with "-") returns None and the command goes through Typer as before, which
explains the mistake in its own words: this path never reports a usage error of its own.

tests/cli/test_quick.py checks that each table below names exactly the options Typer builds
from the command's signature, and that for generated command lines both paths pass the
command the same arguments.
"""

from __future__ import annotations

import errno
import inspect
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

from chipcost.cli import reads
from chipcost.cli.formats import OutputFormat, PriceFormat
from chipcost.cli.terminal import MAX_LIMIT


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


def _switch(name: str, param: str) -> dict[str, Opt]:
    """A --name/--no-name pair of flags."""
    return {f"--{name}": Opt(param, "flag"), f"--no-{name}": Opt(param, "flag", value=False)}


def _texts(*names: str) -> dict[str, Opt]:
    """Repeatable text options (--chip H100 --chip A100)."""
    return {f"--{n}": Opt(n.replace("-", "_"), multiple=True) for n in names}


_COMMON = {
    "--warehouse": Opt("db"),
    "--db": Opt("db"),
    "--format": Opt("format", "format"),
}
_TABLE = {
    **_COMMON,
    "--limit": Opt("limit", "int", low=1, high=MAX_LIMIT),
    "--wide": Opt("wide", "flag"),
}


# Your currency and discounts (chipcost.pipeline.your_prices), on every read of prices.
_YOURS = {"--currency": Opt("currency"), "--list-prices": Opt("list_prices", "flag")}


class Spec(NamedTuple):
    """A command's plain function, its options and its one positional argument (if any).

    What the command requires and the value of every parameter not given are the function's
    own: its parameters without a default, and its defaults."""

    function: Callable[..., None]
    options: dict[str, Opt]
    positional: str | None = None

    @property
    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self._parameters() if p.default is not p.empty}

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(p.name for p in self._parameters() if p.default is p.empty)

    def _parameters(self) -> list[inspect.Parameter]:
        return list(inspect.signature(self.function).parameters.values())


SPECS: dict[str, Spec] = {
    "prices": Spec(
        reads.prices,
        options={
            **_TABLE,
            **_texts("chip", "region", "pricing-model", "model", "provider", "chips"),
            "--min-memory": Opt("min_memory", "float"),
            "--min-price": Opt("min_price", "float"),
            "--max-price": Opt("max_price", "float"),
            "--sort": Opt("sort"),
            **_switch("spot", "spot"),
            **_YOURS,
            "--format": Opt("format", "price-format"),
        },
    ),
    "cost": Spec(
        reads.cost,
        options={
            **_TABLE,
            "--model": Opt("model"),
            "--workload": Opt("workload"),
            "--tokens": Opt("tokens"),
            "--baseline": Opt("baseline"),
            "--overhead": Opt("overhead", "float"),
            "--migration-cost": Opt("migration_cost"),
            "--daily-tokens": Opt("daily_tokens"),
            "--speed": Opt("speed"),
            **_texts("chip", "region", "pricing-model", "provider"),
            "--all-offers": Opt("all_offers", "flag"),
            "--max-instances": Opt("max_instances", "int", low=1),
            "--max-interruption": Opt("max_interruption"),
            **_YOURS,
        },
    ),
    "sql": Spec(
        reads.sql,
        options={**_COMMON, "--max-rows": Opt("max_rows", "int", low=1, high=MAX_LIMIT)},
        positional="query",
    ),
}


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
    if opt.kind in ("format", "price-format"):
        kind = PriceFormat if opt.kind == "price-format" else OutputFormat
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
