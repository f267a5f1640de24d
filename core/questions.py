"""The question a typed signature asks (chipcost.core.asks): each keyword's `Opt` completed
with its name, default and type; the command line makes click options of them (chipcost.cli.
parser); messages spell a field as the asker did (`Voice`: `--max-price 3`, `max_price=3`)."""

from collections.abc import Callable, Mapping, Sequence
from inspect import Parameter, signature
from pathlib import Path
from typing import Any, NamedTuple, get_type_hints


class Opt(NamedTuple):
    """A keyword's declaration, `Annotated[type, Opt(help, ...)]`; `fields_of` completes it
    from its signature (its name, default and type)."""

    help: str
    # What it is on the command line, else read from its type: names (repeatable, or a comma
    # list), text, float, int, flag (--name), switch (--name/--no-name, None when neither is
    # given), format or price-format (table|csv|json[|focus]), path, argument (positional).
    kind: str = ""
    flags: tuple[str, ...] = ()  # the command line's spellings; () is --name-with-dashes
    low: int | None = None  # an int's bounds
    high: int | None = None
    cli: bool = True  # an option of the command
    cli_required: bool = False  # required on the command line only (the API defaults to None)
    hidden: bool = False  # taken but not listed in --help
    same_as: str | None = None  # an old spelling: its values join this field's
    # A filter of `prices`' rows: the keyword of the warehouse query it becomes, how its
    # value is checked (chipcost.reads.price_ask), whether it narrows them (not an order).
    query: str | None = None
    check: str | None = None
    narrows: bool = True
    metavar: str | None = None  # the value's name in --help
    # From the signature: the keyword, its default (or none), its type (the API checks it).
    name: str = ""
    default: Any = None
    required: bool = False
    annotation: Any = None

    @property
    def option(self) -> str:  # the command line's name of the field: '--max-price'
        return self.flags[0] if self.flags else "--" + self.name.replace("_", "-")


# The kind of a keyword whose Opt does not name one, from its type.
_KIND_OF_TYPE: dict[Any, str] = {
    str | Sequence[str] | None: "names", list[str] | None: "names", str | None: "text",
    str: "text", float | None: "float", float: "float", int | None: "int", int: "int",
    bool: "flag", bool | None: "switch", Path | None: "path", Path: "path",
}  # fmt: skip


def fields_of(function: Callable[..., object]) -> tuple[Opt, ...]:
    """The fields a typed signature declares: each keyword's `Opt`, completed."""
    hints = get_type_hints(function, include_extras=True)
    fields = []
    for name, parameter in signature(function).parameters.items():
        kind, opt = hints[name].__origin__, hints[name].__metadata__[0]
        required = parameter.default is Parameter.empty
        fields.append(opt._replace(
            name=name, default=None if required else parameter.default, required=required,
            kind=opt.kind or _KIND_OF_TYPE[kind], annotation=kind,
        ))  # fmt: skip
    return tuple(fields)


class Question(NamedTuple):
    command: str
    summary: str  # the command's help: its first line, then paragraphs
    fields: tuple[Opt, ...]

    @classmethod
    def of(cls, spec: Callable[..., object], terminal: Callable[..., object] | None = None):
        """The question `spec` asks, and the options only the command line has (`terminal`'s)."""
        more = fields_of(terminal) if terminal else ()
        return cls(spec.__name__, spec.__doc__ or "", (*fields_of(spec), *more))

    def field(self, name: str) -> Opt:
        return next(f for f in self.fields if f.name == name)

    def given(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Every field's value: as given (the command line and the API take only declared names),
        else its default; an old spelling's values joined to its field's."""
        asked = {f.name: f.default for f in self.fields if not f.required} | dict(values)
        for old in (f for f in self.fields if f.same_as is not None):
            value = asked.pop(old.name, None)
            if value is not None and value != []:
                asked[old.same_as] = _joined(asked.get(old.same_as), value)
        return asked


def _joined(new: Any, old: Any) -> Any:
    """An old spelling's value joined to its new one's: both lists' items, else the old."""
    if not isinstance(new, list | tuple) and not isinstance(old, list | tuple):
        return old
    return [
        x for v in (new, old) if v is not None for x in (v if isinstance(v, list | tuple) else [v])
    ]


class Voice(NamedTuple):
    """How messages name the fields asked, as the command line or the Python API spells them:
    every message below the command line names an option through one (a read's, `Voice(COST,
    api=True)`, or COMMAND_LINE for what only the command line asks)."""

    question: Question | None = None  # None: a command's options are --name-with-dashes
    api: bool = False

    def name(self, field: str) -> str:
        """'--max-price' (command line) or 'max_price' (Python): a value's label."""
        if self.api or self.question is None:
            return field if self.api else "--" + field.replace("_", "-")
        return self.question.field(field).option  # a field it does not declare: KeyError

    def takes(self, field: str) -> bool:
        """Whether the asker can give the field (compare takes no baseline: its chip B is)."""
        return self.question is None or any(f.name == field for f in self.question.fields)

    def option(self, field: str) -> str:
        """'--max-price' or 'max_price=': the field named in advice ("a lower --speed")."""
        return f"{field}=" if self.api else self.name(field)

    def either(self, *fields: str) -> str:
        """'--region/--pricing-model' or 'region=/pricing_model=': several fields at once."""
        return "/".join(self.option(f) for f in fields)

    def said(self, field: str, value: object) -> str:
        """'--max-price 3' (command line) or 'max_price=3' (Python); a flag or a switch as it
        was set ('--no-spot', 'spot=False')."""
        if self.api:
            return f"{field}={value}"
        option = self.name(field)
        if isinstance(value, bool):  # a flag or a switch, as it was set
            return option if value else f"--no-{option.removeprefix('--')}"
        return f"{option} {value}"


# The voice of the commands only the command line answers (collect, measure, report, ...)
# and of the settings' options (--db, --data-dir).
COMMAND_LINE = Voice()
PYTHON = Voice(api=True)  # the Python API's, where no read's question is at hand (db=)
