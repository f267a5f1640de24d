"""A read command's Typer options, made from its declared question (chipcost.core.questions).

The command Typer builds calls the plain function of the same name in chipcost.cli.reads,
looked up when it runs, with every option as a keyword argument.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

import typer

from chipcost.cli.formats import FORMAT_KINDS, OutputFormat, PriceFormat, cli_default
from chipcost.core.questions import Field, Question

# The type Typer reads each kind of field as.
_TYPES: dict[str, Any] = {
    "names": list[str] | None,
    "text": str | None,
    "float": float | None,
    "int": int | None,
    "flag": bool,
    "switch": bool | None,
    "format": OutputFormat,
    "price-format": PriceFormat,
    "db": str | None,
    "argument": str,
}


def _info(field: Field) -> Any:
    if field.kind == "argument":
        return typer.Argument(help=field.help)
    flags = field.flags or (field.option,)
    if field.kind == "switch":
        flags = (f"{field.option}/--no-{field.option.removeprefix('--')}",)
    extra: dict[str, Any] = {}
    if field.kind == "int":
        extra = {"min": field.low, "max": field.high}
    if field.kind in FORMAT_KINDS:
        extra = {"case_sensitive": False}
    return typer.Option(*flags, help=field.help, hidden=field.hidden, **extra)


def option_type(field: Field) -> Any:
    """The field as a Typer parameter's annotation: Annotated[type, typer.Option(...)]."""
    kind = _TYPES[field.kind]
    if field.cli_requires and field.kind in ("text", "names"):
        kind = str if field.kind == "text" else list[str]
    return Annotated[kind, _info(field)]


def _parameter(field: Field) -> inspect.Parameter:
    if field.cli_requires:
        default: Any = inspect.Parameter.empty
    else:
        default = cli_default(field)
    return inspect.Parameter(
        field.name,
        inspect.Parameter.KEYWORD_ONLY,
        default=default,
        annotation=option_type(field),
    )


def command(question: Question, work: Callable[..., None] | None = None) -> Callable[..., None]:
    """The Typer command of `question`: its options in the declared order, its help the
    question's summary; it calls `work`, by default the function of the command's name in
    chipcost.cli.reads (looked up when it runs), with every option by name."""
    parameters = [_parameter(f) for f in question.cli_fields()]

    def run(**given: Any) -> None:
        if work is not None:
            work(**given)
            return
        from chipcost.cli import reads

        getattr(reads, question.command)(**given)

    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in parameters}
    run.__doc__ = question.summary
    run.__name__ = run.__qualname__ = question.command
    return run
