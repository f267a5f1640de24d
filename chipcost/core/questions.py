"""The read commands' questions, declared once, as typed Python signatures.

Each read (`prices`, `cost`, `compare`, `history`, `index`, `sql`) is a function below whose
signature is the question it asks: each keyword, its type, its default, and in `Annotated`
metadata (`Opt`) its help and where it goes (`query=`, the keyword of the warehouse query a
filter becomes; `check=`, how its value is checked). chipcost.api answers these signatures
(static checkers and IDEs read the API's keywords from them), the command line makes its click
options of them (chipcost.cli.parser, with the options only a terminal needs: --format,
--limit, --wide, ...), and messages spell an option as the asker did (`Voice`: `--max-price 3`
on the command line, `max_price=3` from Python). Adding a filter to `prices` is one keyword
here plus its condition in warehouse.prices' query.

No `from __future__ import annotations`: the annotations are read at import (`fields_of`).
NamedTuples rather than dataclasses: this module is imported to parse a command line, where a
dataclass costs about a millisecond each to define.
"""

from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any, NamedTuple, get_type_hints

from chipcost.core.vocabulary import models_help

# The most rows a command shows: enough for any terminal or script, and a bound that keeps
# a mistyped --limit (99999999999999999999) a clear refusal rather than an overflow.
MAX_LIMIT = 1_000_000
# Rows a table shows when --limit is not given (csv and json give every row).
DEFAULT_TABLE_ROWS = 200
DEFAULT_BASELINE = "H100-SXM"

Names = str | Sequence[str] | None  # a name, a comma list, or a list of names
Day = date | datetime | str | None  # a day as a date or YYYY-MM-DD


class Opt(NamedTuple):
    """A field: a keyword's declaration in `Annotated[type, Opt(help, ...)]`, completed from
    its signature by `fields_of` (its name, default and type)."""

    help: str
    # What it is on the command line (else read from its type, _KIND_OF_TYPE): names (a
    # repeatable text option: --chip H100 --chip A100, or a comma list), text, float, int
    # (within low..high), flag (--name), switch (--name/--no-name, None when neither is
    # given), format or price-format (table|csv|json[|focus]), db (the warehouse: --warehouse,
    # --db), path, argument (a positional argument).
    kind: str = ""
    flags: tuple[str, ...] = ()  # the command line's spellings; () is --name-with-dashes
    low: int | None = None  # an int's bounds
    high: int | None = None
    cli: bool = True  # an option of the command
    cli_required: bool = False  # required on the command line only (the API defaults to None)
    hidden: bool = False  # taken but not listed in --help
    same_as: str | None = None  # an old spelling: its values join this field's
    # A filter of the rows (`prices`): the keyword of the warehouse query it becomes, and how
    # its value is checked (chipcost.pipeline.prices.CHECKS); why_empty names it.
    query: str | None = None
    check: str | None = None
    narrows: bool = True  # a filter (not an order): why_empty may try the rows without it
    metavar: str | None = None  # the value's name in --help
    name: str = ""  # the parameter: the API's keyword, the command's
    default: Any = None
    required: bool = False
    positional: bool = False  # the API takes it by position too (a required field always)
    # The type the signature declares (`float | str | None`): what the API checks a value
    # against at its edge. None: declared by `kind` alone (the command line's own fields).
    annotation: Any = None

    @property
    def option(self) -> str:
        """The command line's name of the field: '--max-price'."""
        return self.flags[0] if self.flags else "--" + self.name.replace("_", "-")


Field = Opt  # a field once `fields_of` has completed it

# The kind of a keyword whose Opt does not name one, from its type.
_KIND_OF_TYPE: dict[Any, str] = {
    Names: "names", list[str] | None: "names", str | None: "text", str: "text",
    float | None: "float", float: "float", int | None: "int", int: "int", bool: "flag",
    bool | None: "switch", Path | None: "path", Path: "path",
}  # fmt: skip


def fields_of(function: Callable[..., object]) -> tuple[Field, ...]:
    """The fields a typed signature declares: each keyword's `Opt` with its name, default and
    type. Read from the code object, without importing inspect."""
    hints = get_type_hints(function, include_extras=True)
    code = function.__code__
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    positional = names[: code.co_argcount]
    defaults = dict(zip(positional[::-1], (function.__defaults__ or ())[::-1], strict=False))
    defaults.update(function.__kwdefaults__ or {})
    fields = []
    for name in names:
        kind, opt = hints[name].__origin__, hints[name].__metadata__[0]
        completed = opt._replace(name=name, kind=opt.kind or _KIND_OF_TYPE[kind], annotation=kind)
        fields.append(
            completed._replace(
                default=defaults.get(name),
                required=name not in defaults,
                positional=name in positional,
            )
        )
    return tuple(fields)


class Question(NamedTuple):
    command: str
    summary: str  # the command's help: its first line, then paragraphs
    fields: tuple[Field, ...]

    @classmethod
    def of(cls, spec: Callable[..., object], cli: tuple[Field, ...] = ()) -> "Question":
        """The question a typed signature asks, with the options only the command line has."""
        return cls(spec.__name__, spec.__doc__ or "", (*fields_of(spec), *cli))

    def field(self, name: str) -> Field:
        for field in self.fields:
            if field.name == name:
                return field
        raise KeyError(f"{self.command} declares no field {name!r}")

    def declares(self, name: str) -> bool:
        return any(f.name == name for f in self.fields)

    def asked(self) -> Iterator[Field]:
        """The fields that become the query's keywords (filters and order)."""
        return (f for f in self.fields if f.query is not None)

    def filters(self) -> Iterator[Field]:
        """The fields that narrow the rows."""
        return (f for f in self.asked() if f.narrows)

    def given(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Every field's value: as given, else its default; an old spelling's values joined
        to its field's. A name the question does not declare is a TypeError, as a Python
        call with an unknown keyword."""
        unknown = set(values) - {f.name for f in self.fields}
        if unknown:
            raise TypeError(f"{self.command}() got unexpected keyword(s) {sorted(unknown)}")
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
    return [*_listed(new), *_listed(old)]


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


class Voice(NamedTuple):
    """How messages name the fields of what was asked: as the command line spells them, or as
    the Python API does. Every message below the command line names an option through one:
    the read's own (`Voice(COST)`, `Voice(COST, api=True)`), or COMMAND_LINE for what only the
    command line asks (measure, backfill, report: no Python API answers them)."""

    question: Question | None = None  # None: a command's options are --name-with-dashes
    api: bool = False

    def name(self, field: str) -> str:
        """'--max-price' (command line) or 'max_price' (Python): a value's label."""
        if self.api:
            return field
        if self.question is None:
            return "--" + field.replace("_", "-")
        return self.question.field(field).option  # a field it does not declare: KeyError

    def takes(self, field: str) -> bool:
        """Whether the asker can give the field (compare takes no baseline: its chip B is)."""
        return self.question is None or self.question.declares(field)

    def option(self, field: str) -> str:
        """'--max-price' (command line) or 'max_price=' (Python): the field named in advice
        ("ask a lower speed (--speed)")."""
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


# The voice of the commands only the command line answers (collect, backfill, measure,
# export, report, throughput) and of the settings' options (--db, --data-dir) a command names.
COMMAND_LINE = Voice()
PYTHON = Voice(api=True)  # the Python API's, where no read's question is at hand (db=)


# Keywords many reads share.
DB_HELP = (
    "Warehouse: a DuckDB file, or a lake as ducklake:postgres: and its connection string "
    "(default: the variables CHIPCOST_WAREHOUSE, then CHIPCOST_DB, else chipcost.duckdb in "
    "CHIPCOST_DATA_DIR or ./data)."
)
Db = Annotated[str | Path | None, Opt(DB_HELP, kind="db", flags=("--warehouse", "--db"))]
Currency = Annotated[
    str | None,
    Opt(
        "Show prices in this currency (EUR, GBP, JPY, ...) at the ECB reference rate of each "
        "price's own day (default: $CHIPCOST_CURRENCY, else USD)."
    ),
]
ListPrices = Annotated[bool, Opt("Show list prices: your discounts file is set aside.")]
Speed = Annotated[
    float | str | None,
    Opt(
        "Inference: tokens/s per user each chip's figure must reach: a number, server (5, "
        "MLPerf Server's bound; the default), interactive (25) or max (maximum throughput).",
        kind="text",
    ),
]
Ttft = Annotated[
    float | str | None,
    Opt(
        "Inference: the time to first token a figure must meet at the speed: 2s, 500ms "
        "(default by request shape: 2 s for prompts up to 2,048 tokens, 6 s beyond).",
        kind="text",
    ),
]
Model = Annotated[str, Opt("Model, e.g. llama-3-70b (see `throughput list`).")]
Workload = Annotated[str, Opt("training or inference.")]
OnlyRegion = Annotated[Names, Opt("Only this region.")]
OnlyPricingModel = Annotated[Names, Opt(f"Only this pricing model: {models_help()}.")]
OnlyProvider = Annotated[Names, Opt("Only this provider.")]
Instance = Annotated[
    Names,
    Opt("Instance type, e.g. p5.48xlarge, a3-highgpu-8g, ND96isr_H100_v5 (repeat or comma list)."),
]
Until = Annotated[Day, Opt("Last day, YYYY-MM-DD.", kind="text")]


# Options only the command line has (a terminal's or a pipe's): the API returns a DataFrame.
def _cli(name: str, kind: str, help: str, default: Any = None, **more: Any) -> Field:
    return Field(help, kind, name=name, default=default, **more)


FORMAT_HELP = "table (for people), csv or json (for scripts: stable field names, ISO 8601 times)"
LIMIT = _cli(
    "limit",
    "int",
    f"Show at most this many rows (table: {DEFAULT_TABLE_ROWS} unless given; csv and json: all).",
    low=1,
    high=MAX_LIMIT,
)
WIDE = _cli("wide", "flag", "Every column, however wide the table gets.", False)
FORMAT = _cli("format", "format", f"{FORMAT_HELP}.", "table")
PRICE_FORMAT = FORMAT._replace(
    kind="price-format",
    help=f"{FORMAT_HELP}, or focus (CSV under the FinOps FOCUS column names, docs/focus.md).",
)
STALE_DAYS = _cli(
    "stale_days",
    "int",
    "A source with no success for this many days is stale (default: $CHIPCOST_STALE_DAYS, else 2).",
    low=1,
    high=99999,
)


def _old(name: str, new: str, kind: str = "names") -> Field:
    """An old spelling, still taken for one release (a note on stderr says the new one)."""
    return _cli(name, kind, f"Old name of --{new.replace('_', '-')}.", hidden=True, same_as=new)


def prices(
    chip: Annotated[
        Names,
        Opt(
            "Chip or family: H100-SXM, H100 (SXM, PCIe, NVL), A100, Trainium, Hopper. "
            "Repeat it or give a comma list.",
            query="chips",
            check="chips",
        ),
    ] = None,
    *,
    region: Annotated[
        Names,
        Opt("Region code, e.g. us-east-1 (repeat or comma list).", query="regions", check="named"),
    ] = None,
    pricing_model: Annotated[Names, Opt(f"{models_help()}.", query="models", check="named")] = None,
    provider: Annotated[
        Names,
        Opt("Provider, e.g. aws, runpod (repeat or comma list).", query="providers", check="named"),
    ] = None,
    instance: Annotated[
        Names, Opt(Instance.__metadata__[0].help, query="instance_types", check="named")
    ] = None,
    min_memory: Annotated[
        float | None,
        Opt("At least this much memory per chip, GB.", query="min_memory_gb", check="number"),
    ] = None,
    min_vcpus: Annotated[
        float | None,
        Opt(
            "At least this many vCPUs per instance (offers whose source publishes none are "
            "left out).",
            query="min_vcpus",
            check="number",
        ),
    ] = None,
    min_ram: Annotated[
        float | None,
        Opt(
            "At least this much instance memory, GB (offers whose source publishes none are "
            "left out).",
            query="min_ram_gb",
            check="number",
        ),
    ] = None,
    chip_count: Annotated[
        float | Sequence[float] | str | None,
        Opt(
            "Chips per instance: 8 (or 1,8).",
            kind="names",
            query="chip_counts",
            check="counts",
            metavar="N",
        ),
    ] = None,
    min_price: Annotated[
        float | None,
        Opt("At least this many USD per chip-hour.", query="min_price", check="number"),
    ] = None,
    max_price: Annotated[
        float | None,
        Opt("At most this many USD per chip-hour.", query="max_price", check="number"),
    ] = None,
    spot: Annotated[
        bool | None,
        Opt("Only spot prices, or none of them (default: all).", query="spot", check="switch"),
    ] = None,
    sort: Annotated[
        str | None,
        Opt(
            "Order by price, chip, provider or region (default: price for a family such as "
            "H100, else chip).",
            query="sort",
            check="sort",
            narrows=False,
        ),
    ] = None,
    currency: Currency = None,
    list_prices: ListPrices = False,
    db: Db = None,
    chips: Annotated[
        float | Sequence[float] | str | None,
        Opt(
            "Old name of chip_count (the API's only: the command line's --chips is measure's).",
            kind="names",
            cli=False,
            hidden=True,
            same_as="chip_count",
        ),
    ] = None,
):  # the API answers it: chipcost.api
    """Current per-chip hourly prices, cheapest first per chip, pricing model and term."""


PRICES = Question.of(
    prices,
    cli=(
        _cli(
            "by",
            "text",
            "One row per chip and provider (provider) or per provider and region (region): "
            "the cheapest on demand, spot and commitment price per chip side by side.",
        ),
        _cli(
            "per",
            "text",
            "Prices per hour (the default), month (730 hours) or year (8,760 hours).",
        ),
        LIMIT,
        WIDE,
        PRICE_FORMAT,
        STALE_DAYS,
    ),
)


def cost(
    model: Model,
    workload: Workload,
    *,
    chip: Annotated[
        Names, Opt("Only this chip or family: H200, H100, Trainium (repeat or comma list).")
    ] = None,
    tokens: Annotated[
        float | str | None,
        Opt("Cost of processing this many tokens: 300e9 or 300B.", kind="text"),
    ] = None,
    baseline: Annotated[
        str | None,
        Opt(f"Chip the savings and break-even compare with (default: {DEFAULT_BASELINE})."),
    ] = None,
    overhead: Annotated[
        float | None, Opt("Extra share of chip-hours (default 0.15 training, 0 inference).")
    ] = None,
    migration_cost: Annotated[
        float | str | None,
        Opt("One-off cost of moving off the baseline, USD: 36000.", kind="text"),
    ] = None,
    daily_tokens: Annotated[
        float | str | None,
        Opt("Tokens per day, for break-even in days: 1e9 or 1B.", kind="text"),
    ] = None,
    speed: Speed = None,
    ttft: Ttft = None,
    region: OnlyRegion = None,
    pricing_model: OnlyPricingModel = None,
    provider: OnlyProvider = None,
    instance: Instance = None,
    all_offers: Annotated[
        bool, Opt("Every offer, not the cheapest per chip, pricing model and term.")
    ] = False,
    max_instances: Annotated[
        int | None,
        Opt("Drop offers needing more than this many instances to hold the model.", low=1),
    ] = None,
    max_interruption: Annotated[
        float | str | None,
        Opt(
            "Spot offers only where AWS's frequency of interruption bucket (Spot Instance "
            "Advisor) tops out at this percent or less, e.g. 10%; other spot left out.",
            kind="text",
        ),
    ] = None,
    currency: Currency = None,
    list_prices: ListPrices = False,
    db: Db = None,
):  # the API answers it: chipcost.api
    """Cost per million tokens (and of N tokens) per chip and pricing model, cheapest first."""


COST = Question.of(cost, cli=(LIMIT, WIDE, FORMAT, STALE_DAYS))


def compare(
    chip_a: Annotated[str, Opt("The chip asked about, e.g. Trainium2.", kind="argument")],
    chip_b: Annotated[str, Opt("The chip it is compared with, e.g. H100-SXM.", kind="argument")],
    model: Model,
    workload: Workload,
    *,
    speed: Speed = None,
    ttft: Ttft = None,
    region: OnlyRegion = None,
    pricing_model: OnlyPricingModel = None,
    provider: OnlyProvider = None,
    currency: Currency = None,
    list_prices: ListPrices = False,
    db: Db = None,
):  # the API answers it: chipcost.api
    """Is chip A cheaper per token than chip B? Per pricing model, with the figures used.

    Both prices, both throughput figures (with their sources and operating points) and the
    range the figures chipcost holds allow."""


COMPARE = Question.of(
    compare,
    cli=(
        _cli(
            "chart",
            "flag",
            "Chart $/M tokens against tokens/s per user for both chips.",
            False,
        ),
        WIDE,
        FORMAT,
        STALE_DAYS,
    ),
)


def history(
    chip: Annotated[
        Names,
        Opt("Chip or family, e.g. H100-SXM or H100 (repeatable: a chart each).", cli_required=True),
    ] = None,
    *,
    provider: Annotated[Names, Opt("Provider, e.g. aws.")] = None,
    region: Annotated[Names, Opt("Region code, e.g. us-east-1.")] = None,
    instance: Instance = None,
    pricing_model: Annotated[Names, Opt(f"{models_help()}.")] = None,
    since: Annotated[
        Day, Opt("First day, YYYY-MM-DD (default: the whole history).", kind="text")
    ] = None,
    until: Until = None,
    currency: Currency = None,
    db: Db = None,
):  # the API answers it: chipcost.api
    """The cheapest per-chip-hour price per day per pricing model, with a terminal chart."""


HISTORY = Question.of(
    history,
    cli=(
        _cli("no_chart", "flag", "The table only.", False),
        WIDE,
        PRICE_FORMAT,
        STALE_DAYS,
    ),
)


def index(
    chip: Annotated[
        Names,
        Opt("Chip or family (repeatable): its daily index. Default: every chip's latest."),
    ] = None,
    *,
    pricing_model: Annotated[
        Names,
        Opt(
            "on_demand (default), spot or commitment (any 1-year commitment; repeat or comma list)."
        ),
    ] = None,
    since: Annotated[
        Day, Opt("First day, YYYY-MM-DD (default: 30 days to --until).", kind="text")
    ] = None,
    until: Until = None,
    bucket: Annotated[
        Names, Opt("Old name of --pricing-model.", hidden=True, same_as="pricing_model")
    ] = None,
    # The command line shows every chip's latest day unless chips or --since are given.
    latest: Annotated[bool, Opt("Each chip's newest day only.", cli=False)] = False,
    currency: Currency = None,
    db: Db = None,
):  # the API answers it: chipcost.api
    """The daily rental price index per chip, with its changes and constituents.

    The level is the median of each provider's cheapest per-chip price (docs/price-index.md)."""


INDEX = Question.of(index, cli=(WIDE, FORMAT, STALE_DAYS))


def sql(
    query: Annotated[str, Opt("A read-only SQL query (SELECT ...).", kind="argument")],
    db: Db = None,
):  # the API answers it: chipcost.api
    """Run an ad hoc read-only query against the warehouse."""


SQL = Question.of(
    sql,
    cli=(
        FORMAT,
        LIMIT._replace(
            help="Show at most this many rows (table: 100 unless given; csv and json: all)."
        ),
        _old("max_rows", "limit", kind="int")._replace(low=1, high=MAX_LIMIT),
        STALE_DAYS,
    ),
)

QUESTIONS = {q.command: q for q in (PRICES, COST, COMPARE, SQL, HISTORY, INDEX)}
